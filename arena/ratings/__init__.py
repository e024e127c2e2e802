"""Ratings: TrueSkill behind one typed adapter, how a game's result becomes ranks, and how
sure a leaderboard is (rank confidence)."""

from arena.ratings.confidence import (
    RankInterval,
    p_above_next,
    probability_above,
    rank_intervals,
)
from arena.ratings.trueskill_model import (
    DEFAULT_MODEL,
    Rating,
    RatingModel,
    ranks_for_game,
    ranks_for_totals,
)

__all__ = [
    "DEFAULT_MODEL",
    "RankInterval",
    "Rating",
    "RatingModel",
    "p_above_next",
    "probability_above",
    "rank_intervals",
    "ranks_for_game",
    "ranks_for_totals",
]
