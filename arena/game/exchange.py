"""The card exchange of docs/rules.md section 4: the forced plan, the return rule and the show.

Everything here is forced by the rules; the only decision in an exchange (which cards a
giver hands over) is taken elsewhere. Hands are 52-bit masks (see :mod:`arena.game.cards`).
"""

from __future__ import annotations

from arena.game.cards import SUIT_MASK
from arena.game.rules import GiverPriority
from arena.game.values import Leg

_LEGS: dict[tuple[int, int, int], Leg] = {}
"""Legs already made: a leg is a frozen value, and building a frozen dataclass is slow."""


def _leg(giver: int, receiver: int, count: int) -> Leg:
    key = (giver, receiver, count)
    leg = _LEGS.get(key)
    if leg is None:
        leg = _LEGS[key] = Leg(giver, receiver, count)
    return leg


def plan_exchange(
    previous_deltas: tuple[int, int, int] | list[int],
    contracts: tuple[int, int, int],
    priority: GiverPriority,
) -> tuple[Leg, ...]:
    """The legs forced by the previous hand's deltas, in resolution order (docs/rules.md 4.2, 4.4).

    *contracts* are those of the hand about to be played. With one giver and two receivers
    the receivers are ordered by the same upcoming-contract rule; their order does not
    change any card result because the two legs touch different receivers.
    """
    up = [s for s in range(3) if previous_deltas[s] > 0]
    down = [s for s in range(3) if previous_deltas[s] < 0]
    if not up:
        return ()
    if len(up) == 1:
        giver = up[0]
        down.sort(key=lambda s: -contracts[s])
        return tuple(_leg(giver, r, -previous_deltas[r]) for r in down)
    receiver = down[0]
    if priority is GiverPriority.MOST_OVERTRICKS:
        up.sort(key=lambda s: (-previous_deltas[s], -contracts[s]))
    else:
        up.sort(key=lambda s: -contracts[s])
    return tuple(_leg(g, receiver, previous_deltas[g]) for g in up)


def resolve_leg(receiver_hand: int, given: int) -> tuple[int, int]:
    """Apply the return rule (docs/rules.md 4.6) to one leg.

    For each suit the receiver hands back as many cards as he was given in it: the highest
    of that suit in his hand including the given cards. Returns ``(returned, new_receiver_hand)``.
    """
    pool = receiver_hand | given
    returned = 0
    for suit_mask in SUIT_MASK:
        given_in_suit = given & suit_mask
        if not given_in_suit:
            continue
        remaining = pool & suit_mask
        for _ in range(given_in_suit.bit_count()):
            top = 1 << (remaining.bit_length() - 1)
            returned |= top
            remaining ^= top
    return returned, pool & ~returned


def shown_cards(kitty: int, returned: int) -> int:
    """Kitty cards the dealer must show to a giver he returned *returned* to (docs/rules.md 5).

    Per suit in which he returned something, every kitty card outranking the lowest
    returned card of that suit.
    """
    shown = 0
    for suit_mask in SUIT_MASK:
        in_suit = returned & suit_mask
        if not in_suit:
            continue
        lowest = in_suit & -in_suit
        above = suit_mask & ~((lowest << 1) - 1)
        shown |= kitty & above
    return shown


__all__ = ["Leg", "plan_exchange", "resolve_leg", "shown_cards"]
