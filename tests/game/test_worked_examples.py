"""Every worked example of docs/rules.md section 9, with the cards given there."""

from __future__ import annotations

import random

import pytest

from arena.game import (
    PRESETS,
    CallTrump,
    Discard,
    GameState,
    Give,
    Leg,
    Phase,
    Play,
    Trump,
    observe,
    plan_exchange,
    resolve_leg,
)
from arena.game.cards import CARDS, SUIT_MASK, cards_in, mask_of
from arena.game.ending import EndReason, check_end
from arena.game.rules import GiverPriority, NegativeRole, TieRule, WinnerRule
from arena.game.state import legal_play_mask, shuffled_deal, trick_winner

from .helpers import cards, cards_seen, mask, text

S, H, D, C = 0, 1, 2, 3


# ---------------------------------------------------------------- examples 1-3


@pytest.mark.parametrize(
    ("leader", "played", "trump", "winner"),
    [
        (1, "TS 4H 9H", H, 0),  # 1(a): highest trump wins
        (2, "5D 2D AC", H, 2),  # 1(b): the ace is neither trump nor led suit
        (0, "2H AS 3H", H, 2),  # 1(c): trump led, highest trump wins
        (1, "QC KD JC", None, 1),  # 2: no trump, only the led suit wins
        (1, "QC KD JC", D, 2),  # 2: same cards with diamonds trump
    ],
)
def test_trick_winner_examples_1_and_2(
    leader: int, played: str, trump: int | None, winner: int
) -> None:
    assert trick_winner(cards(played), leader, trump) == winner


def test_legal_plays_example_3() -> None:
    assert text(legal_play_mask(mask("AS 2S KH 3D"), S)) == "2S AS"
    assert text(legal_play_mask(mask("KH 3D 9C"), S)) == "KH 3D 9C"
    assert text(legal_play_mask(mask("AS 2S KH 3D"), None)) == "2S AS KH 3D"


# ---------------------------------------------------------------- example 4


def test_scoring_rotation_and_plan_example_4_nine_five_two() -> None:
    rules = PRESETS["classic"]
    assert rules.contracts_for(0) == (9, 5, 2)
    tricks = (7, 6, 3)
    deltas = tuple(t - c for t, c in zip(tricks, rules.contracts_for(0), strict=True))
    assert deltas == (-2, 1, 1)
    upcoming = rules.contracts_for(1)
    assert upcoming == (2, 9, 5)
    assert plan_exchange(deltas, upcoming, GiverPriority.UPCOMING_CONTRACT) == (
        Leg(1, 0, 1),
        Leg(2, 0, 1),
    )


def test_scoring_rotation_and_plan_example_4_nine_two_five() -> None:
    rules = PRESETS["nine-two-five"]
    assert rules.contracts_for(0) == (9, 2, 5)
    upcoming = rules.contracts_for(1)
    assert upcoming == (5, 9, 2)
    legs = plan_exchange((2, -1, -1), upcoming, GiverPriority.UPCOMING_CONTRACT)
    assert {(x.giver, x.receiver, x.count) for x in legs} == {(0, 1, 1), (0, 2, 1)}


def test_contracts_cycle_with_the_deal() -> None:
    classic, nine_two_five = PRESETS["classic"], PRESETS["nine-two-five"]
    assert [classic.contracts_for(d)[0] for d in range(3)] == [9, 2, 5]  # 9 -> 2 -> 5
    assert [nine_two_five.contracts_for(d)[0] for d in range(3)] == [9, 5, 2]  # 9 -> 5 -> 2


# ---------------------------------------------------------------- example 5

EXAMPLE_5 = (
    cards("KS 9S 5S AD 7D AC KC QC JC TC 9C 8C 7C 6C 5C 4C"),
    cards("AS QS JS 3S 2S AH KH 6H 5H 4H KD QD 3D 2D 3C 2C"),
    cards("TS 8S 7S 6S QH JH TH 9H 8H 7H 3H JD TD 9D 8D 6D"),
)
KITTY_5 = cards("4S 2H 5D 4D")


