"""What one seat knows about the hidden cards, derived from its :class:`Observation` alone.

A determinising search needs the set of worlds the seat cannot tell apart. This module
turns an observation into that set, as constraints on where each unseen card may be:
every card the seat has not seen is held by one of three *holders* (the two other seats
and the dead pile) and each holder holds a known number of cards. The constraints come
from the rules (docs/rules.md sections 4 to 6):

* a seat that failed to follow suit holds no card of the led suit from then on;
* a receiver of the seat's give holds the given cards that did not come back, and after
  the return holds no card of a given suit above the lowest card returned in that suit
  (the return rule hands back the top cards of each given suit);
* a giver to the seat holds the cards the seat returned to it;
* a dealer's show (docs/rules.md 5) names exactly the kitty cards above the lowest return of a
  suit, so the other cards of that suit above it lie with the third seat;
* the dealer knows the kitty and its own discards.

Two regimes exist. Before the exchange is complete (some leg not resolved) the unknowns
are the *deal*: the other seats' dealt hands and the kitty, and the search replays what
happened since the deal. Once the exchange is complete (or there is none) the unknowns
are the *current* holdings: the other seats' hands now and the dead pile (the kitty, or
the dealer's discards once it is taken), which is all trick play depends on.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arena.game import Card, Observation, RuleSet, Seat, Step

DEAD = 3
"""Holder index of the dead pile: the kitty before the dealer takes it, his discards after."""
HOLDERS = (0, 1, 2, DEAD)
FULL_DECK = (1 << 52) - 1
SUIT_MASK = tuple(0x1FFF << (13 * s) for s in range(4))
DEAL_SIZE = 16
KITTY_SIZE = 4


class Regime(Enum):
    """Which unknowns a sample fixes."""

    DEAL = "deal"
    """Dealt hands and kitty: the exchange is not complete, the search replays the hand."""
    CURRENT = "current"
    """Current hands and dead pile: the exchange is complete (or there is none)."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The seat's knowledge of the hidden cards: the sampler's only input."""

    seat: Seat
    regime: Regime
    own: int
    """Mask of the seat's own cards in this regime: dealt hand (deal) or hand now (current)."""
    known: tuple[int, int, int, int]
    """Per holder (seat 0, 1, 2, dead pile): cards certainly there; the seat's own entry is 0."""
    counts: tuple[int, int, int, int]
    """Per holder: how many cards it holds in total (known ones included); 0 for the seat."""
    allowed: tuple[int, int, int, int]
    """Per holder: the unknown cards it may hold."""
    unknown: int
    """Mask of the cards to place: neither the seat's, nor known, nor played."""
    voids: tuple[int, int, int]
    """Per seat: mask of suits (bit s for suit s) it has shown out of (for tests, reports)."""


