"""A sequential probability ratio test on per-board score differences (a version test).

The question: is a candidate bot at least ``margin`` points per game better than its
baseline? Each duplicate board gives one number, ``x`` = the candidate's mean score per game
minus the baseline's, both having played the same deals against the same opponents under
all six seatings. Boards are independent; ``x`` is a mean of six games, so it is close to
normal. The test is fishtest's generalised SPRT (official-stockfish/fishtest,
``server/fishtest/stats/LLRcalc.py``, ``LLR_alt`` and ``LLR_alt2``; ``sprt.py`` for the
bounds) with our per-board differences in place of chess's game pairs:

* H0: the mean difference is 0 (no better; a mean below 0 only pushes the LLR down
  faster), H1: it is ``margin``.
* The variance is unknown and estimated from the boards, and the LLR is fishtest's normal
  (Brownian) approximation of the generalised LLR, ``LLR_alt2`` times the boards:
  ``LLR = n * margin * (2 mean - margin) / (2 var)`` with ``mean`` and ``var`` of the
  differences. It is positive once the mean passes ``margin / 2`` and grows
  with ``n``. The exact normal GLR with the variance profiled out (``LLR_alt``,
  ``n/2 * ln(r_0 / r_margin)``, ``r_s = mean((x - s)^2)``) agrees with it near the two
  hypotheses but lets a mean far outside them inflate both variances: a candidate three
  points worse would need three times the boards to be turned down, so the approximation
  is the better test here, as it is fishtest's in practice.
* Wald's bounds: stop for H1 ("better") when ``LLR >= ln((1 - beta) / alpha)``, for H0
  ("not better") when ``LLR <= ln(beta / (1 - alpha))``; ``alpha`` and ``beta`` are the
  error rates when the truth is exactly H0 or H1.

Three guards that fishtest gets for free from its thousands of games: ``var`` is the
unbiased variance (divided by ``n - 1``), and there is no decision before
:data:`MIN_BOARDS` boards, because a variance from a few boards is often far too small and
makes the test liberal (simulated at alpha = beta = 0.05, margin 1, spread 3, 400 runs
each: the plug-in variance from 5 boards on said "better" for 11% of no-better
candidates; ``n - 1`` from 10 boards on, 5.5%, and missed 7% of the better ones); and the
variance is floored at a tiny positive value so identical results (a bot against an exact
copy of itself) give a huge finite LLR rather than a division by zero.

Everything here is pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from statistics import NormalDist
from typing import Final

MIN_BOARDS: Final = 10
"""Boards before the test may decide by default; below it the variance is too unreliable."""

_VARIANCE_FLOOR: Final = 1e-12
"""The smallest variance used, so identical differences give a finite LLR."""


class Verdict(StrEnum):
    """The outcome of a version test."""

    BETTER = "better"
    """H1 accepted: at least ``margin`` points per game better (exit status 0)."""
    NOT_BETTER = "not_better"
    """H0 accepted: no better (exit status 1)."""
    UNDECIDED = "undecided"
    """Neither bound reached (exit status 3 once the boards are spent)."""


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """What the test asks and how sure it must be."""

    margin: float
    """Points per game: the improvement H1 asserts (must be > 0)."""
    alpha: float = 0.05
    """Chance of calling a no-better candidate better."""
    beta: float = 0.05
    """Chance of calling a candidate that is ``margin`` better not better."""
    min_boards: int = MIN_BOARDS
    """No decision before this many boards (at least 2: one board has no variance)."""

    def __post_init__(self) -> None:
        if self.min_boards < 2:
            raise ValueError(f"min_boards must be at least 2, got {self.min_boards}")
        if not (math.isfinite(self.margin) and self.margin > 0):
            raise ValueError(f"the margin must be a positive number of points, got {self.margin}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must be in (0, 0.5), got {value}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 (not better) is accepted: ``ln(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 (better) is accepted: ``ln((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True, slots=True)
class SprtState:
    """The test after some boards."""

    boards: int
    llr: float
    """The generalised log-likelihood ratio of H1 against H0 (0.0 before any board)."""
    lower: float
    upper: float
    verdict: Verdict
    mean: float
    """Mean per-board difference, points per game (NaN before any board)."""
    ci_low: float
    """95% interval of the mean (Student's t over boards); NaN with fewer than 2 boards."""
    ci_high: float


def log_likelihood_ratio(differences: Sequence[float], margin: float) -> float:
    """The LLR of mean ``margin`` against mean 0 under a normal model, variance estimated.

    ``n * margin * (2 mean - margin) / (2 var)``, ``var`` the unbiased variance (fishtest's
    ``LLR_alt2`` times ``n``); 0.0 with fewer than two differences (no variance yet).

    >>> log_likelihood_ratio([1.0, 3.0], margin=2.0)  # mean 2, var 2: 2 * 2 * 2 / 4
    2.0
    """
    n = len(differences)
    if n < 2:
        return 0.0
    mean = sum(differences) / n
    variance = max(sum((x - mean) ** 2 for x in differences) / (n - 1), _VARIANCE_FLOOR)
    return n * margin * (2.0 * mean - margin) / (2.0 * variance)


def evaluate(differences: Sequence[float], settings: SprtSettings) -> SprtState:
    """The test's state after *differences* (one per board, in the order played)."""
    n = len(differences)
    llr = log_likelihood_ratio(differences, settings.margin)
    verdict = Verdict.UNDECIDED
    if n >= settings.min_boards:
        if llr >= settings.upper:
            verdict = Verdict.BETTER
        elif llr <= settings.lower:
            verdict = Verdict.NOT_BETTER
    mean, low, high = mean_interval(differences)
    return SprtState(n, llr, settings.lower, settings.upper, verdict, mean, low, high)


def run_sequentially(differences: Sequence[float], settings: SprtSettings) -> list[SprtState]:
    """The state after each board, stopping at the first decision (the test's trajectory)."""
    states: list[SprtState] = []
    for n in range(1, len(differences) + 1):
        state = evaluate(differences[:n], settings)
        states.append(state)
        if state.verdict is not Verdict.UNDECIDED:
            break
    return states


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean of *values* and its two-sided *level* interval (Student's t); NaNs when too few."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan, math.nan
    variance = sum((x - mean) ** 2 for x in values) / (n - 1)
    half = t_quantile((1.0 + level) / 2.0, n - 1) * math.sqrt(variance / n)
    return mean, mean - half, mean + half


def t_quantile(p: float, df: int) -> float:
    """The *p* quantile of Student's t with *df* degrees of freedom.

    Exact for 1 and 2 degrees of freedom; above, the Cornish-Fisher expansion of
    Abramowitz & Stegun 26.7.5: the 97.5% point is 0.004 low at 3 degrees of freedom,
    where the expansion is weakest, under 0.001 off from 4 on, and closer with every one.

    :raises ValueError: if *p* is not in (0, 1) or *df* is below 1.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2.0 * p - 1.0) / math.sqrt(2.0 * p * (1.0 - p))
    z = NormalDist().inv_cdf(p)
    v = float(df)
    g1 = (z**3 + z) / 4.0
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96.0
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384.0
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160.0
    return z + g1 / v + g2 / v**2 + g3 / v**3 + g4 / v**4
