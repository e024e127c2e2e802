"""The state API: illegal actions change nothing, decisions are all or nothing, clones are
independent, and the step-level and decision-level APIs agree."""

from __future__ import annotations

import random

import pytest

from arena.game import (
    CARDS,
    PRESETS,
    CallTrump,
    Discard,
    GameState,
    Give,
    IllegalActionError,
    Phase,
    Play,
    Trump,
    observe,
    parse_decision,
)
from arena.game.policies import GreedyPolicy, RandomPolicy
from arena.game.record import game_record


def _snapshot(state: GameState) -> object:
    return (game_record(state, ["a", "b", "c"]), list(state.hands), state.phase, state.current_seat)


def _state_at(preset: str, phase: Phase, seed: int = 1) -> GameState:
    rng = random.Random(seed)
    state = GameState(PRESETS[preset], seed)
    while state.phase is not phase:
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(
    ("phase", "bad"),
    [
        (Phase.PLAY, [Trump.S, 52, -1, "AS"]),
        (Phase.TRUMP, [CARDS[0], "S"]),
        (Phase.DISCARD, [Trump.H]),
        (Phase.GIVE, [Trump.H]),
    ],
)
def test_illegal_actions_raise_and_change_nothing(phase: Phase, bad: list[object]) -> None:
    state = _state_at("classic", phase, seed=4)
    held = state.hands[state.current_seat]
    not_held = [c for c in CARDS if not held & (1 << c)]
    before = _snapshot(state)
    for action in [*bad, *not_held[:5]] if phase is not Phase.TRUMP else bad:
        with pytest.raises(IllegalActionError):
            state.apply(action)  # type: ignore[arg-type]
        assert _snapshot(state) == before


def test_revoke_is_refused() -> None:
    rng = random.Random(3)
    state = _state_at("classic", Phase.PLAY, seed=3)
    for _ in range(200):
        if state.trick and len(state.legal_actions()) < len(
            observe(state, state.current_seat).hand
        ):
            break
        state.apply(rng.choice(state.legal_actions()))
    legal = set(state.legal_actions())
    off_suit = next(c for c in observe(state, state.current_seat).hand if c not in legal)
    before = _snapshot(state)
    with pytest.raises(IllegalActionError, match="must follow suit"):
        state.apply_decision(Play(off_suit))
    assert _snapshot(state) == before


def test_no_trump_refused_where_forbidden() -> None:
    state = _state_at("catalan", Phase.TRUMP)
    assert Trump.NT not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="no trump is not allowed"):
        state.apply_decision(CallTrump(Trump.NT))


def test_decisions_are_all_or_nothing() -> None:
    state = _state_at("classic", Phase.DISCARD)
    hand = observe(state, state.current_seat).hand
    before = _snapshot(state)
    not_held = next(c for c in CARDS if c not in hand)
    for bad in [
        Discard(hand[:3]),
        Discard((hand[0], hand[0], hand[1], hand[2])),
        Discard((*hand[:3], not_held)),
        Play(hand[0]),
        Give((hand[:2],)),
    ]:
        with pytest.raises(IllegalActionError):
            state.apply_decision(bad)
        assert _snapshot(state) == before
    state.apply_decision(Discard(hand[:4]))
    assert state.hand.discards == list(hand[:4])


def test_give_is_checked_whole() -> None:
    seed = next(s for s in range(50) if _reaches_give(s))
    state = _state_at("classic", Phase.GIVE, seed=seed)
    request = observe(state, state.current_seat).request
    assert request is not None
    total = sum(n for _, n in request.give_legs)
    before = _snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply_decision(Give((request.cards[: total + 1],)))
    assert _snapshot(state) == before
    chosen = request.cards[:total]
    legs, start = [], 0
    for _, n in request.give_legs:
        legs.append(chosen[start : start + n])
        start += n
    state.apply_decision(Give(tuple(legs)))
    assert state.phase is not Phase.GIVE or state.current_seat != request.give_legs


def _reaches_give(seed: int) -> bool:
    rng = random.Random(seed)
    state = GameState(PRESETS["classic"], seed)
    while not state.is_over:
        if state.phase is Phase.GIVE:
            return True
        state.apply(rng.choice(state.legal_actions()))
    return False


def test_clone_is_independent_and_continues_identically() -> None:
    state = _state_at("catalan-plus-minus", Phase.PLAY, seed=8)
    twin = state.clone()
    rng_a, rng_b = random.Random(1), random.Random(1)
    while not state.is_over:
        state.apply(rng_a.choice(state.legal_actions()))
    assert _snapshot(twin) != _snapshot(state)
    while not twin.is_over:
        twin.apply(rng_b.choice(twin.legal_actions()))
    assert _snapshot(twin) == _snapshot(state)


def test_step_and_decision_level_play_the_same_game() -> None:
    rules = PRESETS["classic-show"]
    a, b = GameState(rules, 21), GameState(rules, 21)
    policies = [GreedyPolicy(), RandomPolicy(5), GreedyPolicy()]
    while not a.is_over:
        decision = policies[a.current_seat].act(observe(a, a.current_seat))
        a.apply_decision(decision)
        steps: list[object] = []
        if isinstance(decision, Play):
            steps = [decision.card]
        elif isinstance(decision, CallTrump):
            steps = [decision.trump]
        elif isinstance(decision, Discard):
            steps = list(decision.cards)
        else:
            steps = [c for leg in decision.legs for c in leg]
        for step in steps:
            b.apply(step)  # type: ignore[arg-type]
    assert game_record(a, ["x"] * 3) == game_record(b, ["x"] * 3)


@pytest.mark.parametrize(
    "text", ["play TS", "trump NT", "trump H", "discard 2C 3C 4C 5C", "give 3S 6H | 4D"]
)
def test_decision_text_round_trip(text: str) -> None:
    decision = parse_decision(text)
    assert parse_decision(str(decision)) == decision


def test_observation_text_form_mentions_the_request() -> None:
    state = _state_at("classic", Phase.TRUMP)
    text = observe(state, state.current_seat).to_text()
    assert "to decide: call trump" in text and "hand:" in text
    other = observe(state, (state.current_seat + 1) % 3).to_text()
    assert "to decide" not in other
