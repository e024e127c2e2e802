"""The engine's records, re-checked by an independent implementation of docs/rules.md.

``tests/oracle/rules_oracle.py`` was written from docs/rules.md and docs/record-format.md alone, without
reading ``arena/game``, and uses other algorithms (card-by-card returns, its own end
check). Any difference between the two is a bug in one of them.
"""

from __future__ import annotations

import json

import pytest

from arena.game import PRESETS
from arena.game.record import game_record
from arena.simulate import make_policies, play_game
from tests.oracle.rules_oracle import check_record
from tests.presets import every_preset

GAMES_PER_PRESET = 400
LINEUPS = (("random", "random", "random"), ("greedy", "random", "greedy"))


@pytest.mark.slow
@pytest.mark.parametrize("preset", every_preset())
def test_oracle_finds_no_difference(preset: str) -> None:
    rules = PRESETS[preset]
    checked_hands = 0
    for seed in range(GAMES_PER_PRESET):
        lineup = LINEUPS[seed % len(LINEUPS)]
        state = play_game(rules, seed, make_policies(lineup, seed))
        record = json.loads(json.dumps(game_record(state, list(lineup))))
        problems = check_record(record)
        assert problems == [], f"{preset} seed {seed}: {problems[:3]}"
        checked_hands += len(record["hands"])
    assert checked_hands >= GAMES_PER_PRESET * 2


def test_oracle_sees_a_planted_error() -> None:
    """The agreement test can fail: a record with one wrong trick winner is caught."""
    state = play_game(PRESETS["classic"], 7, make_policies(["random"] * 3, 7))
    record = json.loads(json.dumps(game_record(state, ["random"] * 3)))
    trick = record["hands"][0]["tricks"][3]
    trick["winner"] = (trick["winner"] + 1) % 3
    assert any("hand 1" in p and "trick 4" in p for p in check_record(record))