def mask_of(cards: tuple[Card, ...] | list[Card]) -> int:
    """The bitmask of some cards (bit *i* for card index *i*)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def played_by_seat(obs: Observation) -> tuple[int, int, int]:
    """Mask of the cards each seat has played this hand, the trick in progress included."""
    played = [0, 0, 0]
    tricks = list(obs.tricks)
    if obs.current_trick is not None:
        tricks.append(obs.current_trick)
    for trick in tricks:
        for i, card in enumerate(trick.cards):
            played[(trick.leader + i) % 3] |= 1 << card
    return (played[0], played[1], played[2])


def shown_out(obs: Observation) -> tuple[int, int, int]:
    """Per seat, the suits (bit per suit) it failed to follow this hand."""
    voids = [0, 0, 0]
    tricks = list(obs.tricks)
    if obs.current_trick is not None:
        tricks.append(obs.current_trick)
    for trick in tricks:
        if not trick.cards:
            continue
        led = trick.cards[0] // 13
        for i, card in enumerate(trick.cards[1:], start=1):
            if card // 13 != led:
                voids[(trick.leader + i) % 3] |= 1 << led
    return (voids[0], voids[1], voids[2])


def kitty_after_exchange(obs: Observation) -> bool:
    """Whether the dealer has taken the kitty *after* this hand's exchange: only then can
    cards that moved in the exchange have been discarded, or kitty cards have joined the
    hand of a dealer who received (every preset but catalan-plus-minus)."""
    return obs.kitty_taken and not _kitty_first(obs.rules)


def _kitty_first(rules: RuleSet) -> bool:
    steps = rules.later_hand_steps
    exchange = [steps.index(s) for s in (Step.EXCHANGE, Step.GIVE) if s in steps]
    return Step.KITTY in steps and bool(exchange) and steps.index(Step.KITTY) < min(exchange)


def _suit_mask(suits: int) -> int:
    return sum(SUIT_MASK[s] for s in range(4) if suits >> s & 1)


def _above(card: int) -> int:
    """Mask of the cards of *card*'s suit ranked above it."""
    top = (card // 13) * 13 + 13
    return ((1 << top) - 1) & ~((1 << (card + 1)) - 1)


def knowledge_of(obs: Observation) -> Knowledge:
    """Derive the seat's knowledge of the hidden cards from its observation."""
    if any(leg.status != "done" for leg in obs.exchange):
        return _deal_knowledge(obs)
    return _current_knowledge(obs)


def _deal_knowledge(obs: Observation) -> Knowledge:
    """Before the exchange completes: the other dealt hands and the kitty are unknown."""
    me, dealer = obs.seat, obs.dealer
    own = mask_of(list(obs.dealt))
    known = [0, 0, 0, 0]
    if me == dealer and obs.kitty is not None:
        known[DEAD] = mask_of(list(obs.kitty))
    counts = [DEAL_SIZE, DEAL_SIZE, DEAL_SIZE, KITTY_SIZE]
    counts[me] = 0
    unknown = FULL_DECK & ~own & ~known[DEAD]
    allowed = [unknown, unknown, unknown, unknown]
    allowed[me] = 0
    for leg in obs.exchange:
        if leg.receiver == me and leg.given is not None:
            # The giver held these cards when giving: dealt to him, or (a dealer who took
            # the kitty first, catalan-plus-minus) possibly from the kitty.
            where = {leg.giver} | ({DEAD} if leg.giver == dealer and obs.kitty_taken else set())
            _restrict(allowed, mask_of(list(leg.given)), where)
    return _finish(obs, Regime.DEAL, own, known, counts, allowed, unknown, (0, 0, 0))


def _current_knowledge(obs: Observation) -> Knowledge:
    """After the exchange: the other hands now and the dead pile are unknown."""
    me, dealer = obs.seat, obs.dealer
    played = played_by_seat(obs)
    all_played = played[0] | played[1] | played[2]
    own = mask_of(list(obs.hand))
    known = [0, 0, 0, 0]
    if me == dealer and obs.kitty is not None:
        # Taken: the dead pile is the discards once made; while discarding, the kitty
        # cards are both in the hand and (for the search's rebuilt deal) the pile.
        known[DEAD] = mask_of(list(obs.discards or ())) if obs.discard_done else 0
    counts = [DEAL_SIZE - played[s].bit_count() for s in range(3)] + [KITTY_SIZE]
    counts[me] = 0
    if me == dealer and obs.kitty is not None and not obs.discard_done:
        counts[DEAD] = 0  # the four cards to discard are still in the seat's hand
    unknown = FULL_DECK & ~own & ~all_played & ~known[DEAD]
    allowed = [unknown, unknown, unknown, unknown]
    allowed[me] = 0
    voids = shown_out(obs)
    for seat in range(3):
        if seat != me:
            allowed[seat] &= ~_suit_mask(voids[seat])
    late_kitty = kitty_after_exchange(obs)
    third = 3 - me - dealer if me != dealer else None
    for leg in obs.exchange:
        if leg.giver == me and leg.given is not None and leg.returned is not None:
            _after_my_give(obs, leg.index, leg.receiver, leg.given, leg.returned, allowed)
        elif leg.receiver == me and leg.returned is not None:
            # What the seat returned is now the giver's (the dealer may have discarded it).
            where = {leg.giver} | ({DEAD} if leg.giver == dealer and late_kitty else set())
            _restrict(allowed, mask_of(list(leg.returned)), where)
    if third is not None:
        for show in obs.shown:
            if show.to != me:
                continue
            _after_show(obs, show.cards, dealer, third, allowed)
    return _finish(obs, Regime.CURRENT, own, known, counts, allowed, unknown, voids)


def _after_my_give(
    obs: Observation,
    index: int,
    receiver: Seat,
    given: tuple[Card, ...],
    returned: tuple[Card, ...],
    allowed: list[int],
) -> None:
    """Constraints from a leg the seat gave in: the cards kept by the receiver, and the
    cards the receiver cannot hold above the lowest return of each given suit."""
    dealer = obs.dealer
    late_kitty = kitty_after_exchange(obs)
    # Later legs into the same receiver may carry kept cards on to their giver (the
    # return takes the top of each given suit of the pool).
    later_givers = {
        leg.giver for leg in obs.exchange if leg.index > index and leg.receiver == receiver
    }
    kept = mask_of(list(given)) & ~mask_of(list(returned))
    where = {receiver} | later_givers | ({DEAD} if receiver == dealer and late_kitty else set())
    _restrict(allowed, kept, where)
    for suit in {card // 13 for card in given}:
        back = [c for c in returned if c // 13 == suit]
        if not back:
            continue  # impossible by the return rule; nothing to learn
        higher = _above(min(back)) & ~mask_of(back)
        # The return leaves the receiver nothing above the lowest returned card of the
        # suit, and later legs cannot change that (higher given cards come straight back).
        # A dealer who took the kitty may hold such cards from it (docs/rules.md 5 says which).
        if not (receiver == dealer and late_kitty):
            allowed[receiver] &= ~higher


def _after_show(
    obs: Observation, shown: tuple[Card, ...], dealer: Seat, third: Seat, allowed: list[int]
) -> None:
    """A show lists exactly the kitty cards of each suit the dealer returned in that rank
    above the lowest return: those are the dealer's or discarded; the rest above it are
    the third seat's (the dealer kept none above it from his own hand)."""
    shown_mask = mask_of(list(shown))
    _restrict(allowed, shown_mask, {dealer, DEAD})
    for leg in obs.exchange:
        if leg.giver != obs.seat or leg.receiver != dealer or leg.returned is None:
            continue
        for suit in {card // 13 for card in leg.returned}:
            lowest = min(c for c in leg.returned if c // 13 == suit)
            hidden = _above(lowest) & ~shown_mask & ~mask_of(list(leg.returned))
            _restrict(allowed, hidden, {third})


def _restrict(allowed: list[int], cards: int, holders: set[int]) -> None:
    """Only *holders* may hold *cards* (cards already placed elsewhere are unaffected)."""
    for holder in HOLDERS:
        if holder not in holders:
            allowed[holder] &= ~cards


def _finish(
    obs: Observation,
    regime: Regime,
    own: int,
    known: list[int],
    counts: list[int],
    allowed: list[int],
    unknown: int,
    voids: tuple[int, int, int],
) -> Knowledge:
    """Move the cards that only one holder may hold from *unknown* to *known*."""
    me = obs.seat
    for holder in HOLDERS:
        if holder == me:
            continue
        others = 0
        for other in HOLDERS:
            if other not in (holder, me):
                others |= allowed[other]
        sure = allowed[holder] & ~others & unknown
        known[holder] |= sure
        unknown &= ~sure
    for holder in HOLDERS:
        allowed[holder] &= unknown
    return Knowledge(
        seat=me,
        regime=regime,
        own=own,
        known=(known[0], known[1], known[2], known[3]),
        counts=(counts[0], counts[1], counts[2], counts[3]),
        allowed=(allowed[0], allowed[1], allowed[2], allowed[3]),
        unknown=unknown,
        voids=voids,
    )
