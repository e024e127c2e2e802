"""Unwinding a hand from where its cards are now back to its deal (for the resampler).

Once a hand's exchange is complete, the search's sampler draws where the hidden cards are
*now* (:class:`~arena.search.Regime` ``CURRENT``): the other seats' hands and the dead pile.
An OpenSpiel state needs more: the deal, and the other seats' hidden choices (gives the
seat was not party to, the dealer's discards) that lead from it to the world. This module
finds them by undoing the hand's steps in reverse:

* the kitty: a dealer who took it held his hand and his discards; four of those twenty
  cards were the kitty. The seat's own dealer knows them; otherwise they are drawn among
  the cards that can have been there (never a card the seat held; always the cards shown
  to it, and the cards above what the dealer returned to it, which he cannot have kept:
  docs/rules.md 5);
* each exchange leg, last first. A leg the seat was party to is undone exactly (it saw
  the cards both ways). A leg it did not see is undone with a give the return rule
  explains (docs/rules.md 4.6): the returned cards are cards of the giver now that outrank
  every card of their suit the receiver holds now; the giver gave the same cards back,
  except for cards an earlier leg of the seat's says the receiver must have held (a first
  giver's kept cards that a second giver's return took on), which the giver is made to
  have received in exchange for cards of the same suits the receiver keeps.

Every undone leg is checked with the engine's own return rule, so the unwinding is exact
or reports that *world* cannot have come from any deal (``None``): the sampler then draws
another. The hidden choices do not change the world, only how it came about, which the
seat cannot see.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from arena.game import Observation, Phase, resolve_leg
from arena.game.observation import LegView
from arena.search.knowledge import DEAD, kitty_after_exchange, played_by_seat

KITTY_TRIES = 8
"""Kitties tried for one world before it is given up (hidden legs may fit only some)."""


@dataclass(frozen=True, slots=True)
class Unwound:
    """How a world came about: the deal, and the hidden picks of the other seats."""

    deal: tuple[int, int, int]
    """Each seat's dealt cards (masks)."""
    kitty: int
    picks: dict[tuple[int, Phase], list[int]]
    """(seat, phase) -> that seat's picks in that phase, in order: the whole give of a giver
    with a leg the seat did not see, the dealer's discards the seat did not see."""


def unwind(
    obs: Observation,
    world: tuple[int, int, int, int],
    picks_made: dict[tuple[int, Phase], list[int]],
    rng: random.Random,
) -> Unwound | None:
    """The deal and hidden picks behind *world* (seat 0, 1, 2, dead pile), or ``None``.

    *picks_made* are the real hidden picks (how many there were, and the picks of a give
    into this seat's leg, which it saw).
    """
    me, dealer = obs.seat, obs.dealer
    played = played_by_seat(obs)
    now = [world[s] | played[s] for s in range(3)]
    if me == dealer:
        now[me] = _mask(obs.hand) | played[me]
    # The dead pile: the discards (so far) once the kitty is taken, the kitty before.
    dead = world[DEAD]
    if me == dealer and obs.kitty_taken:
        dead = _mask(obs.discards or ())
    kitty_first = obs.kitty_taken and not kitty_after_exchange(obs)
    for _ in range(KITTY_TRIES):
        hands = list(now)
        kitty = dead
        if obs.kitty_taken and not kitty_first:
            chosen = _kitty(obs, hands[dealer] | dead, rng)
            if chosen is None:
                return None
            kitty = chosen
            hands[dealer] = (hands[dealer] | dead) & ~kitty
        gives = _undo_legs(obs, hands, rng)
        if gives is None:
            continue
        if kitty_first:
            chosen = _kitty(obs, hands[dealer] | dead, rng)
            if chosen is None:
                return None
            kitty = chosen
            hands[dealer] = (hands[dealer] | dead) & ~kitty
        if hands[me] != _mask(obs.dealt):
            return None
        picks = _picks(obs, gives, picks_made, dead, rng)
        return Unwound(deal=(hands[0], hands[1], hands[2]), kitty=kitty, picks=picks)
    return None


