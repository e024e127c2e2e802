"""heuristic_bot: a simple card-counting player, deterministic, built on the Python SDK.

* Trump: the suit with the best length and high cards; no trump only with a hand full of
  aces and kings.
* Discard: keep trumps and winners; throw the lowest side cards, shortest suits first, to
  make voids it can trump into.
* Give: its weakest side cards (low cards come back as the receiver's best of that suit).
* Play: while short of its contract, win as cheaply as it can and lead its masters; once
  the contract is made, duck with the highest card that still loses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.sdk import Bot, CallTrump, Card, Discard, Give, Observation, Play, Trump

HONOURS = {12: 4, 11: 3, 10: 2, 9: 1}  # A K Q J


class HeuristicBot(Bot):
    name, version = "heuristic_bot", "1.0.0"

    def trump(self, obs: Observation) -> CallTrump:
        request = obs.request
        assert request is not None

        def strength(option: Trump) -> float:
            if option.suit is None:
                tops = sum(1 for c in obs.hand if c.rank >= 11)
                return 2.5 * tops - 4
            cards = [c for c in obs.hand if c.suit == option.suit]
            return 2 * len(cards) + sum(HONOURS.get(c.rank, 0) for c in cards)

        return CallTrump(max(request.trump_options, key=strength))

    def discard(self, obs: Observation) -> Discard:
        request = obs.request
        assert request is not None
        trump = obs.trump.suit if obs.trump is not None else None
        lengths = Counter(c.suit for c in request.cards)

        def keep(card: Card) -> tuple[int, int, int]:
            is_trump = trump is not None and card.suit == trump
            return (is_trump, card.rank >= 11, lengths[card.suit] * 13 + card.rank)

        return Discard(tuple(sorted(request.cards, key=keep)[: request.discard_count]))

    def give(self, obs: Observation) -> Give:
        request = obs.request
        assert request is not None
        trump = obs.trump.suit if obs.trump is not None else None
        weakest = sorted(request.cards, key=lambda c: (c.suit == trump, c.rank))
        legs, start = [], 0
        for _, count in request.give_legs:
            legs.append(tuple(weakest[start : start + count]))
            start += count
        return Give(tuple(legs))

    def play(self, obs: Observation) -> Play:
        request = obs.request
        assert request is not None and obs.current_trick is not None
        legal = request.cards
        trump = obs.trump.suit if obs.trump is not None else None
        need = obs.contracts[obs.seat] - obs.tricks_won[obs.seat]
        played = obs.current_trick.cards
        gone = {c for t in obs.tricks for c in t.cards} | set(played)
        if not played:
            masters = [c for c in legal if _is_master(c, obs.hand, gone)]
            if need > 0:
                return Play(max(masters or legal, key=lambda c: (c.suit != trump, c.rank)))
            return Play(min(legal, key=lambda c: (c.suit == trump, c.rank)))
        winners = [c for c in legal if _beats(c, played, trump)]
        if need > 0 and winners:
            return Play(min(winners, key=lambda c: (c.suit == trump, c.rank)))
        losers = [c for c in legal if c not in winners]
        if need <= 0 and losers:
            return Play(max(losers, key=lambda c: (c.suit != trump, c.rank)))
        return Play(min(legal, key=lambda c: (c.suit == trump, c.rank)))


def _is_master(card: Card, hand: Sequence[Card], gone: set[Card]) -> bool:
    """No unseen card of its suit outranks it."""
    higher = range(card + 1, card.suit * 13 + 13)
    return all(c in gone or c in hand for c in higher)


def _beats(card: Card, played: Sequence[Card], trump: int | None) -> bool:
    """Whether *card* would win the trick as it stands."""
    best = played[0]
    for other in played[1:]:
        if (other.suit == best.suit and other.rank > best.rank) or (
            other.suit == trump and best.suit != trump
        ):
            best = other
    if card.suit == best.suit:
        return card.rank > best.rank
    return card.suit == trump  # a trump beats a side card; any other suit cannot win


if __name__ == "__main__":
    HeuristicBot().run()
