"""Travellers: every result on the same cards in the same seat, beside a bot's own.

A bridge traveller lists how each table played one board. Here a traveller is one deal key
(:func:`arena.analysis.games.deal_key`) and one seat: every stored game of that deal, each
with the bot that held the seat's cards, its final score, and its contract and tricks hand
by hand. The *field* of a traveller is every row whose bot is not the analysed bot (any of
its versions). A row's *swing* is its score minus the field's mean score on those cards:
luck of the deal cancels out, what remains is play (and the opponents faced, which differ
from row to row).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from arena.analysis.games import DealKey, PlayedGame, Seat, hand_facts


@dataclass(frozen=True, slots=True)
class TravellerRow:
    """One game of a traveller, seen from the traveller's seat."""

    game: PlayedGame
    seat: Seat
    mine: bool
    """The analysed bot held these cards in this game."""

    @property
    def player(self) -> str:
        """The bot version label in the seat."""
        return self.game.players[self.seat]

    @property
    def score(self) -> int:
        """The seat's final game score."""
        return self.game.score(self.seat)

    @property
    def won(self) -> bool:
        return self.game.won(self.seat)

    @property
    def contracts(self) -> tuple[int, ...]:
        """The seat's contract, hand by hand."""
        return tuple(hand_facts(h, self.seat)[0] for h in self.game.hands())

    @property
    def tricks(self) -> tuple[int, ...]:
        """The seat's tricks won, hand by hand."""
        return tuple(hand_facts(h, self.seat)[1] for h in self.game.hands())

    @property
    def deltas(self) -> tuple[int, ...]:
        """Tricks minus contract, hand by hand."""
        return tuple(t - c for c, t in zip(self.contracts, self.tricks, strict=True))


@dataclass(frozen=True, slots=True)
class Traveller:
    """Every game dealt *deal* with its seat *seat*, in schedule order."""

    deal: DealKey
    board_index: int
    table_index: int
    """The table of the first game (a board dealt alike at every table spans them all)."""
    seat: Seat
    rows: tuple[TravellerRow, ...]

    @property
    def mine(self) -> tuple[TravellerRow, ...]:
        return tuple(r for r in self.rows if r.mine)

    @property
    def field(self) -> tuple[TravellerRow, ...]:
        """The rows of every other bot."""
        return tuple(r for r in self.rows if not r.mine)

    def field_mean(self) -> float | None:
        """The field's mean final score on these cards; ``None`` without a field."""
        field = self.field
        return sum(r.score for r in field) / len(field) if field else None


@dataclass(frozen=True, slots=True)
class Swing:
    """One of the bot's games against the field on the same cards."""

    traveller: Traveller
    row: TravellerRow
    field_mean: float

    @property
    def swing(self) -> float:
        """The bot's score minus the field's mean score on the same cards."""
        return self.row.score - self.field_mean


def travellers(games: Iterable[PlayedGame], versions: Collection[int]) -> list[Traveller]:
    """The travellers of every deal and seat in which a version in *versions* sat, each
    with every game of *games* dealt alike, ordered by board, table and seat."""
    by_deal: dict[DealKey, list[PlayedGame]] = {}
    for game in sorted(games, key=lambda g: g.schedule_index):
        by_deal.setdefault(game.deal, []).append(game)
    out = []
    for deal, group in by_deal.items():
        for seat in range(3):
            rows = tuple(TravellerRow(g, seat, g.seats[seat] in versions) for g in group)
            if any(r.mine for r in rows):
                first = group[0]
                out.append(Traveller(deal, first.board_index, first.table_index, seat, rows))
    out.sort(key=lambda t: (t.board_index, t.table_index, t.seat))
    return out


def swings(all_travellers: Sequence[Traveller]) -> list[Swing]:
    """Every game of the bot that has a field, biggest loss first (ties: schedule order)."""
    out = []
    for traveller in all_travellers:
        mean = traveller.field_mean()
        if mean is None:
            continue
        out += [Swing(traveller, row, mean) for row in traveller.mine]
    out.sort(key=lambda s: (s.swing, s.row.game.schedule_index))
    return out


__all__ = ["Swing", "Traveller", "TravellerRow", "swings", "travellers"]
