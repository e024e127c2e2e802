"""Storing games and rating them: out of order, by board, atomically, reproducibly."""

from __future__ import annotations

import importlib
import json
import threading
from typing import Any

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from arena.ratings import trueskill_model
from arena.ratings.trueskill_model import RatingModel
from arena.storage import (
    GameAlreadyStored,
    StorageError,
    game_record,
    games_in_range,
    progress,
    rating_history,
    ratings,
    recompute_ratings,
    record_game,
    stored_indexes,
    tournament_game_ids,
    tournament_records,
)
from arena.storage.models import Game, GameSeat, RatingSnapshot, Tournament
from tests.storage.helpers import (
    fault,
    make_bots,
    make_record,
    make_tournament,
    reference_board_ratings,
    reference_game_ratings,
    seating,
    store,
)

Snapshot = tuple[int, int, float, float, int]


def _snapshots(engine: Engine, tournament: Tournament) -> list[Snapshot]:
    assert tournament.id is not None
    return [
        (s.schedule_index, s.bot_version_id, s.mu, s.sigma, s.games)
        for s in rating_history(engine, tournament.id, max_points=None)
        if s.schedule_index >= 0  # not the prior each bot's history starts with
    ]


def _current(engine: Engine, tournament: Tournament) -> dict[int, tuple[float, float, int, int]]:
    assert tournament.id is not None
    return {
        r.bot_version_id: (r.mu, r.sigma, r.games, r.rated_through)
        for r in ratings(engine, tournament.id)
    }


def _count(engine: Engine, table: Any) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(table)).one()


def test_out_of_order_games_are_rated_in_schedule_order(
    engine: Engine, records: list[dict[str, Any]]
) -> None:
    bots = make_bots(engine, 4)
    games = [(seating(bots, i), records[i]) for i in range(10)]
    shuffled = make_tournament(engine, bots, games_total=10, name="shuffled")
    in_order = make_tournament(engine, bots, games_total=10, name="in-order")
    assert shuffled.id is not None

    arrival = [2, 0, 5, 1, 3, 9, 8, 4, 7, 6]
    stored: set[int] = set()
    for index in arrival:
        store(engine, shuffled, index, *games[index])
        stored.add(index)
        prefix = 0
        while prefix in stored:
            prefix += 1
        assert stored_indexes(engine, shuffled.id) == stored
        snapshots = _snapshots(engine, shuffled)
        # Exactly one snapshot per bot per rated game, and only for the gap-free prefix.
        expected = {(i, bot) for i in range(prefix) for bot in games[i][0]}
        assert len(snapshots) == len(expected)
        assert {(s[0], s[1]) for s in snapshots} == expected
        reference = reference_game_ratings(games[:prefix])
        current = _current(engine, shuffled)
        assert set(current) == set(reference)
        for bot, rating in reference.items():
            assert current[bot][:2] == pytest.approx((rating.mu, rating.sigma), rel=1e-12)
            assert current[bot][2] == sum(bot in seats for seats, _ in games[:prefix])

    for index in range(10):
        store(engine, in_order, index, *games[index])
    assert _current(engine, shuffled) == _current(engine, in_order)
    assert _snapshots(engine, shuffled) == _snapshots(engine, in_order)


@pytest.mark.parametrize("rating_mode", ["game", "board"])
def test_a_closing_gap_rates_the_whole_backlog_as_if_stored_in_order(
    engine: Engine,
    records: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    rating_mode: str,
) -> None:
    # Reads of at most 2 units, so that the backlog takes several reads, the last short.
    # (``arena.storage.ratings`` the attribute is the package's function of that name.)
    monkeypatch.setattr(importlib.import_module("arena.storage.ratings"), "READ_UNITS_MAX", 2)
    bots = make_bots(engine, 4)
    total = 33  # 5 whole boards and a short one in board mode
    games = [(seating(bots, i), records[i % len(records)]) for i in range(total)]
    late = make_tournament(engine, bots, games_total=total, name="late", rating_mode=rating_mode)
    in_order = make_tournament(
        engine, bots, games_total=total, name="in-order", rating_mode=rating_mode
    )
    for index in range(total - 1, 0, -1):  # everything but game 0: all of it waits
        store(engine, late, index, *games[index])
    assert _snapshots(engine, late) == []
    assert late.id is not None
    assert (progress(engine, late.id).stored, progress(engine, late.id).rated) == (total - 1, 0)
    store(engine, late, 0, *games[0])
    assert (progress(engine, late.id).stored, progress(engine, late.id).rated) == (total, total)
    for index in range(total):
        store(engine, in_order, index, *games[index])
    assert max(r[3] for r in _current(engine, late).values()) == total - 1  # all rated
    assert _current(engine, late) == _current(engine, in_order)
    assert _snapshots(engine, late) == _snapshots(engine, in_order)


