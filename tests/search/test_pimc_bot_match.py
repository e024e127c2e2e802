"""sample_bots/pimc_bot as a real process: a match through the referee with no faults."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.game import PRESETS
from arena.referee.manifest import load_manifest
from arena.referee.match import MatchConfig, play_match
from arena.referee.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parents[2]
BOTS = [ROOT / "sample_bots" / name for name in ("pimc_bot", "heuristic_bot", "greedy_bot")]


def test_pimc_bot_plays_under_the_default_time_control() -> None:
    """What ``arena match sample_bots/pimc_bot sample_bots/heuristic_bot
    sample_bots/greedy_bot`` plays, cut to one hand (the CLI plays whole games only)."""
    rules = PRESETS["classic"].replace(max_hands=1)
    control = TimeControl()
    seats = [load_manifest(path) for path in BOTS]
    result = asyncio.run(play_match(seats, MatchConfig(rules, 1, 7, time_control=control)))
    (record,) = result.records
    assert record["faults"] == []
    assert record["players"] == ["pimc_bot@1.0.1", "heuristic_bot@1.1.0", "greedy_bot@1.0.0"]
    assert record["result"]["hands_played"] == 1
    assert len(result.stats[0].decision_ms) >= 16  # its plays, each timed by the referee
