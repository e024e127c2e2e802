"""Logs per game for a bot that does not use the SDK.

A bot written in another language never writes the SDK's output mark, so the referee cuts
its log once its output has gone quiet for ``MatchConfig.log_quiet_ms`` after the GameEnd.
The zoo's ``unmarked`` bot talks raw gRPC and prints ``END <game_id>`` 30 ms after each
GameEnd: with a quiet time longer than that, each END line is in its own game's record;
the control, a quiet time of zero, cuts before the line and finds it in the next game.
The quiet time here is longer than the default (25 ms) so a loaded test machine cannot
stretch the bot's 30 ms past it; the default is a trade-off the tests do not pin.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arena.game.rules import PRESETS
from arena.referee.match import MatchConfig
from arena.referee.timecontrol import TimeControl
from tests.referee.zoo_support import end_lines

UNMARKED = Path(__file__).resolve().parent / "zoo" / "unmarked"
CONTROL = TimeControl.parse("decision=30000,bank=120000,grace=500,startup=30000")


def _ends(quiet_ms: int) -> list[tuple[str, list[list[str]]]]:
    """Per game of a 3-game match of unmarked bots: its id and each seat's END lines."""
    config = replace(MatchConfig(PRESETS["classic"], 3, 5, CONTROL), log_quiet_ms=quiet_ms)
    return end_lines(UNMARKED, config)


def test_an_unmarked_bots_output_after_its_game_is_charged_to_that_game() -> None:
    for game_id, ends in _ends(quiet_ms=200):
        assert ends == [[game_id]] * 3


def test_control_no_quiet_time_gives_it_to_the_next_game() -> None:
    games = _ends(quiet_ms=0)
    assert any(ends != [[game_id]] * 3 for game_id, ends in games)
    assert any(games[0][0] in seat for seat in games[1][1])
