"""Standings: every number checked against a small data set of real records."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine

from arena.ratings.trueskill_model import DEFAULT_MODEL
from arena.storage import standings
from tests.storage.helpers import (
    fault,
    make_bots,
    make_record,
    make_tournament,
    reference_game_ratings,
    store,
)


def _made(games: list[tuple[list[int], dict[str, Any]]], bot: int, contract: int) -> float | None:
    hands = made = 0
    for seats, record in games:
        if bot not in seats:
            continue
        seat = seats.index(bot)
        for hand in record["hands"]:
            if hand["contracts"][seat] == contract:
                hands += 1
                made += hand["tricks_won"][seat] >= contract
    return made / hands if hands else None


def test_standings_of_a_small_tournament(engine: Engine, records: list[dict[str, Any]]) -> None:
    a, b, c, d, idle = make_bots(engine, 5)
    # Four games among a, b, c, d; "idle" entered but never played. In game 2, b faults.
    games = [
        ([a, b, c], records[0]),
        ([b, c, d], records[1]),
        ([c, d, b], make_record(2, faults=[fault(seat=2, hand=1)])),
        ([d, a, b], records[3]),
    ]
    tournament = make_tournament(engine, [a, b, c, d, idle], games_total=4)
    for index, (seats, record) in enumerate(games):
        store(engine, tournament, index, seats, record)
    make_tournament(engine, [a, b, c], games_total=6, name="t2")
    assert tournament.id is not None

    rows = standings(engine, tournament.id)
    reference = reference_game_ratings(games)
    by_bot = {row.bot_version_id: row for row in rows}
    assert set(by_bot) == {a, b, c, d, idle}
    for bot in (a, b, c, d):
        row = by_bot[bot]
        played = [(seats, r) for seats, r in games if bot in seats]
        scores = [r["result"]["scores"][seats.index(bot)] for seats, r in played]
        assert row.bot == f"bot{[a, b, c, d].index(bot)}@1"
        assert (row.mu, row.sigma) == pytest.approx(
            (reference[bot].mu, reference[bot].sigma), rel=1e-12
        )
        assert row.conservative == pytest.approx(row.mu - 3 * row.sigma)
        assert row.games == len(played)
        assert row.wins == sum(seats.index(bot) in r["result"]["winners"] for seats, r in played)
        assert row.mean_score == pytest.approx(sum(scores) / len(scores))
        for contract in (9, 5, 2):
            assert getattr(row, f"made_{contract}") == _made(games, bot, contract)
        assert row.faults == (1 if bot == b else 0)

    prior = DEFAULT_MODEL.initial()
    assert (by_bot[idle].games, by_bot[idle].wins, by_bot[idle].mean_score) == (0, 0, 0.0)
    assert (by_bot[idle].mu, by_bot[idle].sigma) == (prior.mu, prior.sigma)
    assert (by_bot[idle].made_9, by_bot[idle].made_5, by_bot[idle].made_2) == (None, None, None)
    assert [row.rank for row in rows] == [1, 2, 3, 4, 5]
    conservative = [row.conservative for row in rows]
    assert conservative == sorted(conservative, reverse=True)

    # No tournament given: the most recent one, whose entrants have played nothing yet.
    latest = standings(engine)
    assert [row.games for row in latest] == [0, 0, 0]
    assert {row.bot_version_id for row in latest} == {a, b, c}


def test_standings_without_tournaments_are_empty(engine: Engine) -> None:
    assert standings(engine) == []
