"""A bot's output is charged to the game in which it was written.

``memory_bot`` prints ``END <game_id>`` when its GameEnd arrives, after its last decision.
The referee cuts a game's log only once the SDK's mark after that GameEnd is in (and strips
the mark), so each game's record holds its own END line; the control, a cut that does not
wait (the old behaviour), finds a game's END line in the next game's record.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.game.rules import PRESETS
from arena.protocol.wire import OUTPUT_MARK
from arena.referee.match import MatchConfig
from arena.referee.process import LogCapture
from arena.referee.seat import SeatRunner
from arena.referee.timecontrol import TimeControl
from tests.referee.zoo_support import end_lines

MEMORY = Path(__file__).resolve().parents[1] / "tournament" / "memory_bot"
CONTROL = TimeControl.parse("decision=30000,bank=120000,grace=500,startup=30000")


def _ends() -> list[tuple[str, list[list[str]]]]:
    """Per game of a 3-game match of memory bots: its id and each seat's END lines."""
    return end_lines(MEMORY, MatchConfig(PRESETS["classic"], 3, 5, CONTROL))


def test_output_after_the_last_decision_is_charged_to_its_game() -> None:
    for game_id, ends in _ends():
        assert ends == [[game_id]] * 3


def test_control_a_cut_that_does_not_wait_gives_it_to_the_next_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def cut_at_once(runner: SeatRunner) -> dict[str, str | int] | None:
        return runner.logs.take_new() if runner.is_bot else None

    monkeypatch.setattr(SeatRunner, "game_logs", cut_at_once)
    games = _ends()
    misplaced = [(k, ends) for k, (game_id, ends) in enumerate(games) if ends != [[game_id]] * 3]
    assert misplaced, "every END line was in its own game even without waiting"
    assert any(games[0][0] in seat for seat in games[1][1])


def test_a_mark_split_over_two_reads_is_still_stripped_and_counted() -> None:
    logs = LogCapture()
    half = len(OUTPUT_MARK) // 2
    logs.add("stderr", b"summary\n" + OUTPUT_MARK[:half])
    logs.add("stderr", OUTPUT_MARK[half:] + b"next")
    logs.add("stdout", b"ends like a mark \x00ar")  # held back, then kept at the end
    logs.end_of_stream("stdout")
    assert logs.marks == {"stdout": 0, "stderr": 1}
    taken = logs.take_new()
    assert taken["stderr"] == "summary\nnext"
    assert taken["stdout"] == "ends like a mark \x00ar"
