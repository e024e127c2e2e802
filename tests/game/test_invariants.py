"""Invariants over thousands of random games, every preset (OpenSpiel random_sim_test style).

Every step is checked against rules re-derived here from docs/rules.md, not against the engine's
own helpers: cards are conserved, plays are legal, trick winners and scores are right,
exchanges keep suit counts and never weaken a giver, and the game ends exactly when
section 7 says.
"""

from __future__ import annotations

import random

import pytest

from arena.game import PRESETS, GameState, Phase, RuleSet, Trump
from arena.game.cards import FULL_DECK, SUIT_MASK, TRUMP_ORDER, cards_in, mask_of
from arena.game.rules import NegativeRole, TieRule, WinnerRule
from arena.game.state import HandLog
from tests.presets import every_preset

GAMES_PER_PRESET = 600


def _winner(cards: tuple[int, int, int], leader: int, trump: Trump) -> int:
    led = cards[0] // 13
    trump_suit = trump.suit
    trumps = [i for i in range(3) if trump_suit is not None and cards[i] // 13 == trump_suit]
    pool = trumps or [i for i in range(3) if cards[i] // 13 == led]
    best = max(pool, key=lambda i: cards[i] % 13)
    return (leader + best) % 3


def _expected_end(
    rules: RuleSet, scores: list[int], hand_no: int, overtime: bool
) -> tuple[bool, bool]:
    """(game over, overtime) after a hand, straight from docs/rules.md 7."""
    hit = any(x >= rules.target for x in scores) or (
        rules.negative_target is not None and any(x <= rules.negative_target for x in scores)
    )
    if hit or overtime:
        if rules.winner_rule is WinnerRule.LARGEST_EXCESS:
            return True, False
        if scores.count(max(scores)) == 1 or rules.tie_rule is TieRule.DRAW:
            return True, False
        overtime = True
    return hand_no >= rules.max_hands, overtime


def _check_cards_conserved(state: GameState) -> None:
    hand = state.hand
    played = mask_of(c for t in hand.tricks for c in t.cards) | mask_of(state.trick)
    held = state.hands[0] | state.hands[1] | state.hands[2]
    kitty = 0 if hand.kitty_taken else hand.kitty
    discards = mask_of(hand.discards)
    parts = [state.hands[0], state.hands[1], state.hands[2], kitty, discards, played]
    assert sum(p.bit_count() for p in parts) == 52
    assert held | kitty | discards | played == FULL_DECK


def _check_exchange(state: GameState) -> None:
    hand = state.hand
    for log in hand.legs:
        given, returned = mask_of(log.given), mask_of(log.returned)
        assert given.bit_count() == returned.bit_count() == log.leg.count
        for suit_mask in SUIT_MASK:
            g = sorted((c % 13 for c in cards_in(given & suit_mask)), reverse=True)
            r = sorted((c % 13 for c in cards_in(returned & suit_mask)), reverse=True)
            assert len(g) == len(r)  # suit counts unchanged
            assert all(rr >= gg for rr, gg in zip(r, g, strict=True))  # never weaker


def _check_legal(state: GameState, legal: tuple[object, ...]) -> None:
    keys = [TRUMP_ORDER.index(a) if isinstance(a, Trump) else int(a) for a in legal]  # type: ignore[call-overload]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    if state.phase is Phase.PLAY:
        hand_mask = state.hands[state.current_seat]
        follow = hand_mask & SUIT_MASK[state.trick[0] // 13] if state.trick else 0
        assert mask_of(legal) == (follow or hand_mask)  # type: ignore[arg-type]


def _check_scored_hand(log: HandLog, scores: list[int], first_dealer: int) -> None:
    assert len(log.tricks) == 16 and sum(log.tricks_won) == 16
    assert log.deltas == tuple(w - c for w, c in zip(log.tricks_won, log.contracts, strict=True))
    assert sum(log.deltas) == 0
    assert log.scores == tuple(scores) and sum(scores) == 0
    assert log.dealer == (first_dealer + log.number - 1) % 3
    assert all(leg.is_done for leg in log.legs)


def _check_play_starts(state: GameState) -> None:
    log = state.hand
    _check_exchange(state)
    assert all(h.bit_count() == 16 for h in state.hands)
    for _, shown in log.shown:
        assert shown & ~log.kitty == 0


def _check_result(rules: RuleSet, state: GameState, scores: list[int], hands: int) -> None:
    result = state.result
    assert result is not None
    assert result.hands_played == hands == len(state.history)
    assert list(result.scores) == scores
    if rules.winner_rule is WinnerRule.HIGHEST:
        assert all(scores[w] == max(scores) for w in result.winners)
    if rules.negative_role is NegativeRole.OBJECTIVE:
        negative = rules.negative_target or 0
        for w in result.winners:
            reached = scores[w] >= rules.target or scores[w] <= negative
            assert reached or result.reason.value == "capped"


@pytest.mark.slow
@pytest.mark.parametrize("preset", every_preset())
def test_random_games_keep_every_invariant(preset: str) -> None:
    rules = PRESETS[preset]
    rng = random.Random(f"invariants-{preset}")
    total_hands = 0
    for game in range(GAMES_PER_PRESET):
        state = GameState(rules, game)
        overtime = False
        scores = [0, 0, 0]
        hands_seen = 0
        while not state.is_over:
            _check_cards_conserved(state)
            legal = state.legal_actions()
            _check_legal(state, legal)
            log = state.hand
            tricks_before = len(log.tricks)
            state.apply(rng.choice(legal))
            if len(log.tricks) > tricks_before:
                trick = log.tricks[-1]
                assert log.trump is not None
                assert trick.winner == _winner(trick.cards, trick.leader, log.trump)
            if log.deltas is not None and log.number > hands_seen:
                hands_seen = log.number
                scores = [s + d for s, d in zip(scores, log.deltas, strict=True)]
                _check_scored_hand(log, scores, state.first_dealer)
                over, overtime = _expected_end(rules, scores, log.number, overtime)
                assert state.is_over == over, f"game {game} hand {log.number}"
            if state.phase is Phase.PLAY and not state.trick and not state.hand.tricks:
                _check_play_starts(state)
        _check_result(rules, state, scores, hands_seen)
        total_hands += hands_seen
    assert total_hands > GAMES_PER_PRESET  # games really ran several hands
