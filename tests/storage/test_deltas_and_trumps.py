"""The statistics' mean deltas per contract and trump calls per dealer (issue 35), kept per
seat and per bot as games are stored, on SQLite and PostgreSQL.

After games with faults in two tournaments: each ``game_seat`` row's ``delta_*`` and
``trump_*`` equal what a reference computes from the game's record; ``bot_tally`` equals
their sums recomputed from the seats and from the records; migration 0017 fills them for
games stored before it (skipping, not failing on, a malformed hand); and
``record_stats`` (which now reads ``bot_tally``) equals what the old record-parsing
``record_stats`` computed on the same games (its code kept below as the reference). A
scored hand without a known trump, a dealer or deltas is refused when stored.

Controls: each comparison is shown to fail on a tally one off, on a missing tally row and
on a seat one off.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, func, inspect, select, text
from sqlmodel import col

from arena import storage
from arena.storage import StorageError
from arena.storage.bots import version_labels
from arena.storage.database import MIGRATIONS_DIR, migrate
from arena.storage.models import TRUMPS, BotTally, Game, GameSeat
from arena.storage.seat_facts import DELTA_COLUMNS, TRUMP_COLUMNS
from arena.storage.tallies import sums_from_seats
from tests.storage.helpers import (
    make_bots,
    make_record,
    make_tournament,
    store,
    store_two_tournaments,
)

COLUMNS = (*DELTA_COLUMNS, *TRUMP_COLUMNS)
Key = tuple[int, int]


# ------------------------------------------------------------------------- references


def _reference_seats(seats: list[int], record: dict[str, Any]) -> dict[int, tuple[int, ...]]:
    """Per bot of one game: its deltas per contract (9, 5, 2) and its trump calls as dealer
    (S, H, D, C, NT), read from the record by hand."""
    out = {bot: [0] * len(COLUMNS) for bot in seats}
    for hand in record["hands"]:
        if hand["deltas"] is None:
            continue
        for seat, bot in enumerate(seats):
            out[bot][(9, 5, 2).index(hand["contracts"][seat])] += hand["deltas"][seat]
        out[seats[hand["dealer"]]][3 + TRUMPS.index(hand["trump"])] += 1
    return {bot: tuple(values) for bot, values in out.items()}


def _old_record_stats(
    games: list[tuple[list[int], dict[str, Any]]], labels: dict[int, str]
) -> tuple[Any, Any]:
    """``(deltas, trumps)`` as ``record_stats`` computed them from the records before the
    tallies (its loop, over every game instead of the latest 2,000)."""
    delta_sum: dict[tuple[int, int], int] = {}
    delta_hands: dict[tuple[int, int], int] = {}
    trumps: dict[tuple[int, str], int] = {}
    for seats, record in games:
        for hand in record.get("hands") or []:
            deltas = hand.get("deltas")
            if deltas is None:
                continue
            for seat in range(3):
                key = (seats[seat], hand["contracts"][seat])
                delta_sum[key] = delta_sum.get(key, 0) + deltas[seat]
                delta_hands[key] = delta_hands.get(key, 0) + 1
            dealer_key = (seats[hand["dealer"]], str(hand.get("trump")))
            trumps[dealer_key] = trumps.get(dealer_key, 0) + 1
    return (
        tuple(
            sorted(
                (labels[bot], contract, hands, delta_sum[(bot, contract)] / hands)
                for (bot, contract), hands in delta_hands.items()
            )
        ),
        tuple(sorted((labels[bot], trump, n) for (bot, trump), n in trumps.items())),
    )


# ---------------------------------------------------------------------- what is stored


def _games(engine: Engine, tournament_id: int | None = None) -> list[tuple[int, int, Any, Any]]:
    """``(game id, tournament, seats, record)`` of the stored games, parsed."""
    statement = select(col(Game.id), col(Game.tournament_id), col(Game.seats), col(Game.record))
    if tournament_id is not None:
        statement = statement.where(col(Game.tournament_id) == tournament_id)
    with engine.connect() as connection:
        rows = connection.execute(statement.order_by(col(Game.id))).all()
    return [(g, t, json.loads(s), json.loads(r)) for g, t, s, r in rows]


def _seats(engine: Engine) -> dict[tuple[int, int], tuple[int, ...]]:
    """``game_seat``'s new columns: (game, bot) -> values."""
    columns = [getattr(GameSeat, name) for name in COLUMNS]
    with engine.connect() as connection:
        rows = connection.execute(
            select(col(GameSeat.game_id), col(GameSeat.bot_version_id), *columns)
        ).all()
    return {(row[0], row[1]): tuple(int(v) for v in row[2:]) for row in rows}


def _seats_from_records(engine: Engine) -> dict[tuple[int, int], tuple[int, ...]]:
    return {
        (game_id, bot): values
        for game_id, _, seats, record in _games(engine)
        for bot, values in _reference_seats(seats, record).items()
    }


def _tallies(engine: Engine) -> dict[Key, tuple[int, ...]]:
    """``bot_tally``'s new columns: (tournament, bot) -> sums."""
    columns = [getattr(BotTally, name) for name in COLUMNS]
    with engine.connect() as connection:
        rows = connection.execute(
            select(col(BotTally.tournament_id), col(BotTally.bot_version_id), *columns)
        ).all()
    return {(row[0], row[1]): tuple(int(v) for v in row[2:]) for row in rows}


def _tallies_from_seats(engine: Engine) -> dict[Key, tuple[int, ...]]:
    first = 2 + 12  # after the key and the twelve sums before these
    with engine.connect() as connection:
        rows = connection.execute(sums_from_seats()).all()
    return {
        (row[0], row[1]): tuple(int(v) for v in row[first : first + len(COLUMNS)]) for row in rows
    }


def _tallies_from_records(engine: Engine) -> dict[Key, tuple[int, ...]]:
    sums: dict[Key, list[int]] = defaultdict(lambda: [0] * len(COLUMNS))
    for _, tournament_id, seats, record in _games(engine):
        for bot, values in _reference_seats(seats, record).items():
            total = sums[(tournament_id, bot)]
            total[:] = [a + b for a, b in zip(total, values, strict=True)]
    return {key: tuple(values) for key, values in sums.items()}


def _statistics_and_reference(engine: Engine, tournament_id: int) -> tuple[Any, Any]:
    stats = storage.record_stats(engine, tournament_id)
    labels = version_labels(engine)
    games = [(seats, record) for _, _, seats, record in _games(engine, tournament_id)]
    return (stats.deltas, stats.trumps), _old_record_stats(games, labels)


# ------------------------------------------------------------------------------ tests


def test_seats_and_tallies_equal_the_sums_from_the_records(engine: Engine) -> None:
    store_two_tournaments(engine)
    seats = _seats(engine)
    assert len(seats) == 18 * 3
    assert seats == _seats_from_records(engine)
    tallies = _tallies(engine)
    assert len(tallies) == 8  # 4 bots in each tournament
    assert tallies == _tallies_from_seats(engine) == _tallies_from_records(engine)
    # The data: every trump call and some negative and positive delta sums occur.
    assert all(any(v[3 + i] for v in tallies.values()) for i in range(len(TRUMPS)))
    assert any(v[0] < 0 for v in tallies.values()) and any(v[2] > 0 for v in tallies.values())


def test_record_stats_equals_the_old_record_parsing(engine: Engine) -> None:
    for tournament_id in store_two_tournaments(engine):
        kept, reference = _statistics_and_reference(engine, tournament_id)
        assert kept == reference
        assert len(kept[0]) == 4 * 3 and kept[1]  # every bot in every contract
        with engine.connect() as connection:
            stored = connection.execute(
                select(func.count()).where(col(Game.tournament_id) == tournament_id)
            ).scalar_one()
        assert storage.record_stats(engine, tournament_id).games == stored
    assert storage.record_stats(engine, 999) == storage.RecordStats(0, (), ())