def test_a_stored_schedule_index_is_refused_without_side_effects(
    engine: Engine, records: list[dict[str, Any]]
) -> None:
    bots = make_bots(engine, 3)
    tournament = make_tournament(engine, bots, games_total=6)
    assert tournament.id is not None
    store(engine, tournament, 0, bots, records[0])
    store(engine, tournament, 2, bots, records[2])
    before = (
        _current(engine, tournament),
        _snapshots(engine, tournament),
        _count(engine, Game),
        _count(engine, GameSeat),
    )
    for index in (0, 2):
        with pytest.raises(
            GameAlreadyStored, match=f"^game {index} of tournament .* already stored"
        ):
            store(engine, tournament, index, bots[::-1], records[5])
    after = (
        _current(engine, tournament),
        _snapshots(engine, tournament),
        _count(engine, Game),
        _count(engine, GameSeat),
    )
    assert after == before
    assert [r for _, r in tournament_records(engine, tournament.id)] == [records[0], records[2]]


def test_board_mode_rates_each_whole_board_once(
    engine: Engine, records: list[dict[str, Any]]
) -> None:
    bots = make_bots(engine, 3)
    # 15 games: two boards of 6 and a last, short board of 3.
    tournament = make_tournament(engine, bots, games_total=15, rating_mode="board")
    # Records 12..20 for games 6..14: their second board has a clear best total.
    seeds = [*range(6), *range(12, 21)]
    games = [(seating(bots, i), records[seeds[i]]) for i in range(15)]
    # In the second board, the bot with the best total faults once (in game 8): it must
    # rank last for that board all the same.
    totals = dict.fromkeys(bots, 0)
    for seats, record in games[6:12]:
        for seat, bot in enumerate(seats):
            totals[bot] += record["result"]["scores"][seat]
    faulter = max(bots, key=lambda b: totals[b])
    assert sorted(totals.values())[1] < totals[faulter]  # a clear best: the fault matters
    games[8] = (games[8][0], make_record(seeds[8], faults=[fault(seat=games[8][0].index(faulter))]))
    boards = [games[0:6], games[6:12], games[12:15]]

    for index in [7, 6, 9, 10, 11]:  # the second board, all but game 8
        store(engine, tournament, index, *games[index])
    for index in range(5):  # the first board, all but game 5
        store(engine, tournament, index, *games[index])
    assert _snapshots(engine, tournament) == []
    store(engine, tournament, 8, *games[8])
    assert _snapshots(engine, tournament) == []  # board 2 is complete, board 1 is not

    store(engine, tournament, 5, *games[5])  # completes board 1: both boards rated
    snapshots = _snapshots(engine, tournament)
    assert sorted((s[0], s[1]) for s in snapshots) == sorted(
        (end, bot) for end in (5, 11) for bot in bots
    )
    assert all(s[4] == 6 for s in snapshots if s[0] == 5)
    reference = reference_board_ratings(boards[:2])
    for bot, (mu, sigma, played, through) in _current(engine, tournament).items():
        assert (mu, sigma) == pytest.approx((reference[bot].mu, reference[bot].sigma), rel=1e-12)
        assert (played, through) == (12, 11)

    board_one = {s[1]: s[2] for s in snapshots if s[0] == 5}
    board_two = {s[1]: s[2] for s in snapshots if s[0] == 11}
    assert board_two[faulter] < board_one[faulter]  # ranked last despite the best total

    for index in (12, 13, 14):
        store(engine, tournament, index, *games[index])
    assert {s[0] for s in _snapshots(engine, tournament)} == {5, 11, 14}
    reference = reference_board_ratings(boards)
    for bot, (mu, sigma, played, through) in _current(engine, tournament).items():
        assert (mu, sigma) == pytest.approx((reference[bot].mu, reference[bot].sigma), rel=1e-12)
        assert (played, through) == (15, 14)


def test_recompute_gives_identical_ratings_and_snapshots(
    engine: Engine, records: list[dict[str, Any]]
) -> None:
    bots = make_bots(engine, 4)
    tournament = make_tournament(engine, bots, games_total=12)
    assert tournament.id is not None
    for index in [3, 1, 0, 2, 11, 5, 4, 7, 6, 8]:  # 9 and 10 missing: 11 waits
        store(engine, tournament, index, seating(bots, index), records[index])
    snapshots, current = _snapshots(engine, tournament), _current(engine, tournament)
    assert max(s[0] for s in snapshots) == 8

    recompute_ratings(engine, tournament.id)
    assert _snapshots(engine, tournament) == snapshots
    assert _current(engine, tournament) == current

    # It really recomputes: another model gives other numbers, the default ones come back.
    recompute_ratings(engine, tournament.id, RatingModel(beta=10.0))
    assert _current(engine, tournament) != current
    recompute_ratings(engine, tournament.id)
    assert _current(engine, tournament) == current
    assert _count(engine, RatingSnapshot) == len(snapshots)


@pytest.mark.parametrize("fail_on_call", [1, 2])
def test_a_failing_rating_update_stores_nothing(
    engine: Engine,
    records: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    fail_on_call: int,
) -> None:
    bots = make_bots(engine, 3)
    tournament = make_tournament(engine, bots, games_total=6)
    assert tournament.id is not None
    store(engine, tournament, 1, bots, records[1])  # stored, waits for game 0
    before = (_current(engine, tournament), _snapshots(engine, tournament))
    assert before == ({}, [])

    real_rate = trueskill_model.DEFAULT_MODEL.rate
    calls = []

    def rate(*args: Any) -> list[trueskill_model.Rating]:
        calls.append(args)
        if len(calls) == fail_on_call:
            raise RuntimeError("rating exploded")
        return real_rate(*args)

    # Storing game 0 rates games 0 and 1: fail on the first update, or on the second,
    # after game 0's snapshots and rating rows were already written in the transaction.
    monkeypatch.setattr(trueskill_model.DEFAULT_MODEL, "rate", rate)
    with pytest.raises(RuntimeError, match="rating exploded"):
        store(engine, tournament, 0, bots, records[0])
    assert len(calls) == fail_on_call
    assert stored_indexes(engine, tournament.id) == {1}
    assert (_current(engine, tournament), _snapshots(engine, tournament)) == before
    assert _count(engine, Game) == 1
    assert _count(engine, GameSeat) == 3

    monkeypatch.undo()
    store(engine, tournament, 0, bots, records[0])
    assert {s[0] for s in _snapshots(engine, tournament)} == {0, 1}


def test_records_round_trip_and_seat_rows(engine: Engine, records: list[dict[str, Any]]) -> None:
    bots = make_bots(engine, 3)
    tournament = make_tournament(engine, bots, games_total=6)
    assert tournament.id is not None
    record = make_record(3, faults=[fault(seat=0, hand=2), fault(seat=0, hand=3)])
    store(engine, tournament, 4, bots, record)
    store(engine, tournament, 1, bots, records[1])
    assert [i for i, _ in tournament_records(engine, tournament.id)] == [1, 4]
    ids = tournament_game_ids(engine, tournament.id)
    assert [game_record(engine, i) for i in ids] == [records[1], record]

    with Session(engine) as session:
        game = session.exec(select(Game).where(Game.schedule_index == 4)).one()
        seats = session.exec(
            select(GameSeat).where(GameSeat.game_id == game.id).order_by(GameSeat.seat)  # type: ignore[arg-type]
        ).all()
    assert game.id is not None
    assert game_record(engine, game.id) == record
    result = record["result"]
    assert json.loads(game.seats) == bots
    assert json.loads(game.scores) == result["scores"]
    assert json.loads(game.winners) == result["winners"]
    assert (game.reason, game.hands_played, game.fault_count) == (
        result["reason"],
        result["hands_played"],
        2,
    )
    assert [s.faulted for s in seats] == [True, False, False]
    assert seats[0].rank == 2  # faulted: below both others
    assert [s.score for s in seats] == result["scores"]
    assert [s.won for s in seats] == [i in result["winners"] for i in range(3)]
    for seat in seats:
        for contract in (9, 5, 2):
            hands = [h for h in record["hands"] if h["contracts"][seat.seat] == contract]
            made = [h for h in hands if h["tricks_won"][seat.seat] >= contract]
            assert getattr(seat, f"hands_{contract}") == len(hands)
            assert getattr(seat, f"made_{contract}") == len(made)
    assert sum(s.hands_9 + s.hands_5 + s.hands_2 for s in seats) == 3 * result["hands_played"]

    with pytest.raises(StorageError, match="no game with id 999"):
        game_record(engine, 999)


@pytest.mark.parametrize(
    ("index", "seats", "record", "message"),
    [
        (6, None, None, r"outside the schedule 0\.\.5"),
        (0, "repeat", None, "3 distinct bot versions"),
        (0, "stranger", None, "is not an entrant"),
        (0, None, {"result": None}, "no result"),
        (0, None, {"result": {"scores": [1, 2], "winners": [0]}}, "3 integer scores"),
        (0, None, {"timings": {1, 2}}, "is not JSON"),
    ],
)
def test_bad_games_are_refused(
    engine: Engine,
    records: list[dict[str, Any]],
    index: int,
    seats: str | None,
    record: dict[str, Any] | None,
    message: str,
) -> None:
    bots = make_bots(engine, 4)
    tournament = make_tournament(engine, bots[:3], games_total=6)
    chosen = {"repeat": [bots[0], bots[0], bots[1]], "stranger": bots[1:]}.get(
        seats or "", bots[:3]
    )
    with pytest.raises(StorageError, match=message):
        store(engine, tournament, index, chosen, {**records[0], **(record or {})})
    assert _count(engine, Game) == 0


def test_unknown_tournament_is_refused(engine: Engine, records: list[dict[str, Any]]) -> None:
    with pytest.raises(StorageError, match="no tournament with id 42"):
        record_game(
            engine,
            42,
            schedule_index=0,
            table_index=0,
            board_index=0,
            seating_index=0,
            seed=1,
            seats=[1, 2, 3],
            record=records[0],
        )


def test_parallel_writers_end_with_the_in_order_ratings(
    engine: Engine, records: list[dict[str, Any]]
) -> None:
    bots = make_bots(engine, 4)
    games = [(seating(bots, i), records[i]) for i in range(16)]
    tournament = make_tournament(engine, bots, games_total=16)
    errors: list[BaseException] = []

    def worker(indexes: list[int]) -> None:
        try:
            for index in indexes:
                store(engine, tournament, index, *games[index])
        except BaseException as exc:  # reported below; a thread cannot raise into the test
            errors.append(exc)

    # Four workers, each with a share of the schedule in reverse order: lots of gaps.
    threads = [
        threading.Thread(target=worker, args=(list(range(16))[w::4][::-1],)) for w in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    reference = reference_game_ratings(games)
    current = _current(engine, tournament)
    for bot, rating in reference.items():
        assert current[bot][:2] == pytest.approx((rating.mu, rating.sigma), rel=1e-12)
        assert current[bot][3] == max(i for i, (seats, _) in enumerate(games) if bot in seats)
    assert len(_snapshots(engine, tournament)) == 16 * 3


def test_games_in_range_counts_one_tournaments_stored_indexes_half_open(
    engine: Engine, records: list[dict[str, Any]]
) -> None:
    bots = make_bots(engine, 3)
    first = make_tournament(engine, bots, games_total=12)
    other = make_tournament(engine, bots, games_total=12, name="t2")
    assert first.id is not None and other.id is not None
    for index in (0, 2, 5, 6):
        store(engine, first, index, bots, records[index])
    store(engine, other, 3, bots, records[3])  # another tournament's game is not counted
    assert games_in_range(engine, first.id, 0, 6) == 3
    assert games_in_range(engine, first.id, 6, 12) == 1
    assert games_in_range(engine, first.id, 2, 5) == 1  # stop is excluded, start is not
    assert games_in_range(engine, first.id, 3, 5) == 0
    assert games_in_range(engine, other.id, 0, 6) == 1
