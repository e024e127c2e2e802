"""The one adapter around TrueSkill (docs/style.md 6): an explicit environment, never the
library's global ``setup()``, and plain values in and out.

Parameters (the library's defaults scaled to our game, chosen and documented here):

* ``mu = 25``, ``sigma = 25/3``: the usual prior; a new bot is "average, very uncertain".
* ``beta = 25/6``: the skill gap that gives a ~76% chance to beat the other. 9-5-2 has
  plenty of luck in the deal, so a whole sigma of performance spread per game is right.
* ``tau = 25/300``: a little dynamics so a rating never freezes; bots are fixed programs,
  so it stays small.
* ``draw_probability = 0.005``: how often two adjacent places share a score. Measured
  over 1,200 simulated games (classic, catalan, nine-two-five): 0.46% of adjacent pairs
  tie, so 0.005.

A game is a 3-player free-for-all ranked by final score (equal scores share a rank); a
bot that faulted ranks below every bot that did not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import trueskill  # type: ignore[import-untyped]


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: mean and uncertainty."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: a skill the bot has with ~99.9% confidence (the leaderboard key)."""
        return self.mu - 3 * self.sigma


class RatingModel:
    """A TrueSkill environment with explicit parameters."""

    def __init__(
        self,
        mu: float = 25.0,
        sigma: float = 25.0 / 3,
        beta: float = 25.0 / 6,
        tau: float = 25.0 / 300,
        draw_probability: float = 0.005,
    ) -> None:
        self.parameters = {
            "mu": mu,
            "sigma": sigma,
            "beta": beta,
            "tau": tau,
            "draw_probability": draw_probability,
        }
        self._env = trueskill.TrueSkill(
            mu=mu, sigma=sigma, beta=beta, tau=tau, draw_probability=draw_probability
        )

    def initial(self) -> Rating:
        """The prior of a new bot."""
        return Rating(self._env.mu, self._env.sigma)

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        """New ratings after one free-for-all; ``ranks[i]`` is 0 for first, equal = tie.

        :raises ValueError: if the lengths differ or fewer than two players.
        """
        if len(ratings) != len(ranks) or len(ratings) < 2:
            raise ValueError("rate() needs one rank per rating and at least two players")
        groups = [(self._env.create_rating(r.mu, r.sigma),) for r in ratings]
        rated = self._env.rate(groups, ranks=list(ranks))
        return [Rating(group[0].mu, group[0].sigma) for group in rated]

    def win_probability(self, a: Rating, b: Rating) -> float:
        """Chance that a bot rated *a* finishes above one rated *b* (normal approximation)."""
        delta = a.mu - b.mu
        spread = (2 * self._env.beta**2 + a.sigma**2 + b.sigma**2) ** 0.5
        return float(self._env.cdf(delta / spread))


DEFAULT_MODEL = RatingModel()
"""The arena's rating model; change parameters only with a recompute of every tournament."""


def ranks_for_game(scores: Sequence[int], faulted: Sequence[bool]) -> list[int]:
    """Ranks of one game: by final score, ties shared, every faulted seat below the rest.

    >>> ranks_for_game([10, -4, -6], [False, False, False])
    [0, 1, 2]
    >>> ranks_for_game([10, -4, -6], [True, False, False])
    [2, 0, 1]
    >>> ranks_for_game([5, 5, -10], [False, False, False])
    [0, 0, 2]
    """
    keys = [(not faulted[i], scores[i]) for i in range(len(scores))]
    return [sum(1 for other in keys if other > key) for key in keys]


def ranks_for_totals(totals: Sequence[int]) -> list[int]:
    """Ranks from total scores (a whole board), ties shared."""
    return [sum(1 for other in totals if other > total) for total in totals]