def _kitty(obs: Observation, pool: int, rng: random.Random) -> int | None:
    """Four of the dealer's twenty cards (*pool*: his hand and discards) as the kitty."""
    if obs.seat == obs.dealer:
        return _mask(obs.kitty or ())
    out = pool & _mask(obs.dealt)  # cards this seat held were dealt, not the kitty
    must = 0
    if kitty_after_exchange(obs):
        # (When the kitty came first, in catalan-plus-minus, a dealer's give may hold kitty
        # cards, and the shows do not exist.)
        for leg in obs.exchange:
            if leg.receiver == obs.seat and leg.given is not None:
                out |= pool & _mask(leg.given)
            if leg.giver == obs.seat and leg.receiver == obs.dealer and leg.returned:
                for card in leg.returned:
                    lowest = min(c for c in leg.returned if c // 13 == card // 13)
                    must |= pool & _above(lowest) & ~_mask(leg.returned)
        for show in obs.shown:
            must |= pool & _mask(show.cards)
    free = [c for c in range(52) if (pool & ~out & ~must) >> c & 1]
    need = 4 - must.bit_count()
    if need < 0 or len(free) < need or must & out:
        return None
    return must | _mask(rng.sample(free, need))


def _undo_legs(obs: Observation, hands: list[int], rng: random.Random) -> dict[int, int] | None:
    """Undo the exchange in *hands* (last leg first); the hidden legs' gives by leg index."""
    gives: dict[int, int] = {}
    for leg in reversed(obs.exchange):
        giver, receiver = leg.giver, leg.receiver
        if leg.given is not None and leg.returned is not None:
            given, returned = _mask(leg.given), _mask(leg.returned)
        else:
            picked = _hidden_leg(obs, leg, hands, rng)
            if picked is None:
                return None
            given, returned = picked
            gives[leg.index] = given
        before = (hands[receiver] | returned) & ~given
        if (returned & ~given & ~hands[giver]) or (given & ~returned & ~hands[receiver]):
            return None
        if resolve_leg(before, given) != (returned, hands[receiver]):
            return None
        hands[giver] = (hands[giver] & ~returned) | given
        hands[receiver] = before
    return gives


def _hidden_leg(
    obs: Observation, leg: LegView, hands: list[int], rng: random.Random
) -> tuple[int, int] | None:
    """A give and its return that explain *leg* (which the seat did not see), or ``None``."""
    giver, receiver = leg.giver, leg.receiver
    reserved = 0  # the giver's cards in its other legs, which the seat saw
    held_before = 0  # cards an earlier leg of the seat's says the receiver held after this one
    for other in obs.exchange:
        if other.given is None or other.returned is None or other.index == leg.index:
            continue
        if other.giver == giver:
            reserved |= _mask(other.given) | _mask(other.returned)
        if other.receiver == receiver and other.index < leg.index:
            held_before |= _mask(other.given) & ~_mask(other.returned)
    tops = [_top(hands[receiver] & (0x1FFF << (13 * s))) for s in range(4)]
    above = [c for c in range(52) if (hands[giver] & ~reserved) >> c & 1 and c > tops[c // 13]]
    back = [c for c in above if held_before >> c & 1]  # must end with the receiver again
    rest = [c for c in above if not held_before >> c & 1]
    if len(back) > leg.count or len(back) + len(rest) < leg.count:
        return None
    returned = back + rng.sample(rest, leg.count - len(back))
    # For each card the receiver must get back, the giver gave a card of the same suit
    # that the receiver keeps.
    kept = hands[receiver] & ~held_before
    swapped = []
    for card in back:
        options = [c for c in range(card // 13 * 13, card // 13 * 13 + 13) if kept >> c & 1]
        options = [c for c in options if c not in swapped]
        if not options:
            return None
        swapped.append(rng.choice(options))
    given = _mask([c for c in returned if c not in back] + swapped)
    return given, _mask(returned)


def _picks(
    obs: Observation,
    gives: dict[int, int],
    picks_made: dict[tuple[int, Phase], list[int]],
    dead: int,
    rng: random.Random,
) -> dict[tuple[int, Phase], list[int]]:
    """The other seats' hidden picks: whole gives (with the seen legs' real picks) and the
    dealer's discards, as many as were made."""
    picks: dict[tuple[int, Phase], list[int]] = {}
    givers = {obs.exchange[i].giver for i in gives}
    for giver in givers:
        real = list(picks_made.get((giver, Phase.GIVE), []))
        sequence: list[int] = []
        for leg in obs.exchange:
            if leg.giver != giver:
                continue
            segment, real = real[: leg.count], real[leg.count :]
            if leg.index in gives:
                segment = [c for c in range(52) if gives[leg.index] >> c & 1]
                rng.shuffle(segment)
            sequence += segment
        picks[(giver, Phase.GIVE)] = sequence
    made = len(picks_made.get((obs.dealer, Phase.DISCARD), []))
    if obs.seat != obs.dealer and made:
        discards = [c for c in range(52) if dead >> c & 1]
        rng.shuffle(discards)
        picks[(obs.dealer, Phase.DISCARD)] = discards[:made]
    return picks


def _top(mask: int) -> int:
    """The highest card of a suit's mask, or -1 (every card of the suit outranks it)."""
    return mask.bit_length() - 1 if mask else -1


def _above(card: int) -> int:
    """Mask of the cards of *card*'s suit ranked above it."""
    top = (card // 13) * 13 + 13
    return ((1 << top) - 1) & ~((1 << (card + 1)) - 1)


def _mask(cards: Iterable[int]) -> int:
    """The mask of some cards (bit *i* for card index *i*)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask
