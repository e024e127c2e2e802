"""Standings after faults (issue 34, item 8), on SQLite and PostgreSQL.

A faulted game counts the faulting bot last for its rating, whatever the autopilot then
scored for it; the wins and score per game that the tables show leave faulted games out,
so a bot that crashes at its first decision in every game is credited no win from the
autopilot's play. The JSON keeps its earlier fields as they were (``wins`` and
``mean_score`` over every game) and adds ``clean_*`` and ``fault_rule``.

Records are real games of the built-in policies; the crasher's seat carries a fault at
its first decision (hand 1), as the referee writes it. The control is in the data: the
crasher's seat did win some of these games (``wins`` counts them), and another bot's
clean games keep their wins and scores.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Engine

from arena.cli import main
from arena.storage import standings
from arena.storage.standings import FAULT_RULE, standings_json
from tests.storage.helpers import fault, make_bots, make_record, make_tournament, store

GAMES = 6


def _crash_games(crasher: int, others: tuple[int, int]) -> list[tuple[list[int], dict[str, Any]]]:
    """Six games: the crasher in seat 0, 1, 2 in turn, faulting at its first decision; seeds
    chosen so that its seat (played by the autopilot) wins some of them."""
    games: list[tuple[list[int], dict[str, Any]]] = []
    seed = 0
    while len(games) < GAMES:
        seat = len(games) % 3
        seats = list(others)
        seats.insert(seat, crasher)
        plain = make_record(seed)
        # The first three games: seeds whose crasher seat is a winner (the autopilot's win).
        if len(games) >= 3 or seat in plain["result"]["winners"]:
            games.append((seats, make_record(seed, faults=[fault(seat=seat, hand=1)])))
        seed += 1
    return games


@pytest.fixture
def crashed(engine: Engine) -> tuple[int, list[int], list[tuple[list[int], dict[str, Any]]]]:
    """Tournament t1: bots 0 and 1 play clean, bot 2 crashes in all six games."""
    clean_a, clean_b, crasher = make_bots(engine, 3)
    games = _crash_games(crasher, (clean_a, clean_b))
    tournament = make_tournament(engine, [clean_a, clean_b, crasher], games_total=GAMES)
    for index, (seats, record) in enumerate(games):
        store(engine, tournament, index, seats, record)
    assert tournament.id is not None
    return tournament.id, [clean_a, clean_b, crasher], games


def test_a_bot_that_crashes_every_game_is_credited_no_win_and_ranks_last(
    engine: Engine, crashed: tuple[int, list[int], list[tuple[list[int], dict[str, Any]]]]
) -> None:
    tournament_id, (clean_a, clean_b, crasher), games = crashed
    rows = {row.bot_version_id: row for row in standings(engine, tournament_id)}
    row = rows[crasher]
    assert (row.games, row.faults, row.clean_games) == (GAMES, GAMES, 0)
    assert row.clean_wins == 0 and row.clean_mean_score is None
    # Control: the autopilot did win in its seat; the all-games field still says so.
    assert row.wins >= 3
    assert row.rank == 3  # every game counted it last

    for bot in (clean_a, clean_b):
        clean = rows[bot]
        played = [(seats, r) for seats, r in games if bot in seats]
        wins = sum(seats.index(bot) in r["result"]["winners"] for seats, r in played)
        scores = [r["result"]["scores"][seats.index(bot)] for seats, r in played]
        assert (clean.faults, clean.clean_games) == (0, GAMES)
        assert clean.clean_wins == clean.wins == wins
        assert clean.clean_mean_score == pytest.approx(sum(scores) / len(scores))


def test_a_bot_that_faults_in_some_games_is_counted_on_the_others(engine: Engine) -> None:
    a, b, c = make_bots(engine, 3)
    games = [
        ([a, b, c], make_record(0)),
        ([b, c, a], make_record(1, faults=[fault(seat=2, hand=3)])),
        ([c, a, b], make_record(2)),
    ]
    tournament = make_tournament(engine, [a, b, c], games_total=3)
    for index, (seats, record) in enumerate(games):
        store(engine, tournament, index, seats, record)
    assert tournament.id is not None
    row = next(r for r in standings(engine, tournament.id) if r.bot_version_id == a)
    clean = [(seats, r) for seats, r in games if not r["faults"]]
    scores = [r["result"]["scores"][seats.index(a)] for seats, r in clean]
    wins = sum(seats.index(a) in r["result"]["winners"] for seats, r in clean)
    assert (row.games, row.faults, row.clean_games) == (3, 1, 2)
    assert row.clean_wins == wins
    assert row.clean_mean_score == pytest.approx(sum(scores) / 2)
    every = [r["result"]["scores"][seats.index(a)] for seats, r in games]
    assert row.mean_score == pytest.approx(sum(every) / 3)  # the JSON's field, unchanged


def test_the_json_keeps_its_fields_and_adds_the_clean_ones_and_the_rule(
    engine: Engine, crashed: tuple[int, list[int], list[tuple[list[int], dict[str, Any]]]]
) -> None:
    tournament_id, (_, _, crasher), _ = crashed
    answer = standings_json("t1", standings(engine, tournament_id))
    assert answer["fault_rule"] == FAULT_RULE
    assert answer["retired_hidden"] == 0
    rows = answer["standings"]
    assert isinstance(rows, list)
    row = next(r for r in rows if r["bot_version_id"] == crasher)
    earlier = {"rank", "bot", "version", "label", "owner", "left", "bot_version_id", "mu",
               "sigma", "conservative", "p_above_next", "rank_low", "rank_high", "games",
               "wins", "mean_score", "made_9", "made_5", "made_2", "faults"}  # fmt: skip
    assert earlier <= set(row)
    assert row["wins"] >= 3 and row["faults"] == GAMES
    assert (row["clean_games"], row["clean_wins"], row["clean_mean_score"]) == (0, 0, None)


def test_the_cli_table_shows_the_rule_and_credits_no_fallback_win(
    engine: Engine,
    database_url: str,
    crashed: tuple[int, list[int], list[tuple[list[int], dict[str, Any]]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    del engine
    assert main(["standings", "t1", "--db", database_url]) == 0
    out = capsys.readouterr().out
    assert "faulted games count as last place" in out
    header = next(line for line in out.splitlines() if "rank 95%" in line)
    cells = [c.strip() for c in header.split("┃")[1:-1]]
    crasher_line = next(line for line in out.splitlines() if "bot2@1" in line)
    values = dict(zip(cells, [c.strip() for c in crasher_line.split("│")[1:-1]], strict=True))
    assert (values["games"], values["faults"], values["wins"]) == ("6", "6", "0")
    assert values["score/game"] == "-" and values["rank"] == "3"
    # Control: the JSON of the same table still counts the autopilot's wins in "wins".
    assert main(["standings", "t1", "--json", "--db", database_url]) == 0
    rows = json.loads(capsys.readouterr().out)["standings"]
    assert next(r for r in rows if r["label"] == "bot2@1")["wins"] >= 3
