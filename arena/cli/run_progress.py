"""What ``arena tournament run`` shows while it plays: a progress bar, plain lines, or both.

A progress bar needs a terminal. Run in the background with its output sent to a log
(``nohup arena tournament run ladder --follow > run.log &``), Rich drew nothing: a 0-byte
log after 9 minutes of play. So where standard output is not a terminal, the run prints
plain lines there instead, rate-limited so that a long ladder does not fill its log: one
when it starts, one every :data:`EVERY_SECONDS` seconds or every tenth of the schedule
(whichever comes first), one for every version that enters a ladder (retiring its older
one), and one when it ends. The bar is still drawn on standard error when that is a
terminal.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from types import TracebackType
from typing import Final, TextIO

from arena.cli.common import progress_bar
from arena.cli.terminal import safe_markup, safe_text
from arena.tournament.ladder import LadderProgress
from arena.tournament.runner import RunProgress

EVERY_SECONDS: Final = 60.0
"""Longest quiet time between two plain progress lines."""
STEPS: Final = 10
"""Plain lines per schedule at most, besides the time-based ones (every tenth of it)."""
OPEN_ENDED_STEP: Final = 120
"""Games between two plain lines when there is no schedule to divide (a ladder with no
budget): 20 matches."""


def rate_of(state: RunProgress | LadderProgress) -> str:
    """Games per second of this run (``0.00`` before the first game)."""
    return f"{state.played_now / state.seconds if state.seconds else 0.0:.2f} games/s"


def bar_of(state: RunProgress | LadderProgress) -> tuple[int | None, str]:
    """The progress bar's total (``None``: open-ended) and its rate column: a ladder
    counts to its budget, if it has one, and shows its matches."""
    if isinstance(state, LadderProgress):
        return state.budget or None, f"{state.matches} matches, {rate_of(state)}"
    return state.total, rate_of(state)


def plain_line(name: str, state: RunProgress | LadderProgress, elapsed: float) -> str:
    """One plain progress line: ``NAME: 12/48 games (25%), 3 matches, 1.50 games/s,
    0:00:08``."""
    total, _ = bar_of(state)
    games = f"{state.done}/{total} games ({100 * state.done // total}%)" if total else (
        f"{state.done} games"
    )  # fmt: skip
    matches = f", {state.matches} matches" if isinstance(state, LadderProgress) else ""
    clock = timedelta(seconds=int(elapsed))
    return f"{safe_text(name)}: {games}{matches}, {rate_of(state)}, {clock} elapsed"


@dataclass
class PlainLines:
    """Decides when the next plain line is due (rate-limited) and writes it."""

    name: str
    out: TextIO
    clock: Callable[[], float] = time.monotonic
    every_seconds: float = EVERY_SECONDS
    started: float = field(init=False)
    last_time: float | None = field(default=None, init=False)
    last_done: int = field(default=0, init=False)
    entered: int = field(default=0, init=False)
    final: RunProgress | LadderProgress | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def write(self, line: str) -> None:
        """One line, flushed at once (a log is read while the run goes on)."""
        self.out.write(line + "\n")
        self.out.flush()

    def update(self, state: RunProgress | LadderProgress) -> None:
        """A line if one is due: the first, then every :attr:`every_seconds` or every
        tenth of the schedule; and one for each version that entered a ladder."""
        self.final = state
        if isinstance(state, LadderProgress):
            for label in state.entered[self.entered :]:
                self.write(entered_line(self.name, label))
            self.entered = len(state.entered)
        now = self.clock()
        total, _ = bar_of(state)
        step = max(1, total // STEPS) if total else OPEN_ENDED_STEP
        due = (
            self.last_time is None
            or now - self.last_time >= self.every_seconds
            or state.done - self.last_done >= step
        )
        if due:
            self.write(plain_line(self.name, state, now - self.started))
            self.last_time, self.last_done = now, state.done

    def close(self, failed: bool) -> None:
        """The last line: where the run ended."""
        elapsed = self.clock() - self.started
        if self.final is None:
            self.write(f"{safe_text(self.name)}: {'stopped' if failed else 'ended'} before a game")
            return
        line = plain_line(self.name, self.final, elapsed)
        self.write(f"{line} ({'stopped' if failed else 'done'})")


def entered_line(name: str, label: str) -> str:
    """The line for a version that entered ladder *name* while it ran."""
    return (
        f"{safe_text(name)}: entered {safe_text(label)} into the ladder; its bot's older "
        "version is retired (its games and ratings stay)"
    )


class RunDisplay:
    """The bar (where standard error is a terminal) and the plain lines (where standard
    output is not), as one context manager whose :meth:`update` is the run's progress
    callback."""

    def __init__(
        self,
        name: str,
        verb: str,
        *,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        out = stdout if stdout is not None else sys.stdout
        err = stderr if stderr is not None else sys.stderr
        self.name = name
        self.bar = progress_bar(verb) if err.isatty() else None
        # Without a bar to see, plain lines even on a terminal.
        self.plain = PlainLines(name, out) if self.bar is None or not out.isatty() else None
        self.task = None if self.bar is None else self.bar.add_task(
            safe_markup(name), total=None, rate=""
        )  # fmt: skip
        self.entered = 0

    def __enter__(self) -> RunDisplay:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.bar is not None:
            self.bar.stop()
        if self.plain is not None:
            self.plain.close(failed=kind is not None)

    def update(self, state: RunProgress | LadderProgress) -> None:
        """Show *state*: move the bar, write a plain line if one is due, and say which
        versions entered a ladder."""
        if self.plain is not None:
            self.plain.update(state)
        if self.bar is not None and self.task is not None:
            if isinstance(state, LadderProgress) and self.plain is None:
                for label in state.entered[self.entered :]:
                    self.bar.console.print(safe_markup(entered_line(self.name, label)))
                self.entered = len(state.entered)
            total, rate = bar_of(state)
            self.bar.update(self.task, total=total, completed=state.done, rate=rate)
