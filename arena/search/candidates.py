"""The few decisions worth searching when the legal ones are too many.

A discard has C(20, 4) = 4845 choices and a give of *k* cards C(16, k); a search can
evaluate only a handful per decision. These are the shapes good players choose between:
throw the weakest cards; empty a short side suit to trump into it (docs/rules.md: a void lets
the seat trump at will); give from the longest side suit or spread the give over suits
(a low card comes back as the receiver's top card of its suit, docs/rules.md 4.6). The first
candidate is always the SDK's greedy choice, so a search without time is no worse than it.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.game import CallTrump, Card, Decision, DecisionKind, Discard, Give, Observation, Play
from arena.game.policies import GreedyPolicy

_GREEDY = GreedyPolicy()


def candidates(obs: Observation) -> list[Decision]:
    """Distinct candidate decisions for ``obs.request``, the greedy choice first.

    :raises ValueError: if the seat has nothing to decide.
    """
    request = obs.request
    if request is None:
        raise ValueError(f"seat {obs.seat} has nothing to decide")
    first = _GREEDY.act(obs)
    if request.kind is DecisionKind.PLAY:
        options: list[Decision] = [Play(c) for c in request.cards]
    elif request.kind is DecisionKind.TRUMP:
        options = [CallTrump(t) for t in request.trump_options]
    elif request.kind is DecisionKind.DISCARD:
        options = [Discard(tuple(sorted(s))) for s in _card_sets(obs, request.discard_count)]
    else:
        counts = [count for _, count in request.give_legs]
        options = [_give(s, counts) for s in _card_sets(obs, sum(counts))]
    out = [first]
    for option in options:
        if option not in out:
            out.append(option)
    return out


def _give(cards: Sequence[Card], counts: Sequence[int]) -> Give:
    legs = []
    start = 0
    for count in counts:
        legs.append(tuple(sorted(cards[start : start + count])))
        start += count
    return Give(tuple(legs))


def _card_sets(obs: Observation, size: int) -> list[list[Card]]:
    """Sets of *size* cards to part with (discard or give) from ``obs.request.cards``."""
    assert obs.request is not None
    cards = list(obs.request.cards)
    trump = None if obs.trump is None or obs.trump.suit is None else int(obs.trump.suit)
    by_suit: dict[int, list[Card]] = {}
    for card in cards:
        by_suit.setdefault(card // 13, []).append(card)
    side = [s for s in by_suit if s != trump]

    def weakest(pool: list[Card]) -> list[Card]:
        return sorted(pool, key=lambda c: (c // 13 == trump, c.rank >= 11, c.rank))

    sets = [weakest(cards)[:size]]
    # Shortest side suits first, lowest cards first, honours last: makes voids.
    lengths = {s: len(by_suit[s]) for s in by_suit}
    sets.append(
        sorted(cards, key=lambda c: (c // 13 == trump, c.rank >= 11, lengths[c // 13], c.rank))[
            :size
        ]
    )
    for suit in side:
        suited = by_suit[suit]
        if len(suited) <= size:  # the whole suit fits: empty it
            rest = weakest([c for c in cards if c // 13 != suit])
            sets.append(suited + rest[: size - len(suited)])
    # The lowest cards of the longest side suit (each brings back the receiver's best).
    if side:
        longest = max(side, key=lambda s: (lengths[s], -s))
        low = sorted(by_suit[longest], key=lambda c: c.rank)[:size]
        sets.append(low + weakest([c for c in cards if c not in low])[: size - len(low)])
    # One low card per side suit, round robin.
    spread: list[Card] = []
    queues = [sorted(by_suit[s], key=lambda c: c.rank) for s in side]
    while len(spread) < size and any(queues):
        for queue in queues:
            if queue and len(spread) < size:
                spread.append(queue.pop(0))
    if len(spread) < size:
        spread += weakest([c for c in cards if c not in spread])[: size - len(spread)]
    sets.append(spread)
    return [s for s in sets if len(s) == size and len(set(s)) == size]
