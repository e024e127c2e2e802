"""Random worlds consistent with a seat's :class:`~arena.search.knowledge.Knowledge`.

A sample places every unknown card with one holder (another seat or the dead pile) so
that each holder gets exactly its count and every card goes where it may. Cards are
placed one at a time, the most constrained first, each with a holder drawn in proportion
to the room the allowed holders have left: without constraints that is exactly a uniform
deal (sequential hypergeometric draws); with constraints it is close to uniform over the
consistent worlds. A draw that paints itself into a corner starts again; after a few such
failures the placement checks Hall's condition before every step, which cannot fail when
a consistent world exists.
"""

from __future__ import annotations

import random
from itertools import combinations

from arena.search.knowledge import HOLDERS, Knowledge

FAST_TRIES = 8
"""Unchecked attempts before the checked placement (which is slower but cannot fail)."""


class SamplingError(ValueError):
    """No world satisfies the knowledge (an observation that contradicts the rules)."""


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sample_world(knowledge: Knowledge, rng: random.Random) -> tuple[int, int, int, int]:
    """One world: the cards of each holder (seat 0, 1, 2, dead pile), the seat's own
    entry being its own cards.

    :raises SamplingError: if no world satisfies *knowledge*.
    """
    holders = [h for h in HOLDERS if h != knowledge.seat]
    need = {h: knowledge.counts[h] - knowledge.known[h].bit_count() for h in holders}
    cards = _cards(knowledge.unknown)
    if any(n < 0 for n in need.values()) or sum(need.values()) != len(cards):
        raise SamplingError(f"counts {need} do not fit {len(cards)} unknown cards")
    allowed = {c: [h for h in holders if knowledge.allowed[h] >> c & 1] for c in cards}
    for _ in range(FAST_TRIES):
        placed = _place_fast(cards, allowed, dict(need), rng)
        if placed is not None:
            return _world(knowledge, placed)
    return _world(knowledge, _place_checked(cards, allowed, dict(need), rng))


def _place_fast(
    cards: list[int], allowed: dict[int, list[int]], room: dict[int, int], rng: random.Random
) -> dict[int, int] | None:
    order = cards[:]
    rng.shuffle(order)
    order.sort(key=lambda c: len(allowed[c]))  # stable: random among equally constrained
    placed: dict[int, int] = {}
    for card in order:
        options = [h for h in allowed[card] if room[h] > 0]
        if not options:
            return None
        holder = _weighted(options, room, rng)
        room[holder] -= 1
        placed[card] = holder
    return placed


def _place_checked(
    cards: list[int], allowed: dict[int, list[int]], room: dict[int, int], rng: random.Random
) -> dict[int, int]:
    left = cards[:]
    if not _hall(left, allowed, room):
        raise SamplingError("no world satisfies the constraints")
    rng.shuffle(left)
    left.sort(key=lambda c: len(allowed[c]))
    placed: dict[int, int] = {}
    while left:
        card = left.pop(0)
        options = [h for h in allowed[card] if room[h] > 0]
        rng.shuffle(options)
        options.sort(key=lambda h: -room[h] * rng.random())
        for holder in options:
            room[holder] -= 1
            if _hall(left, allowed, room):
                placed[card] = holder
                break
            room[holder] += 1
        else:  # unreachable when the check before the first step passed
            raise SamplingError("no world satisfies the constraints")
    return placed


def _hall(cards: list[int], allowed: dict[int, list[int]], room: dict[int, int]) -> bool:
    """Whether the cards can all be placed: for every set of holders, the cards that may
    go only to that set fit in its room (Hall's condition for capacities)."""
    holders = list(room)
    for size in range(1, len(holders) + 1):
        for group in combinations(holders, size):
            members = set(group)
            confined = sum(1 for c in cards if members.issuperset(allowed[c]))
            if confined > sum(room[h] for h in group):
                return False
    return True


def _weighted(options: list[int], room: dict[int, int], rng: random.Random) -> int:
    if len(options) == 1:
        return options[0]
    total = sum(room[h] for h in options)
    pick = rng.random() * total
    for holder in options:
        pick -= room[holder]
        if pick < 0:
            return holder
    return options[-1]


def _world(knowledge: Knowledge, placed: dict[int, int]) -> tuple[int, int, int, int]:
    world = list(knowledge.known)
    world[knowledge.seat] = knowledge.own
    for card, holder in placed.items():
        world[holder] |= 1 << card
    return (world[0], world[1], world[2], world[3])
