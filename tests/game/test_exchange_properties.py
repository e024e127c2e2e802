"""Example 12 and docs/rules.md 4.6 as properties over random exchanges (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import resolve_leg
from arena.game.cards import SUIT_MASK, cards_in, mask_of


@st.composite
def legs(draw: st.DrawFn) -> tuple[int, int, list[int]]:
    """(receiver hand, given cards, an order to give them in): disjoint 16-card hands."""
    deck = draw(st.permutations(range(52)))
    receiver = mask_of(deck[:16])
    giver = deck[16:32]
    count = draw(st.integers(min_value=1, max_value=9))
    given = draw(st.permutations(giver))[:count]
    return receiver, mask_of(given), list(given)


@settings(max_examples=200, deadline=None)
@given(legs())
def test_return_rule_properties(leg: tuple[int, int, list[int]]) -> None:
    """200 random exchanges: enough to catch a broken rule in the fast tier (make check)."""
    _check_return_rule(leg)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(legs())
def test_return_rule_properties_at_length(leg: tuple[int, int, list[int]]) -> None:
    """The same properties over 2,000 exchanges (about 8 s; make test runs it)."""
    _check_return_rule(leg)


def _check_return_rule(leg: tuple[int, int, list[int]]) -> None:
    receiver, given, order = leg
    returned, new_receiver = resolve_leg(receiver, given)
    assert returned.bit_count() == given.bit_count()
    assert new_receiver.bit_count() == 16
    assert new_receiver | returned == receiver | given and not new_receiver & returned
    for suit in SUIT_MASK:
        assert (returned & suit).bit_count() == (given & suit).bit_count()  # suit counts kept
        g = sorted((c % 13 for c in cards_in(given & suit)), reverse=True)
        r = sorted((c % 13 for c in cards_in(returned & suit)), reverse=True)
        assert all(rr >= gg for rr, gg in zip(r, g, strict=True))  # never weaker
        top = max((c % 13 for c in cards_in(receiver & suit)), default=-1)
        for card in cards_in(given & suit):
            if card % 13 > top:  # outranks the receiver's suit, or the receiver is void
                assert returned & (1 << card)
    # One card at a time, in any order, returns the same set (docs/rules.md 4.6, last bullet).
    hand, one_by_one = receiver, 0
    for card in order:
        pool = hand | (1 << card)
        suit_cards = pool & SUIT_MASK[card // 13]
        top_bit = 1 << (suit_cards.bit_length() - 1)
        one_by_one |= top_bit
        hand = pool & ~top_bit
    assert one_by_one == returned and hand == new_receiver