def test_control_each_comparison_sees_a_tally_or_seat_one_off_or_a_missing_row(
    engine: Engine,
) -> None:
    ids = store_two_tournaments(engine)
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE bot_tally SET delta_5 = delta_5 + 1 WHERE tournament_id = :t"),
            {"t": ids[0]},
        )
    kept, reference = _statistics_and_reference(engine, ids[0])
    assert kept[0] != reference[0] and kept[1] == reference[1]
    assert _tallies(engine) != _tallies_from_seats(engine)
    assert _tallies(engine) != _tallies_from_records(engine)
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE bot_tally SET delta_5 = delta_5 - 1 WHERE tournament_id = :t"),
            {"t": ids[0]},
        )
        connection.execute(
            text("UPDATE bot_tally SET trump_nt = trump_nt + 1 WHERE tournament_id = :t"),
            {"t": ids[1]},
        )
    kept, reference = _statistics_and_reference(engine, ids[1])
    assert kept[1] != reference[1]
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE bot_tally SET trump_nt = trump_nt - 1 WHERE tournament_id = :t"),
            {"t": ids[1]},
        )
    kept, reference = _statistics_and_reference(engine, ids[1])
    assert kept == reference  # back in step: the checks are exact
    assert _tallies(engine) == _tallies_from_records(engine)
    with engine.begin() as connection:
        connection.execute(
            text("DELETE FROM bot_tally WHERE tournament_id = :t AND bot_version_id = :b"),
            {"t": ids[1], "b": min(b for t, b in _tallies(engine) if t == ids[1])},
        )
    kept, reference = _statistics_and_reference(engine, ids[1])
    assert kept != reference
    assert _tallies(engine) != _tallies_from_records(engine)
    with engine.begin() as connection:
        connection.execute(text("UPDATE game_seat SET trump_h = trump_h + 1 WHERE seat = 0"))
    assert _seats(engine) != _seats_from_records(engine)


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def test_migration_0017_fills_seats_and_tallies_of_games_stored_before_it(
    engine: Engine,
) -> None:
    ids = store_two_tournaments(engine)
    seats, tallies = _seats(engine), _tallies(engine)
    # A stored record whose first scored hand lost its trump (hand-edited, say): the
    # migration skips that call, and fails on nothing.
    game_id, _, seats_of_game, record = _games(engine, ids[1])[0]
    hand = next(h for h in record["hands"] if h["deltas"] is not None)
    trump_column = 3 + TRUMPS.index(hand["trump"])
    hand["trump"] = None
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE game SET record = :r WHERE id = :g"),
            {"r": json.dumps(record), "g": game_id},
        )
    config = _config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0016")
    assert not {"delta_9", "trump_nt"} & {
        c["name"] for c in inspect(engine).get_columns("game_seat")
    }
    migrate(engine)
    dealer = seats_of_game[hand["dealer"]]
    expected_seats = dict(seats)
    expected_seats[(game_id, dealer)] = tuple(
        v - (i == trump_column) for i, v in enumerate(seats[(game_id, dealer)])
    )
    assert _seats(engine) == expected_seats
    expected_tallies = dict(tallies)
    expected_tallies[(ids[1], dealer)] = tuple(
        v - (i == trump_column) for i, v in enumerate(tallies[(ids[1], dealer)])
    )
    assert _tallies(engine) == expected_tallies == _tallies_from_seats(engine)
    # Control: the first tournament's games, untouched, came back exactly as stored.
    assert {k: v for k, v in _tallies(engine).items() if k[0] == ids[0]} == {
        k: v for k, v in tallies.items() if k[0] == ids[0]
    }


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda hand: hand.update(trump="X"), "lacks its dealer or trump"),
        (lambda hand: hand.pop("trump"), "lacks its dealer or trump"),
        (lambda hand: hand.update(dealer=3), "lacks its dealer or trump"),
        (lambda hand: hand.update(dealer=True), "lacks its dealer or trump"),
        (lambda hand: hand.update(deltas=[1, 2]), "lacks contracts/tricks_won/deltas"),
        (lambda hand: hand.update(deltas=[1, "2", 3]), "lacks contracts/tricks_won/deltas"),
        (lambda hand: None, None),  # control: the record as played is stored
    ],
)
def test_a_scored_hand_without_trump_dealer_or_deltas_is_refused(
    engine: Engine, spoil: Any, message: str | None
) -> None:
    bots = make_bots(engine, 3)
    tournament = make_tournament(engine, bots, games_total=6)
    record = make_record(3)
    spoil(next(h for h in record["hands"] if h["deltas"] is not None))
    if message is None:
        store(engine, tournament, 0, bots, record)
        assert storage.game_count(engine, tournament.id or 0) == 1
        return
    with pytest.raises(StorageError, match=message):
        store(engine, tournament, 0, bots, record)
    with engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(Game)).scalar_one() == 0
        assert connection.execute(select(func.count()).select_from(BotTally)).scalar_one() == 0
