"""heuristic_bot: a simple card-counting player, deterministic, built on the Python SDK.

* Trump: the suit with the best length and high cards; no trump only with a hand full of
  aces and kings.
* Discard: keep trumps and winners; throw the lowest side cards, shortest suits first, to
  make voids it can trump into.
* Give: its weakest side cards (low cards come back as the receiver's best of that suit).
* Play: every trick is a point, over the contract too (a seat scores tricks minus
  contract), so it never ducks on purpose: it leads its masters (cards no unseen card
  outranks), wins as last player with its cheapest winner, wins as second player only
  with a master (or by trumping), and otherwise throws its cheapest card, low side cards
  of short suits first, to make voids it can trump into. (Ducking once the contract is
  made, as the SDK's greedy policy does, gives those points away.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.sdk import Bot, CallTrump, Card, Discard, Give, Play, Trump, Turn

HONOURS = {12: 4, 11: 3, 10: 2, 9: 1}  # A K Q J


class HeuristicBot(Bot):
    name, version = "heuristic_bot", "1.1.0"

    def trump(self, obs: Turn) -> CallTrump:
        request = obs.request

        def strength(option: Trump) -> float:
            if option.suit is None:
                tops = sum(1 for c in obs.hand if c.rank >= 11)
                return 2.5 * tops - 4
            cards = [c for c in obs.hand if c.suit == option.suit]
            return 2 * len(cards) + sum(HONOURS.get(c.rank, 0) for c in cards)

        return CallTrump(max(request.trump_options, key=strength))

    def discard(self, obs: Turn) -> Discard:
        request = obs.request
        trump = obs.trump.suit if obs.trump is not None else None
        lengths = Counter(c.suit for c in request.cards)

        def keep(card: Card) -> tuple[int, int, int]:
            is_trump = trump is not None and card.suit == trump
            return (is_trump, card.rank >= 11, lengths[card.suit] * 13 + card.rank)

        return Discard(tuple(sorted(request.cards, key=keep)[: request.discard_count]))

    def give(self, obs: Turn) -> Give:
        request = obs.request
        trump = obs.trump.suit if obs.trump is not None else None
        weakest = sorted(request.cards, key=lambda c: (c.suit == trump, c.rank))
        legs, start = [], 0
        for _, count in request.give_legs:
            legs.append(tuple(weakest[start : start + count]))
            start += count
        return Give(tuple(legs))

    def play(self, obs: Turn) -> Play:
        request = obs.request
        assert obs.current_trick is not None  # set whenever a card is to be played
        legal = request.cards
        trump = obs.trump.suit if obs.trump is not None else None
        played = obs.current_trick.cards
        gone = {c for t in obs.tricks for c in t.cards} | set(played)
        # Every trick is worth a point, over the contract too: never duck on purpose.
        if not played:
            masters = [c for c in legal if _is_master(c, obs.hand, gone)]
            side = [c for c in masters if c.suit != trump]
            if side or masters:
                return Play(max(side or masters, key=lambda c: c.rank))
            return Play(_lowest(legal, trump, obs.hand))
        winners = [c for c in legal if _beats(c, played, trump)]
        if winners:
            if len(played) == 2:  # last to play: the cheapest winner is enough
                return Play(min(winners, key=lambda c: (c.suit == trump, c.rank)))
            sure = [c for c in winners if _is_master(c, obs.hand, gone)]
            if sure:  # second to play: win only with a card nobody can beat in suit
                return Play(min(sure, key=lambda c: (c.suit == trump, c.rank)))
            if any(c.suit == trump for c in winners) and played[0].suit != trump:
                return Play(min(winners, key=lambda c: (c.suit == trump, c.rank)))
        return Play(_lowest(legal, trump, obs.hand))


def _lowest(legal: Sequence[Card], trump: int | None, hand: Sequence[Card]) -> Card:
    """The card that costs least to lose: a low side card, from a short suit first."""
    length = Counter(c.suit for c in hand)
    return min(legal, key=lambda c: (c.suit == trump, c.rank, length[c.suit]))


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
