"""A bot's play against the field on the same cards: by contract, and by decision kind.

*By contract.* In every hand the bot played, its contract (9, 5 or 2; the dealer holds 9)
and its cards are those of every game of the traveller that reached that hand. Its delta
(tricks minus contract) is set beside the mean delta of the field's games that played the
same hand number; the *edge* is the mean of (bot delta - field mean delta) over those hands.
From hand 2 on the games may differ in the exchange (it follows the previous hand's
result), so later hands are the same dealt cards, not always the same hand held.

*By decision kind.* Each of the bot's games is paired with each field game on the same
cards and seat. Both replays agree up to their first difference
(:mod:`arena.analysis.difference`); every decision of the traveller's seat before it was an
identical choice in an identical position (the same cards, the same history). At the first
difference, if the seat itself chose differently, that is one *different* choice of that
kind, and the hand it happened in is scored: the bot's delta in that hand minus the other
game's. A difference started by an opponent counts for no kind (the positions were no
longer the same after it). The unit is a replay step: each card played, each discarded
card, each exchange leg given, each trump call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from arena.analysis.difference import (
    DECISION_KINDS,
    Difference,
    first_difference,
    hand_delta,
    step_keys,
)
from arena.analysis.travellers import Traveller, TravellerRow
from arena.replay.steps import Replay

CONTRACTS = (9, 5, 2)
KINDS = ("exchange", "trump", "discard", "play")


@dataclass(frozen=True, slots=True)
class ContractLine:
    """The bot's hands with one contract, against the field on the same cards."""

    contract: int
    hands: int
    """Hands compared (each with at least one field game at that hand)."""
    mean_delta: float | None
    field_mean_delta: float | None

    @property
    def edge(self) -> float | None:
        """Mean delta minus the field's mean delta, on the same hands."""
        if self.mean_delta is None or self.field_mean_delta is None:
            return None
        return self.mean_delta - self.field_mean_delta


def by_contract(all_travellers: Sequence[Traveller]) -> list[ContractLine]:
    """One :class:`ContractLine` per contract, 9, 5, 2."""
    mine: dict[int, list[int]] = {c: [] for c in CONTRACTS}
    field_means: dict[int, list[float]] = {c: [] for c in CONTRACTS}
    for traveller in all_travellers:
        others = [(r.contracts, r.deltas) for r in traveller.field]
        for row in traveller.mine:
            for number, (contract, delta) in enumerate(zip(row.contracts, row.deltas, strict=True)):
                theirs = [d[number] for _, d in others if number < len(d)]
                if not theirs or contract not in mine:
                    continue
                mine[contract].append(delta)
                field_means[contract].append(sum(theirs) / len(theirs))
    return [
        ContractLine(
            c,
            len(mine[c]),
            sum(mine[c]) / len(mine[c]) if mine[c] else None,
            sum(field_means[c]) / len(field_means[c]) if field_means[c] else None,
        )
        for c in CONTRACTS
    ]


@dataclass(frozen=True, slots=True)
class Pair:
    """One of the bot's games beside one field game on the same cards and seat."""

    traveller: Traveller
    mine: TravellerRow
    other: TravellerRow
    difference: Difference | None
    """Where they part (``None``: identical games)."""
    agreed: dict[str, int] = field(default_factory=dict)
    """Decision kind -> the seat's decisions before the difference (all identical)."""

    @property
    def differed_by_seat(self) -> bool:
        """The first difference is a decision of the traveller's own seat."""
        d = self.difference
        return d is not None and d.seat == self.traveller.seat and d.decision is not None

    def hand_swing(self) -> int | None:
        """The bot's delta minus the other's in the hand of the first difference."""
        if self.difference is None:
            return None
        hand, seat = self.difference.hand, self.traveller.seat
        mine = hand_delta(self.mine.game.record, hand, seat)
        theirs = hand_delta(self.other.game.record, hand, seat)
        return None if mine is None or theirs is None else mine - theirs


ReplayOf = Callable[[TravellerRow], Replay | None]
"""A row's replay (``None`` if its record does not replay); the caller caches them."""


def pairs(all_travellers: Sequence[Traveller], replay_of: ReplayOf) -> list[Pair]:
    """Every (bot game, field game) pair of every traveller, with its first difference;
    pairs whose records do not replay are left out."""
    out = []
    keys: dict[int, list[tuple[object, ...]]] = {}

    def keys_of(row: TravellerRow, replay: Replay) -> list[tuple[object, ...]]:
        if row.game.game_id not in keys:
            keys[row.game.game_id] = step_keys(replay)
        return keys[row.game.game_id]

    for traveller in all_travellers:
        for mine in traveller.mine:
            mine_replay = replay_of(mine)
            if mine_replay is None:
                continue
            for other in traveller.field:
                other_replay = replay_of(other)
                if other_replay is None:
                    continue
                difference = first_difference(
                    mine_replay,
                    other_replay,
                    (keys_of(mine, mine_replay), keys_of(other, other_replay)),
                )
                stop = len(mine_replay.steps) if difference is None else difference.index
                agreed = {k: 0 for k in KINDS}
                for step in mine_replay.steps[:stop]:
                    kind = DECISION_KINDS.get(step.kind)
                    if kind is not None and step.seat == traveller.seat:
                        agreed[kind] += 1
                out.append(Pair(traveller, mine, other, difference, agreed))
    return out


@dataclass(frozen=True, slots=True)
class KindLine:
    """The bot's decisions of one kind in identical positions to a field game's."""

    kind: str
    agreed: int
    """Identical choices in identical positions."""
    differed: int
    """Positions where the bot chose otherwise (the first difference of a pair)."""
    hand_swings: tuple[int, ...]
    """Per differing choice, the bot's delta minus the other's in that hand."""

    @property
    def agreement(self) -> float | None:
        """agreed / (agreed + differed)."""
        total = self.agreed + self.differed
        return self.agreed / total if total else None

    @property
    def mean_hand_swing(self) -> float | None:
        return sum(self.hand_swings) / len(self.hand_swings) if self.hand_swings else None


def by_kind(all_pairs: Sequence[Pair]) -> list[KindLine]:
    """One :class:`KindLine` per decision kind: exchange, trump, discard, play."""
    agreed = {k: 0 for k in KINDS}
    differed = {k: 0 for k in KINDS}
    swings: dict[str, list[int]] = {k: [] for k in KINDS}
    for pair in all_pairs:
        for kind, count in pair.agreed.items():
            agreed[kind] += count
        if pair.differed_by_seat and pair.difference is not None:
            kind = pair.difference.decision or ""
            if kind in differed:
                differed[kind] += 1
                swing = pair.hand_swing()
                if swing is not None:
                    swings[kind].append(swing)
    return [KindLine(k, agreed[k], differed[k], tuple(swings[k])) for k in KINDS]


__all__ = [
    "CONTRACTS",
    "KINDS",
    "ContractLine",
    "KindLine",
    "Pair",
    "ReplayOf",
    "by_contract",
    "by_kind",
    "pairs",
]
