"""Ratings: TrueSkill behind one typed adapter, and how a game's result becomes ranks."""

from arena.ratings.trueskill_model import (
    DEFAULT_MODEL,
    Rating,
    RatingModel,
    ranks_for_game,
    ranks_for_totals,
)

__all__ = ["DEFAULT_MODEL", "Rating", "RatingModel", "ranks_for_game", "ranks_for_totals"]