@pytest.mark.parametrize(
    ("given", "returned", "seat0_after_in_suit"),
    [
        ("3S 6H", "KS 6H", ("9S 5S 3S", S)),
        ("2D 3D", "AD 7D", ("2D 3D", D)),
        ("QD 2D", "AD QD", ("2D 7D", D)),
    ],
)
def test_one_up_one_down_example_5(
    given: str, returned: str, seat0_after_in_suit: tuple[str, int]
) -> None:
    state = GameState.from_position(
        PRESETS["classic"], dealer=1, deal=EXAMPLE_5, kitty=KITTY_5, previous_deltas=(-2, 2, 0)
    )
    assert [x.leg for x in state.hand.legs] == [Leg(1, 0, 2)]
    assert state.phase is Phase.GIVE and state.current_seat == 1
    state.apply_decision(Give((cards(given),)))
    assert state.hand.legs[0].returned == tuple(sorted(cards(returned)))
    expected, suit = seat0_after_in_suit
    assert set(cards_in(state.hands[0] & SUIT_MASK[suit])) == set(cards(expected))
    assert state.hands[0] & SUIT_MASK[H] == 0  # seat 0 still has no hearts
    for seat in range(3):
        assert state.hands[seat].bit_count() == 16
        for s in range(4):
            before = mask_of(EXAMPLE_5[seat]) & SUIT_MASK[s]
            assert (state.hands[seat] & SUIT_MASK[s]).bit_count() == before.bit_count()
    assert state.phase is Phase.TRUMP  # classic: exchange, then trump, then kitty


# ---------------------------------------------------------------- example 6

EXAMPLE_6 = (
    cards("AS 8S KH QH 2H AD KD QD JD TD 9D 8D 7D 6D 5D 4D"),
    cards("KS QS AH 9H 7H 3D 2D AC KC QC JC TC 9C 8C 7C 6C"),
    cards("JS TS 9S 7S 6S 5S 3S JH TH 6H 5H 4H 3H 5C 4C 3C"),
)
KITTY_6 = cards("2S 4S 8H 2C")


def test_one_up_two_down_example_6() -> None:
    state = GameState.from_position(
        PRESETS["classic"], dealer=1, deal=EXAMPLE_6, kitty=KITTY_6, previous_deltas=(-3, -1, 4)
    )
    # One giver, two receivers: both legs in one action, receivers by upcoming contract.
    assert [x.leg for x in state.hand.legs] == [Leg(2, 1, 1), Leg(2, 0, 3)]
    assert state.current_seat == 2
    request = observe(state, 2).request
    assert request is not None and request.give_legs == ((1, 1), (0, 3))
    state.apply_decision(Give((cards("3H"), cards("3S 4H 5C"))))
    to_seat1, to_seat0 = state.hand.legs
    assert to_seat0.returned == tuple(sorted(cards("AS KH 5C")))
    assert to_seat1.returned == cards("AH")
    assert text(state.hands[2]) == text(mask("AS JS TS 9S 7S 6S 5S AH KH JH TH 6H 5H 5C 4C 3C"))
    seen0, seen1 = cards_seen(observe(state, 0)), cards_seen(observe(state, 1))
    assert not seen0 & set(cards("3H AH"))
    assert not seen1 & set(cards("3S 4H 5C AS KH"))
    assert set(cards("3S 4H 5C AS KH")) <= seen0  # what seat 0 may know, it does


# ---------------------------------------------------------------- example 7

EXAMPLE_7 = (
    cards("9S 8S 7S 6S 3S 6H 5H 4H 3H 7D 6D 5D 4D 3D 2D 2C"),
    cards("QS 4S AH KH QH JH AD KD QD AC KC QC JC TC 9C 8C"),
    cards("AS JS TS 2S TH 9H 8H 7H JD TD 9D 8D 6C 5C 4C 3C"),
)
KITTY_7 = cards("KS 5S 2H 7C")


@pytest.mark.parametrize("preset", ["classic", "classic-show", "catalan"])
def test_two_up_order_and_show_example_7(preset: str) -> None:
    rules = PRESETS[preset]
    state = GameState.from_position(
        rules, dealer=1, deal=EXAMPLE_7, kitty=KITTY_7, previous_deltas=(1, -2, 1)
    )
    assert [x.leg for x in state.hand.legs] == [Leg(2, 1, 1), Leg(0, 1, 1)]
    assert state.current_seat == 2
    state.apply_decision(Give((cards("2S"),)))
    assert state.hand.legs[0].returned == cards("QS")
    # The second giver has not been told what the first gave or got.
    assert not cards_seen(observe(state, 0)) & set(cards("2S QS"))
    assert state.current_seat == 0
    state.apply_decision(Give((cards("3S"),)))
    assert state.hand.legs[1].returned == cards("4S")
    assert text(state.hands[1] & SUIT_MASK[S]) == "2S 3S"
    state.apply_decision(CallTrump(Trump.H))
    assert state.phase is Phase.DISCARD  # the kitty is in the dealer's hand
    if rules.dealer_show:
        assert [(to, text(m)) for to, m in state.hand.shown] == [(2, "KS"), (0, "5S KS")]
        assert [s.cards for s in observe(state, 2).shown] == [cards("KS")]
        assert [s.cards for s in observe(state, 0).shown] == [tuple(sorted(cards("5S KS")))]
        assert len(observe(state, 1).shown) == 2
        for seat in (0, 2):
            assert not cards_seen(observe(state, seat)) & set(cards("2H 7C"))
    else:
        assert state.hand.shown == []
        assert all(observe(state, seat).shown == () for seat in range(3))


