"""The ladder's matchmaker: which three bots play the next match, and when a ladder is done.

Pure and fast (ratings in, a table out; well under a millisecond at 50 entrants and a few
at 500, see ``benchmarks/ladder.py``). The rule follows the two ingredients of TrueSkill
matchmaking (Herbrich, Minka and Graepel, *TrueSkill: A Bayesian Skill Rating System*,
NIPS 2006), which is also how Kaggle's simulation competitions describe their episode
scheduling (docs/ladder.md):

* **Uncertain ratings play most.** New, uncertain submissions get more games until their
  rating settles. Here the bots with fewer than ``min_games`` rated games fill the seats
  first (the one with fewest games, then the others by the third-seat weight below), and
  otherwise every weight below carries the bots' variance ``sigma^2``.
* **Close matches teach most.** TrueSkill's *match quality* (its draw probability relative
  to the best possible, the quantity Xbox Live matchmaking maximises) is highest where the
  outcome is least predictable, which is where a game moves the ratings most. Here the
  next match is built around the pair of neighbours in the standings whose order is least
  certain (weight ``1 - P(above next)`` from :mod:`arena.ratings.confidence`, times their
  variances), and the third bot is drawn with weight ``quality(pair, bot) * sigma^2``.

Every choice is a weighted *draw*, not an arg-max, and in a share ``explore`` of matches
the third bot is drawn uniformly, so every bot keeps meeting a spread of opponents (a
ladder of repeated identical tables would rate the bots against each other only). The
random generator is the caller's: the runner seeds one per match from the tournament's
deal secret, so a ladder played one match at a time is reproducible from its secret.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from arena.ratings.confidence import p_above_next
from arena.ratings.trueskill_model import DEFAULT_MODEL, Rating

DEFAULT_MIN_GAMES: Final = 12
"""Rated games a bot plays before the ladder may stop (two matches)."""
DEFAULT_CONFIDENCE: Final = 0.95
DEFAULT_EXPLORE: Final = 0.1
_FLOOR: Final = 1e-9
"""Added to every weight: a draw never fails, and no table is ever impossible."""


@dataclass(frozen=True, slots=True)
class Contender:
    """A bot the matchmaker may seat: its key (the bot version id), rating and games."""

    key: int
    mu: float
    sigma: float
    games: int
    """Rated games so far."""

    @property
    def rating(self) -> Rating:
        """The TrueSkill rating."""
        return Rating(self.mu, self.sigma)

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``, the standings' sort key."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class MatchmakerSettings:
    """The matchmaker's knobs (the defaults are the arena's)."""

    min_games: int = DEFAULT_MIN_GAMES
    """A bot below this many rated games is a newcomer: it is seated first."""
    explore: float = DEFAULT_EXPLORE
    """Share of matches whose third bot is drawn uniformly (a spread of opponents)."""
    beta: float = float(DEFAULT_MODEL.parameters["beta"])
    """TrueSkill's per-game performance spread, for match quality."""


def standings_order(contenders: Sequence[Contender]) -> list[Contender]:
    """*contenders* in standings order: conservative rating, then mu, then key (the same
    order as ``arena standings``)."""
    return sorted(contenders, key=lambda c: (-c.conservative, -c.mu, c.key))


def quality(a: Contender, b: Contender, beta: float) -> float:
    """TrueSkill's two-player match quality: the draw probability of *a* and *b* relative to
    that of two equal, exactly known players (1.0 best, near 0 for a foregone result)."""
    spread = 2 * beta * beta + a.sigma * a.sigma + b.sigma * b.sigma
    return math.sqrt(2 * beta * beta / spread) * math.exp(-((a.mu - b.mu) ** 2) / (2 * spread))


def is_settled(contenders: Sequence[Contender], confidence: float, min_games: int) -> bool:
    """The ladder's stopping rule: every contender has *min_games* rated games, and in
    standings order each is above the next with probability at least *confidence*."""
    if any(c.games < min_games for c in contenders):
        return False
    ranked = standings_order(contenders)
    chances = p_above_next([c.rating for c in ranked])
    return all(p is None or p >= confidence for p in chances)


def pick_table(
    contenders: Sequence[Contender],
    rng: random.Random,
    settings: MatchmakerSettings | None = None,
) -> tuple[int, int, int]:
    """The keys of the three contenders of the next match (see the module docstring).

    :raises ValueError: for fewer than 3 contenders or a repeated key.
    """
    settings = settings or MatchmakerSettings()
    if len(contenders) < 3:
        raise ValueError(f"a match needs 3 bots, the ladder has {len(contenders)}")
    if len({c.key for c in contenders}) != len(contenders):
        raise ValueError("a contender is listed twice")
    ranked = standings_order(contenders)
    newcomers = [c for c in ranked if c.games < settings.min_games]
    if newcomers:
        fewest = min(c.games for c in newcomers)
        seated = [rng.choice([c for c in newcomers if c.games == fewest])]
    else:
        seated = list(_uncertain_pair(ranked, rng))
    while len(seated) < 3:
        # Newcomers fill the seats before anyone else.
        waiting = [c for c in newcomers if c not in seated]
        seated.append(_opponent(waiting or ranked, seated, rng, settings))
    return seated[0].key, seated[1].key, seated[2].key


def _uncertain_pair(ranked: Sequence[Contender], rng: random.Random) -> tuple[Contender, ...]:
    """Two neighbours in the standings, drawn by how unsure their order is."""
    chances = p_above_next([c.rating for c in ranked])
    weights = [
        (1.0 - p) * (ranked[i].sigma ** 2 + ranked[i + 1].sigma ** 2) + _FLOOR
        for i, p in enumerate(chances)
        if p is not None
    ]
    (i,) = rng.choices(range(len(weights)), weights)
    return ranked[i], ranked[i + 1]


def _opponent(
    pool: Sequence[Contender],
    seated: Sequence[Contender],
    rng: random.Random,
    settings: MatchmakerSettings,
) -> Contender:
    """A bot from *pool* for the next seat: close in rating to everyone seated and uncertain
    itself, or, in a share ``explore`` of draws, anyone in *pool*."""
    taken = {c.key for c in seated}
    free = [c for c in pool if c.key not in taken]
    if rng.random() < settings.explore:
        return rng.choice(free)
    weights = []
    for candidate in free:
        weight = candidate.sigma * candidate.sigma
        for other in seated:
            weight *= quality(candidate, other, settings.beta)
        weights.append(weight + _FLOOR)
    (chosen,) = rng.choices(free, weights)
    return chosen
