"""``public_view`` holds nothing that any single seat alone knows, at every decision of
random games of every preset; the check is shown to catch a view that leaks a hand or the
kitty (the controls)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from arena.game import GameState, get_ruleset, observe
from arena.game.cards import cards_in
from arena.game.policies import RandomPolicy
from arena.game.public import public_cards, public_view
from tests.live.privacy import cards_named, not_public
from tests.presets import every_preset

View = Callable[[GameState], dict[str, Any]]


def _moments(preset: str, seed: int) -> Iterator[GameState]:
    """The state of one random game at its start, after every decision and at its end."""
    state = GameState(get_ruleset(preset), seed)
    policies = [RandomPolicy(seed * 3 + seat) for seat in range(3)]
    yield state
    while not state.is_over:
        seat = state.current_seat
        state.apply_decision(policies[seat].act(observe(state, seat)))
        yield state


def _leaks(view: View, preset: str, seeds: range) -> set[str]:
    found: set[str] = set()
    for seed in seeds:
        for state in _moments(preset, seed):
            found |= not_public(view(state), state)
    return found


@pytest.mark.parametrize("preset", every_preset())
def test_public_view_names_no_private_card(preset: str) -> None:
    seen_played = False
    for seed in range(2):
        for state in _moments(preset, seed):
            view = public_view(state)
            json.dumps(view)  # JSON-ready
            assert not_public(view, state) == set()
            assert cards_named(view) == public_cards(view)
            seen_played |= bool(public_cards(view))
    assert seen_played  # the check had played cards to look at


def _with_hand(state: GameState) -> dict[str, Any]:
    view = public_view(state)
    if not state.is_over:
        view["debug"] = [str(c) for c in observe(state, state.current_seat).hand]
    return view


def _with_kitty(state: GameState) -> dict[str, Any]:
    view = public_view(state)
    view["note"] = " ".join(str(c) for c in cards_in(state.hand.kitty))
    return view


@pytest.mark.parametrize("leaky", [_with_hand, _with_kitty])
def test_control_a_leaking_view_is_caught(leaky: View) -> None:
    assert _leaks(leaky, "classic", range(1))


def test_the_view_follows_the_game() -> None:
    """Trump, contracts and the cards played appear as the game goes on."""
    views = [public_view(s) for s in _moments("classic", 3)]
    assert views[0]["trump"] is None and views[0]["tricks"] == []
    assert any(v["trump"] is not None for v in views)
    assert any(v["current_trick"] and v["current_trick"]["cards"] for v in views)
    assert views[-1]["result"] is not None and views[-1]["phase"] == "over"