def test_reversed_order_gives_other_cards_example_7() -> None:
    seat1 = mask_of(EXAMPLE_7[1])
    returned, seat1 = resolve_leg(seat1, mask("3S"))
    assert text(returned) == "QS"
    returned, seat1 = resolve_leg(seat1, mask("2S"))
    assert text(returned) == "4S"


# ---------------------------------------------------------------- example 8


def test_priority_rules_disagree_example_8() -> None:
    upcoming = PRESETS["classic"].contracts_for(1)
    deltas = (2, -3, 1)
    assert plan_exchange(deltas, upcoming, GiverPriority.UPCOMING_CONTRACT) == (
        Leg(2, 1, 1),
        Leg(0, 1, 2),
    )
    assert plan_exchange(deltas, upcoming, GiverPriority.MOST_OVERTRICKS) == (
        Leg(0, 1, 2),
        Leg(2, 1, 1),
    )


# ---------------------------------------------------------------- example 9


def _example_9_deal() -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    seat1 = cards("QS 4S AD") + tuple(c for c in CARDS if c.suit == H)
    seat0 = cards("2S 3S 5S 6S 7S 8S 9S TS KD QD JD TD 9D 8D 7D 6D")
    seat2 = cards("AS KS JS 5D 4D 3D 2D 6C 7C 8C 9C TC JC QC KC AC")
    kitty = cards("2C 3C 4C 5C")
    return (seat0, seat1, seat2), kitty


def test_split_exchange_example_9() -> None:
    deal, kitty = _example_9_deal()
    state = GameState.from_position(
        PRESETS["catalan-plus-minus"],
        dealer=1,
        deal=(deal[0], deal[1], deal[2]),
        kitty=kitty,
        previous_deltas=(1, -2, 1),
    )
    assert [x.leg for x in state.hand.legs] == [Leg(0, 1, 1), Leg(2, 1, 1)]
    assert state.phase is Phase.DISCARD and state.current_seat == 1  # kitty first
    state.apply_decision(Discard(kitty))
    assert text(state.hands[1] & SUIT_MASK[S]) == "4S QS"
    state.apply_decision(Give((cards("2S"),)))
    state.apply_decision(Give((cards("KS"),)))
    # Between GIVE and RETURN: the dealer sees both given cards, each giver only his own.
    assert state.phase is Phase.TRUMP
    assert set(cards("2S KS")) <= set(observe(state, 1).hand)
    assert not cards_seen(observe(state, 0)) & set(cards("KS"))
    assert not cards_seen(observe(state, 2)) & set(cards("2S"))
    assert state.hands[1].bit_count() == 18 and state.hands[0].bit_count() == 15
    state.apply_decision(CallTrump(Trump.H))
    assert state.hand.legs[0].returned == cards("QS")  # reading C: from QS 4S 2S
    assert state.hand.legs[1].returned == cards("KS")  # then from 4S 2S KS
    assert text(state.hands[1] & SUIT_MASK[S]) == "2S 4S"
    assert all(h.bit_count() == 16 for h in state.hands)
    assert state.hand.shown == []
    assert state.phase is Phase.PLAY


# ---------------------------------------------------------------- example 10


