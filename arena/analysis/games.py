"""The input of the duplicate analysis: one stored game with where it stands in its
tournament's schedule, and the key that says which games were dealt the same cards.

Every seating of a duplicate board is played from the same deal key (the stored ``seed``)
with the same first dealer (``board % 3``), and the dealer then moves left after every hand
whatever happens. So hand *h* deals each seat the same 16 cards (and the same kitty) in
every game of the board, under every seating, and at every table when the tournament deals
board *n* alike everywhere. :func:`deal_key` is exactly that pair; "the same cards in the
same seat" is a deal key plus a seat number. What differs is how many hands each game lasts,
and from hand 2 on the exchange, which follows the previous hand's result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Seat = int
DealKey = tuple[int, int]
"""``(deal key, first dealer)``: games with equal keys deal every hand alike."""


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A stored game as the analysis reads it (its record as the viewer may read it)."""

    game_id: int
    schedule_index: int
    table_index: int
    board_index: int
    seating_index: int
    seed: int
    """The board's deal key (the game table's ``seed`` column)."""
    seats: tuple[int, int, int]
    """Bot version id by seat."""
    players: tuple[str, str, str]
    """Bot version label by seat."""
    record: Mapping[str, Any]

    @property
    def deal(self) -> DealKey:
        """:func:`deal_key` of this game."""
        return deal_key(self)

    def hands(self) -> list[Mapping[str, Any]]:
        """The record's hands (an empty list for a record without any)."""
        hands = self.record.get("hands")
        return [h for h in hands if isinstance(h, Mapping)] if isinstance(hands, list) else []

    def score(self, seat: Seat) -> int:
        """The final game score of *seat*."""
        result = self.record.get("result")
        scores = result.get("scores") if isinstance(result, Mapping) else None
        return int(scores[seat]) if isinstance(scores, list) and len(scores) == 3 else 0

    def won(self, seat: Seat) -> bool:
        """Whether *seat* is among the winners (shared first place included)."""
        result = self.record.get("result")
        winners = result.get("winners") if isinstance(result, Mapping) else None
        return isinstance(winners, list) and seat in winners


def deal_key(game: PlayedGame) -> DealKey:
    """The deal key and first dealer of *game*: equal keys, equal cards hand by hand."""
    first = game.record.get("first_dealer")
    return (game.seed, int(first) if isinstance(first, int) else -1)


def hand_facts(hand: Mapping[str, Any], seat: Seat) -> tuple[int, int]:
    """``(contract, tricks won)`` of *seat* in one hand of a record."""
    return int(hand["contracts"][seat]), int(hand["tricks_won"][seat])


__all__ = ["DealKey", "PlayedGame", "Seat", "deal_key", "hand_facts"]
