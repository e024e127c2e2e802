"""Small frozen values that leave the engine: a game's result, a hand's summary and an
exchange leg.

Why a module of their own: :mod:`arena.game.ending` and :mod:`arena.game.exchange` may be
compiled by mypyc (:mod:`arena.game._native`), and a compiled frozen class can no longer
be copied or pickled; observations, results and records carry these values everywhere,
so they stay plain Python classes. Import them from ``arena.game`` (or from their old
homes, ``arena.game.ending`` and ``arena.game.exchange``, which re-export them).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arena.game.cards import Trump


class EndReason(Enum):
    """Why a game ended (docs/record-format.md ``result.reason``)."""

    TARGET = "target"
    NEGATIVE = "negative"
    OVERTIME = "overtime"
    DRAW = "draw"
    CAPPED = "capped"


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of a finished game."""

    winners: tuple[int, ...]
    """Seats sharing first place (one seat unless a draw)."""
    reason: EndReason
    """Why the game ended."""
    scores: tuple[int, int, int]
    """Final cumulative scores."""
    hands_played: int
    """Number of hands played."""

    @property
    def is_draw(self) -> bool:
        """True when first place is shared."""
        return len(self.winners) > 1


@dataclass(frozen=True, slots=True)
class HandSummary:
    """The public result of a completed hand (every observation's ``history``).

    The engine makes one when it scores a hand (:attr:`arena.game.state.GameState.summaries`),
    so an observation hands the game's summaries out as they are instead of rebuilding one
    per hand at every decision."""

    number: int
    dealer: int
    contracts: tuple[int, int, int]
    trump: Trump
    tricks_won: tuple[int, int, int]
    deltas: tuple[int, int, int]
    scores: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Leg:
    """One giver -> receiver transfer of a fixed number of cards."""

    giver: int
    """Seat that hands over cards (it was up)."""
    receiver: int
    """Seat that receives them and returns as many (it was down)."""
    count: int
    """Number of cards that move each way."""