@pytest.mark.parametrize(
    ("preset", "scores", "overtime", "over", "winners", "reason"),
    [
        ("classic", (10, -4, -6), False, True, (0,), EndReason.TARGET),
        ("classic", (11, 10, -21), False, True, (0,), EndReason.TARGET),
        ("classic", (10, 10, -20), False, False, (), None),
        ("classic", (11, 8, -19), True, True, (0,), EndReason.OVERTIME),
        ("classic", (7, 9, -16), True, True, (1,), EndReason.OVERTIME),
        ("catalan", (11, 11, -22), False, True, (0, 1), EndReason.DRAW),
        ("catalan", (12, 10, -22), False, True, (0,), EndReason.TARGET),
        ("nine-two-five", (3, 12, -15), False, True, (1,), EndReason.NEGATIVE),
        ("classic-pm15", (3, 12, -15), False, True, (1,), EndReason.NEGATIVE),
        ("nine-two-five", (8, 8, -16), False, False, (), None),
        ("classic-pm15", (8, 8, -16), False, False, (), None),
        ("catalan-plus-minus", (15, 0, -15), False, True, (0,), EndReason.TARGET),
        ("catalan-plus-minus", (16, 1, -17), False, True, (2,), EndReason.TARGET),
        ("catalan-plus-minus", (2, 13, -15), False, True, (2,), EndReason.NEGATIVE),
    ],
)
def test_end_of_game_example_10(
    preset: str,
    scores: tuple[int, int, int],
    overtime: bool,
    over: bool,
    winners: tuple[int, ...],
    reason: EndReason | None,
) -> None:
    assert sum(scores) == 0
    check = check_end(PRESETS[preset], scores, 5, overtime)
    assert (check.over, check.winners, check.reason) == (over, winners, reason)
    if not over:
        assert check.overtime  # a tie at the top goes to sudden-death overtime


def test_end_of_game_alternative_catalan_setting_example_10() -> None:
    rules = PRESETS["catalan-plus-minus"].replace(
        negative_role=NegativeRole.ENDS_GAME, winner_rule=WinnerRule.HIGHEST, tie_rule=TieRule.DRAW
    )
    check = check_end(rules, (2, 13, -15), 5, False)
    assert check.winners == (1,)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_cap_example_10(preset: str) -> None:
    rules = PRESETS[preset]
    assert check_end(rules, (4, -1, -3), 99, False).winners == (0,)
    assert check_end(rules, (4, -1, -3), 99, False).reason is EndReason.CAPPED
    capped_draw = check_end(rules, (2, 2, -4), 99, False)
    assert (capped_draw.winners, capped_draw.reason) == ((0, 1), EndReason.CAPPED)
    assert not check_end(rules, (2, 2, -4), 98, False).over


# ---------------------------------------------------------------- example 11


def test_nine_two_five_later_hand_example_11() -> None:
    deal, kitty = shuffled_deal(random.Random(11), 1)
    state = GameState.from_position(
        PRESETS["nine-two-five"],
        dealer=1,
        deal=(cards_in(deal[0]), cards_in(deal[1]), cards_in(deal[2])),
        kitty=cards_in(kitty),
        previous_deltas=(0, 2, -2),
    )
    assert state.hand.contracts == (5, 9, 2)
    for seat in range(3):
        obs = observe(state, seat)
        assert [(x.giver, x.receiver, x.count) for x in obs.exchange] == [(1, 2, 2)]
        assert obs.previous_deltas == (0, 2, -2)
    assert state.phase is Phase.TRUMP and state.current_seat == 1  # trump before all else
    assert observe(state, 1).kitty is None
    state.apply_decision(CallTrump(Trump.S))
    assert state.phase is Phase.GIVE and state.current_seat == 1
    give = cards_in(state.hands[1])[:2]
    state.apply_decision(Give((give,)))
    leg0 = observe(state, 0).exchange[0]
    leg2 = observe(state, 2).exchange[0]
    assert (leg0.status, leg0.given, leg0.returned) == ("done", None, None)
    assert leg2.given == tuple(sorted(give)) and leg2.returned is not None
    assert observe(state, 1).exchange[0].returned == leg2.returned
    assert state.phase is Phase.DISCARD
    dealer_view = observe(state, 1)
    assert dealer_view.kitty == cards_in(kitty) and len(dealer_view.hand) == 20
    for seat in (0, 2):
        view = observe(state, seat)
        assert view.kitty_taken and view.kitty is None
        assert not cards_seen(view) & set(cards_in(kitty))
    state.apply_decision(Discard(cards_in(kitty)))
    assert state.hand.shown == []
    assert state.phase is Phase.PLAY and state.current_seat == 1  # the dealer leads
    assert observe(state, 0).discard_done and observe(state, 0).discards is None
    state.apply_decision(Play(observe(state, 1).request.cards[0]))  # type: ignore[union-attr]
    assert state.current_seat == 2


# ---------------------------------------------------------------- example 12
# (property checks over many random exchanges live in test_exchange_properties.py)
