"""The resampler ISMCTS relies on never fails and never lies, exchanges included.

Seeded random games in every preset are resampled at their decision points, for the seat
to act (what ``ISMCTSBot`` asks) and, less densely, for the two others (the resampler
takes any seat). Every resample must return, with the seat's information-state string
unchanged. The games are random play with a few hands each, so exchanges are frequent
and large, and positions where the seat was not party to every leg (a hidden give, a
dealer's unseen kitty and discards, a show) are many: the rejection sampler this one
replaced raised ``RuntimeError`` in some of them. A control shows the states returned
do differ from the real one in the other seats' hidden cards.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.envs.optional import require
from tests.presets import every_preset

require("pyspiel", "bench")

import pyspiel  # noqa: E402  # optional: after the check above

import arena.envs.openspiel  # noqa: E402, F401  # registers the game

GAMES = 2
"""Random games per preset (three hands each: hands 2 and 3 usually have an exchange)."""
OTHERS_EVERY = 5
"""The two other seats are resampled at every fifth decision point."""


def decision_points(preset: str, seed: int) -> list[Any]:
    """Every decision point of *GAMES* seeded random games of *preset* (three hands)."""
    game = pyspiel.load_game("python_nine_five_two", {"ruleset": preset, "max_hands": 3})
    rng = random.Random(f"{preset}-{seed}")
    points = []
    for _ in range(GAMES):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            points.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return points


def after_an_exchange(state: Any, seat: int) -> bool:
    """Whether this hand has an exchange leg the seat was not party to."""
    return any(seat not in (leg.giver, leg.receiver) for leg in state.view(seat).exchange)


@pytest.mark.parametrize("preset", every_preset())
def test_every_resample_keeps_the_information_state(preset: str) -> None:
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    failures: list[str] = []
    checked = hidden_legs = moved = 0
    for index, state in enumerate(decision_points(preset, seed=0)):
        actor = state.current_player()
        seats = range(3) if index % OTHERS_EVERY == 0 else (actor,)
        for seat in seats:
            target = state.information_state_string(seat)
            try:
                sampled = state.resample_from_infostate(seat, sampler)
            except RuntimeError as exc:
                failures.append(f"seat {seat}: {exc}")
                continue
            if sampled.information_state_string(seat) != target:
                failures.append(f"seat {seat}: a different information state\n{target}")
                continue
            checked += 1
            hidden_legs += after_an_exchange(state, seat)
            other = (seat + 1) % 3
            moved += sampled.view(other).hand != state.view(other).hand
    assert failures == [], f"{len(failures)} of {checked + len(failures)} failed: {failures[0]}"
    assert hidden_legs >= 20, "too few positions after a leg the seat did not see"
    assert moved >= checked // 2, "the other seats' cards were not dealt again"
