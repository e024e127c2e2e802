"""The exact endgame search agrees with brute force on small endings."""

from __future__ import annotations

import random

import pytest

from arena.game import Card, GameState, Phase
from arena.search import build_state, knowledge_of, sample_world
from arena.search.endgame import best_plays, tricks_left
from tests.search.worlds import decision_points

Payoff = tuple[int, int, int]


def brute(state: GameState, root: int, before: Payoff, number: int) -> Payoff:
    """Plain max-n by full enumeration (no pruning), same tie rule: the seat to play
    maximises its own delta; among equal ones an opponent of *root* takes the worst for
    *root*, *root* the first."""
    if state.is_over or state.hands_played != number or state.phase is not Phase.PLAY:
        return (state.scores[0] - before[0], state.scores[1] - before[1],
                state.scores[2] - before[2])  # fmt: skip
    seat = state.current_seat
    values = []
    for card in state.legal_actions():
        child = state.clone()
        child.apply(card)
        values.append(brute(child, root, before, number))
    best = values[0]
    for value in values[1:]:
        if value[seat] > best[seat] or (
            value[seat] == best[seat] and seat != root and value[root] < best[root]
        ):
            best = value
    return best


def endings(preset: str, tricks: int, count: int) -> list[tuple[GameState, int]]:
    """Sampled worlds at plays with at most *tricks* tricks left."""
    rng = random.Random(preset)
    out = []
    for _, obs in decision_points(preset, games=3, seed=2):
        if obs.phase is Phase.PLAY and 16 - len(obs.tricks) <= tricks:
            k = knowledge_of(obs)
            out.append((build_state(obs, k.regime, sample_world(k, rng)), obs.seat))
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize("preset", ["classic", "nine-two-five", "catalan-plus-minus"])
def test_endgame_search_matches_brute_force(preset: str) -> None:
    cases = endings(preset, tricks=3, count=25)
    assert len(cases) == 25
    for state, seat in cases:
        before = (state.scores[0], state.scores[1], state.scores[2])
        got = best_plays(state, seat)
        for card in state.legal_actions():
            child = state.clone()
            child.apply(card)
            assert isinstance(card, Card)
            assert got[card] == brute(child, seat, before, state.hands_played)
        assert tricks_left(state) <= 3


def test_every_legal_card_gets_a_payoff_that_sums_to_zero() -> None:
    for state, seat in endings("classic", tricks=1, count=10):
        payoffs = best_plays(state, seat)
        assert set(payoffs) == set(state.legal_actions())
        assert all(sum(p) == 0 for p in payoffs.values())  # deltas always sum to zero
