"""How sure a leaderboard is: rank confidence from TrueSkill posteriors.

A TrueSkill rating is a normal posterior ``N(mu, sigma^2)`` over a bot's skill, and the
posteriors of different bots are treated as independent (the same assumption TrueSkill's
own match quality and win probability make). Two questions follow from that alone:

* **P(above the next bot)**: the chance that a bot's skill exceeds the skill of the bot
  listed directly below it. The difference of two independent normals is normal, so
  ``P(s_a > s_b) = Phi((mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2))``. It compares
  *skills*, not one game's performance, so TrueSkill's per-game noise ``beta`` is not in it
  (that is :meth:`RatingModel.win_probability`'s question, not this one).
* **A 95% interval of each bot's rank**: the rank a bot would have if the true skills were
  known. A bot's rank is ``1 +`` the number of bots whose skill is higher, which has no
  closed form (the comparisons share the bot's own skill), so it is estimated by
  Monte-Carlo: draw every skill from its posterior ``draws`` times, rank each draw, and
  take the 2.5% and 97.5% quantiles of each bot's ranks (numpy: 4,000 draws of 500 bots
  take about 1 s on a busy 2-core machine, where pure Python took 9 s). The generator has a fixed seed,
  so the same ratings always give the same intervals (a leaderboard must not flicker
  between two page loads); with the default 4,000 draws the tail quantiles rest on about
  100 draws each, so an interval's end can move by one rank only where the rank
  distribution has a step right at the quantile.

Functions here are pure: ratings in, numbers out; no storage, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.ratings.trueskill_model import Rating

DEFAULT_LEVEL = 0.95
"""The rank interval's coverage."""

DEFAULT_DRAWS = 4000
"""Monte-Carlo draws of the skills; enough for stable 2.5%/97.5% quantiles."""

MAX_CELLS = 2_000_000
"""At most this many (draw, bot) skills per call: it bounds the time and memory of a big field."""

DEFAULT_SEED = 952
"""The fixed seed of the draws: the same ratings always give the same intervals."""

_STANDARD_NORMAL = NormalDist()


@dataclass(frozen=True, slots=True)
class RankInterval:
    """An interval of ranks (1 = first) that holds the bot's true rank with the given level."""

    low: int
    """The best rank in the interval (the smaller number)."""
    high: int
    """The worst rank in the interval (the larger number)."""


def probability_above(a: Rating, b: Rating) -> float:
    """P(skill of *a* > skill of *b*) for independent normal posteriors.

    >>> probability_above(Rating(25.0, 0.0001), Rating(25.0, 0.0001))
    0.5
    >>> round(probability_above(Rating(30.0, 3.0), Rating(26.0, 4.0)), 4)  # Phi(0.8)
    0.7881
    """
    spread = math.sqrt(a.sigma**2 + b.sigma**2)
    if spread == 0.0:
        # Two exactly known skills: certain order, or a coin flip when equal.
        return 1.0 if a.mu > b.mu else 0.0 if a.mu < b.mu else 0.5
    return _STANDARD_NORMAL.cdf((a.mu - b.mu) / spread)


def p_above_next(ratings: Sequence[Rating]) -> list[float | None]:
    """For ratings in standings order, each one's P(above the next); ``None`` for the last.

    The order is the caller's (the leaderboard's, by conservative rating), so a value below
    0.5 says the list puts that bot above one that is more likely better.
    """
    return [
        probability_above(ratings[i], ratings[i + 1]) if i + 1 < len(ratings) else None
        for i in range(len(ratings))
    ]


def rank_intervals(
    ratings: Sequence[Rating],
    level: float = DEFAULT_LEVEL,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
) -> list[RankInterval]:
    """Each bot's *level* interval of its true rank among *ratings* (Monte-Carlo, seeded).

    Ranks count from 1 and refer to the position the bot would take if the skills were
    known; the interval's ends are the smallest ranks whose share of the draws reaches
    ``(1 - level) / 2`` and ``(1 + level) / 2``. Draws are capped at
    :data:`MAX_CELLS` ``/ len(ratings)`` (so 500 bots get 4,000 draws and 5,000 bots 400),
    which keeps the cost near a second and the memory near 50 MB whatever the field.

    :raises ValueError: if *level* is not in (0, 1) or *draws* is below 1.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if draws < 1:
        raise ValueError(f"draws must be at least 1, got {draws}")
    count = len(ratings)
    if count == 0:
        return []
    draws = max(1, min(draws, MAX_CELLS // count))
    # NumPy (0.1 to 0.3 s to import) only here: not for every command that imports the
    # storage layer, only for one that shows rank intervals (issue 35).
    import numpy as np  # noqa: PLC0415

    mu = np.array([r.mu for r in ratings], dtype=np.float64)
    sigma = np.array([r.sigma for r in ratings], dtype=np.float64)
    skills = mu + sigma * np.random.default_rng(seed).standard_normal((draws, count))
    # ranks[d, i]: 1 + how many bots drew a higher skill than bot i in draw d.
    order = np.argsort(-skills, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, count + 1), axis=1)
    ranks.sort(axis=0)
    tail = (1.0 - level) / 2.0
    low = ranks[_position(tail, draws)]
    high = ranks[_position(1.0 - tail, draws)]
    return [RankInterval(int(a), int(b)) for a, b in zip(low, high, strict=True)]


def _position(probability: float, total: int) -> int:
    """The index, in ascending order, of the smallest value whose cumulative share of
    *total* draws reaches *probability* (a tiny tolerance so 0.975 * 4000 = 3900 is reached
    by exactly 3,900 draws)."""
    return min(total, max(1, math.ceil(probability * total - 1e-9))) - 1
