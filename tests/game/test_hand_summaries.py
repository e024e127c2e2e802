"""Every observation's ``history`` is the public result of each hand scored so far: the
engine makes a hand's summary once, as it scores the hand, so these tests check it against
the hand logs at every decision of whole games, in clones, and from a set position."""

from __future__ import annotations

import random

import pytest

from arena.game import PRESETS, GameState, observe
from arena.game.state import HandLog
from arena.game.values import HandSummary
from tests.presets import every_preset


def _from_log(log: HandLog) -> HandSummary:
    """A scored hand's summary, made here from its log, independently of the engine."""
    assert log.trump is not None and log.deltas is not None and log.scores is not None
    won = log.tricks_won
    return HandSummary(
        log.number,
        log.dealer,
        log.contracts,
        log.trump,
        (won[0], won[1], won[2]),
        log.deltas,
        log.scores,
    )


def _expected(state: GameState) -> tuple[HandSummary, ...]:
    scored = state.history if state.is_over else state.history[:-1]
    return tuple(_from_log(log) for log in scored)


def _check(state: GameState) -> None:
    expected = _expected(state)
    for seat in range(3):
        assert observe(state, seat).history == expected
    # The scores after each hand are the running sums of the deltas (not only what the
    # log says): a summary holding the scores before its hand would fail here.
    running = [0, 0, 0] if not expected else list(state.history[0].scores_before)
    for summary in expected:
        running = [running[s] + summary.deltas[s] for s in range(3)]
        assert summary.scores == tuple(running)
        assert summary.tricks_won == tuple(
            summary.contracts[s] + summary.deltas[s] for s in range(3)
        )


@pytest.mark.parametrize("preset", every_preset())
def test_history_is_every_scored_hand_at_every_decision(preset: str) -> None:
    rng = random.Random(7)
    state = GameState(PRESETS[preset], 11)
    while not state.is_over:
        _check(state)
        state.apply(rng.choice(state.legal_actions()))
    _check(state)
    assert len(observe(state, 0).history) == state.hands_played > 1


def test_a_clone_goes_on_with_its_own_history() -> None:
    rng = random.Random(3)
    state = GameState(PRESETS["classic"], 5)
    while state.hands_played < 2:
        state.apply(rng.choice(state.legal_actions()))
    clone = state.clone()
    shared = observe(state, 0).history
    while clone.hands_played < 3 and not clone.is_over:
        clone.apply(rng.choice(clone.legal_actions()))
        _check(clone)
    assert observe(state, 0).history == shared  # the original did not move on
    assert observe(clone, 0).history[: len(shared)] == shared


def test_a_game_set_up_at_a_later_hand_has_no_history_before_it() -> None:
    rng = random.Random(2)
    played = GameState(PRESETS["classic"], 9)
    while played.hands_played < 1:
        played.apply(rng.choice(played.legal_actions()))
    log = played.hand
    state = GameState.from_position(
        PRESETS["classic"],
        dealer=log.dealer,
        deal=(
            [c for c in range(52) if log.deal[0] >> c & 1],
            [c for c in range(52) if log.deal[1] >> c & 1],
            [c for c in range(52) if log.deal[2] >> c & 1],
        ),
        kitty=[c for c in range(52) if log.kitty >> c & 1],
        previous_deltas=played.history[0].deltas,
        scores=(3, -2, -1),
        hands_played=4,
    )
    assert observe(state, 0).history == ()
    while state.hands_played < 5 and not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    _check(state)
    assert [s.number for s in observe(state, 0).history] == [5]
    assert observe(state, 0).history[0].scores == tuple(
        (3, -2, -1)[s] + observe(state, 0).history[0].deltas[s] for s in range(3)
    )
