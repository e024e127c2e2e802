"""Playing a sampled world to the end of its hand: a fast play rule and the hand's deltas.

Rollouts run thousands of times per decision, so the play rule reads the few public facts
it needs (trump, contracts, tricks won, the trick in progress, the hands of the sampled world)
straight from the state instead of building an observation per card. Every trick is a
point (over the contract too), so it takes tricks with the cheapest card the later
players cannot beat, throws its cheapest card otherwise, and leads cards nobody can beat. The rare decisions
other than plays (a trump call, discard or give after a pre-play decision) go through
:class:`~arena.game.policies.GreedyPolicy` on a real observation.
"""

from __future__ import annotations

from arena.game import Card, GameState, Phase, observe
from arena.game.policies import GreedyPolicy

_GREEDY = GreedyPolicy()


def trump_suit_of(state: GameState) -> int:
    """The trump suit index, or -1 for no trump or no call yet."""
    trump = state.hand.trump
    suit = None if trump is None else trump.suit
    return -1 if suit is None else int(suit)


def _cost(card: int, trump: int) -> int:
    """How much a card costs to spend: trumps last, then by rank."""
    return card % 13 + (13 if card // 13 == trump else 0)


def _beats(card: int, best: int, trump: int) -> bool:
    """Whether *card* beats *best*, the card now winning the trick."""
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


def _winning(trick: tuple[Card, ...], trump: int) -> int:
    best = trick[0]
    for card in trick[1:]:
        if _beats(card, best, trump):
            best = card
    return best


def _can_beat(hand: int, best: int, led: int, trump: int) -> bool:
    """Whether a seat holding *hand* can beat *best* in a trick led in suit *led*."""
    suit = best // 13
    follow = (hand >> (13 * led)) & 0x1FFF
    if follow:
        # Following suit: only a higher card of the led suit can win, and only if the
        # best card is of that suit.
        return suit == led and follow >> (best % 13 + 1) != 0
    trumps = (hand >> (13 * trump)) & 0x1FFF if trump >= 0 else 0
    if not trumps:
        return False
    return suit != trump or trumps >> (best % 13 + 1) != 0


def chase_play(state: GameState, trump: int) -> Card:
    """A card for the seat to play in a world where every hand is known: every trick is
    worth a point, so take the trick with the cheapest card the players still to come
    cannot beat, and otherwise throw the cheapest card; lead a card nobody can beat."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]  # type: ignore[return-value]  # plays are cards
    cards: list[Card] = sorted(legal, key=lambda c: _cost(c, trump))  # type: ignore[arg-type]
    seat = state.current_seat
    hands = state.hands
    trick = state.trick
    later = [hands[(seat + i) % 3] for i in range(1, 3 - len(trick))]
    if not trick:
        for card in reversed(cards):
            led = card // 13
            if not any(_can_beat(h, card, led, trump) for h in later):
                return card
        return cards[0]
    led = trick[0] // 13
    best = _winning(trick, trump)
    for card in cards:
        if _beats(card, best, trump) and not any(_can_beat(h, card, led, trump) for h in later):
            return card
    return cards[0]


def hand_deltas(state: GameState, before: tuple[int, int, int]) -> tuple[int, int, int]:
    """Score change of each seat since *before* (the scores when the hand started)."""
    s = state.scores
    return (s[0] - before[0], s[1] - before[1], s[2] - before[2])


def rollout(state: GameState) -> tuple[int, int, int]:
    """Play *state* (changed in place) to the end of its hand; each seat's delta."""
    before = (state.scores[0], state.scores[1], state.scores[2])
    number = state.hands_played
    trump = trump_suit_of(state)
    while not state.is_over and state.hands_played == number:
        if state.phase is Phase.PLAY:
            state.apply(chase_play(state, trump))
        else:
            state.apply_decision(_GREEDY.act(observe(state, state.current_seat)))
            trump = trump_suit_of(state)
    return hand_deltas(state, before)
