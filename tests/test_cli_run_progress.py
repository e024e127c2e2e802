"""``arena tournament run`` without a terminal prints plain progress lines (issue 34, item 6).

A Rich progress bar draws nothing into a log: ``run --follow > run.log`` used to leave a
0-byte log after 9 minutes. Where standard output is not a terminal the run now prints
plain lines there, rate-limited (a line at the start, then every minute or every tenth of
the schedule, a line per version that enters a ladder, and one at the end). The clock is
injected here: what is tested is which lines are due, not how fast anything runs.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from arena import storage
from arena.cli import main
from arena.cli.run_progress import PlainLines, RunDisplay
from arena.storage.database import open_database
from arena.tournament.ladder import LadderProgress
from arena.tournament.runner import RunProgress
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[1]


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _state(done: int, total: int = 100) -> RunProgress:
    return RunProgress(done=done, total=total, played_now=done, seconds=float(done or 1))


def test_plain_lines_come_at_the_start_every_tenth_and_every_minute() -> None:
    out, clock = io.StringIO(), Clock()
    lines = PlainLines("cup", out, clock=clock)
    lines.update(_state(0))  # the first: always
    for done in range(1, 10):
        lines.update(_state(done))  # less than a tenth of 100 games, within a minute
    assert out.getvalue().splitlines() == ["cup: 0/100 games (0%), 0.00 games/s, 0:00:00 elapsed"]
    lines.update(_state(10))  # a tenth of the schedule since the last line
    clock.now += 61
    lines.update(_state(11))  # a minute since the last line
    lines.update(_state(12))  # neither: quiet
    lines.close(failed=False)
    assert out.getvalue().splitlines() == [
        "cup: 0/100 games (0%), 0.00 games/s, 0:00:00 elapsed",
        "cup: 10/100 games (10%), 1.00 games/s, 0:00:00 elapsed",
        "cup: 11/100 games (11%), 1.00 games/s, 0:01:01 elapsed",
        "cup: 12/100 games (12%), 1.00 games/s, 0:01:01 elapsed (done)",
    ]


def test_a_ladder_says_which_versions_entered_and_that_the_old_ones_retired() -> None:
    out, clock = io.StringIO(), Clock()
    lines = PlainLines("lad", out, clock=clock)
    state = LadderProgress(done=6, budget=0, matches=1, played_now=6, seconds=6.0)
    lines.update(state)
    state.entered.append("bot@2")
    lines.update(state)
    lines.update(state)  # said once only
    text = out.getvalue().splitlines()
    assert text == [
        "lad: 6 games, 1 matches, 1.00 games/s, 0:00:00 elapsed",
        "lad: entered bot@2 into the ladder; its bot's older version is retired (its games "
        "and ratings stay)",
    ]


def test_a_run_that_fails_ends_with_stopped() -> None:
    out = io.StringIO()
    lines = PlainLines("cup", out, clock=Clock())
    lines.update(_state(3, 6))
    lines.close(failed=True)
    assert out.getvalue().splitlines()[-1].endswith("(stopped)")


def test_plain_lines_where_stdout_is_no_terminal_and_none_on_a_terminal() -> None:
    piped = io.StringIO()
    with RunDisplay("cup", "tournament", stdout=piped, stderr=Terminal()) as display:
        display.update(_state(1, 6))
    assert piped.getvalue().startswith("cup: 1/6 games")
    # Control: on a terminal (both streams) the bar alone shows progress; stdout stays clean.
    terminal = Terminal()
    with RunDisplay("cup", "tournament", stdout=terminal, stderr=Terminal()) as display:
        display.update(_state(1, 6))
    assert "games" not in terminal.getvalue()


def test_a_piped_tournament_run_prints_plain_progress_lines(tmp_path: Path) -> None:
    """The real command, with its standard output a pipe, as in ``run > run.log``."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    common = ["--db", url, "--data", str(tmp_path / "data")]
    for bot in ("random_bot", "greedy_bot", "heuristic_bot"):
        assert main(["bot", "submit", str(ROOT / "sample_bots" / bot), *common]) == 0
    assert main(["tournament", "create", "cup", "--boards", "1", "--seed", "3",
                 "--bots", "random_bot,greedy_bot,heuristic_bot", *common]) == 0  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", "run", "cup", "--parallel", "2",
         *common],
        capture_output=True, text=True, cwd=ROOT, check=False, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    progress = [line for line in run.stdout.splitlines() if line.startswith("cup: ")]
    assert progress[0].startswith("cup: 0/6 games (0%)")
    assert progress[-1].startswith("cup: 6/6 games (100%)") and progress[-1].endswith("(done)")
    assert len(progress) >= 3  # every tenth of 6 games: a line per game
    assert "Standings: cup" in run.stdout
    engine = open_database(url)
    assert storage.get_tournament(engine, "cup").status == "finished"
