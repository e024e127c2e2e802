"""How far a tournament has got, in words that fit its format.

"stored / scheduled" is right for a round robin, and wrong twice elsewhere:

* a **version test** stops as soon as its sequential test (SPRT) decides, so a finished
  one had shown ``144/2400 6%``, which reads as a run broken off at 6%;
* a **ladder** schedules one match at a time, so its schedule is always nearly played
  (``316/324``), whatever its game budget (600) says; with no budget it is open-ended.

:func:`progress_of` gives the words and the bar's fraction (``None``: no bar means
anything) for the Tournaments page's list and its followed tournament alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.ratings.sprt import Verdict
from arena.storage import LADDER_FORMAT
from arena.tournament.compare import FORMAT as VERSION_TEST_FORMAT

FINISHED: Final = "finished"

VERDICT_WORDS: Final = {
    Verdict.BETTER: "SPRT accepted H1: better",
    Verdict.NOT_BETTER: "SPRT accepted H0: not better",
    Verdict.UNDECIDED: "SPRT undecided",
}
"""A version test's verdict, as the progress column says it."""


@dataclass(frozen=True, slots=True)
class ShownProgress:
    """A tournament's progress as a page shows it."""

    games: str
    """The games, in words (``6 / 6``, ``finished early: 144 games (...)``)."""
    fraction: float | None
    """The progress bar, 0.0 to 1.0; ``None`` when none fits (an open-ended ladder)."""

    @property
    def line(self) -> str:
        """:attr:`games` for a status line, where a bare ``6 / 6`` needs its unit."""
        return self.games if "game" in self.games else f"{self.games} games"


def progress_of(
    *,
    format_name: str,
    status: str,
    stored: int,
    scheduled: int,
    verdict: Verdict | None = None,
    games_budget: int | None = None,
) -> ShownProgress:
    """The progress of a tournament of *format_name* with *stored* of *scheduled* games.

    *verdict*: a version test's (when known); *games_budget*: a ladder's (``0`` or
    ``None``: none, it stops on its confidence rule only).
    """
    finished = status == FINISHED
    if format_name == VERSION_TEST_FORMAT:
        return _version_test(finished, stored, scheduled, verdict)
    if format_name == LADDER_FORMAT:
        return _ladder(finished, stored, games_budget or 0)
    fraction = stored / scheduled if scheduled else 1.0
    return ShownProgress(f"{stored:,} / {scheduled:,}", min(fraction, 1.0))


def _version_test(
    finished: bool, stored: int, scheduled: int, verdict: Verdict | None
) -> ShownProgress:
    decided = f" ({VERDICT_WORDS[verdict]})" if verdict is not None else ""
    if finished and stored < scheduled:
        return ShownProgress(f"finished early: {stored:,} games{decided}", 1.0)
    if finished:
        return ShownProgress(f"finished: {stored:,} games, all played{decided}", 1.0)
    fraction = stored / scheduled if scheduled else 0.0
    return ShownProgress(
        f"{stored:,} of at most {scheduled:,} games (it stops once the test decides)",
        min(fraction, 1.0),
    )


def _ladder(finished: bool, stored: int, budget: int) -> ShownProgress:
    if finished:
        return ShownProgress(f"finished: {stored:,} games", 1.0)
    if budget:
        return ShownProgress(f"{stored:,} of its {budget:,}-game budget", min(stored / budget, 1.0))
    return ShownProgress(f"{stored:,} games (open-ended: no game budget)", None)
