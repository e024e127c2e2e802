"""The sampler sees only what the seat may know, and every world it draws fits it.

Three checks at decision points of seeded games in every preset:

* soundness: the real hidden cards are one of the worlds the derived knowledge allows;
* consistency: every sampled world satisfies the knowledge, puts the engine at the same
  decision with the same own cards, tricks and options, and respects every void the
  seat saw and every card it returned in an exchange (checked here from the observation,
  independently of the knowledge; a uniform sampler without constraints fails it);
* the hidden-information property (as tests/game/test_hidden_information.py does for the
  observer): re-deal cards the seat cannot know, and its knowledge is unchanged.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.game import PRESETS, GameState, Observation, observe
from arena.search import build_state, knowledge_of, sample_world
from arena.search.knowledge import DEAD, FULL_DECK, Knowledge
from tests.game.test_hidden_information import _known_cards, _replay, _swap, knowledge
from tests.search.worlds import decision_points, truth, violations

PRESETS_ALL = list(PRESETS)
SAME_FIELDS = ("hand", "tricks", "current_trick", "tricks_won", "trump", "phase", "to_act",
               "request", "contracts", "scores")  # fmt: skip


@pytest.mark.parametrize("preset", PRESETS_ALL)
def test_the_real_cards_are_a_possible_world(preset: str) -> None:
    checked = 0
    for state, obs in decision_points(preset, games=2, every=3):
        k = knowledge_of(obs)
        assert violations(k, truth(state, k)) == [], (preset, obs.to_text())
        checked += 1
    assert checked > 40


def rule_breaks(obs: Observation, world: tuple[int, int, int, int]) -> list[str]:
    """Where *world* contradicts the observation, read straight from it: a seat holding a
    suit it showed out of, or a giver to the seat not holding what the seat returned."""
    out = []
    done = list(obs.tricks) + ([obs.current_trick] if obs.current_trick is not None else [])
    for trick in done:
        if not trick.cards:
            continue
        led = trick.cards[0] // 13
        for i, card in enumerate(trick.cards[1:], start=1):
            seat = (trick.leader + i) % 3
            if card // 13 != led and any(c // 13 == led for c in _cards(world[seat])):
                out.append(f"seat {seat} showed out of suit {led} yet holds it")
    played = {c for t in done for c in t.cards}
    for leg in obs.exchange:
        if leg.receiver == obs.seat and leg.returned is not None and obs.dealer != leg.giver:
            missing = {c for c in leg.returned if c not in played} - set(_cards(world[leg.giver]))
            if missing:
                out.append(f"giver {leg.giver} lacks the returned {sorted(missing)}")
    return out


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def uniform_world(k: Knowledge, rng: random.Random) -> tuple[int, int, int, int]:
    """A sampler that ignores every constraint but the counts (the control)."""
    cards = _cards(k.unknown)
    rng.shuffle(cards)
    world = list(k.known)
    world[k.seat] = k.own
    for holder in (0, 1, 2, DEAD):
        if holder != k.seat:
            need = k.counts[holder] - k.known[holder].bit_count()
            for card in cards[:need]:
                world[holder] |= 1 << card
            cards = cards[need:]
    return (world[0], world[1], world[2], world[3])


def breaks_found(
    preset: str, sampler: Callable[[Knowledge, random.Random], tuple[int, int, int, int]]
) -> int:
    rng = random.Random(preset)
    found = 0
    for state, obs in decision_points(preset, games=2, every=5, seed=1):
        del state
        k = knowledge_of(obs)
        for _ in range(2):
            world = sampler(k, rng)
            found += bool(rule_breaks(obs, world))
            if sampler is sample_world:
                assert violations(k, world) == []
                built = observe(build_state(obs, k.regime, world), obs.seat)
                for name in SAME_FIELDS:
                    assert getattr(built, name) == getattr(obs, name), name
    return found


@pytest.mark.parametrize("preset", PRESETS_ALL)
def test_sampled_worlds_are_consistent(preset: str) -> None:
    assert breaks_found(preset, sample_world) == 0


def test_an_unconstrained_sampler_is_caught() -> None:
    assert breaks_found("classic", uniform_world) > 0


def find_leak(derive: Callable[[GameState, int], Any], preset: str) -> bool:
    """Whether *derive* differs between two worlds the seat cannot tell apart."""
    rules = PRESETS[preset]
    rng = random.Random(f"sampler-{preset}")
    state = GameState(rules, 3)
    actions: list[Any] = []
    accepted = 0
    step = 0
    while not state.is_over and accepted < 25:
        if step % 5 == 0:
            deals = [(log.deal, log.kitty) for log in state.history]
            seat = state.current_seat
            unknown = [c for c in range(52) if not (_known_cards(state, seat) & FULL_DECK) >> c & 1]
            for _ in range(3):
                if len(unknown) < 2:
                    break
                a, b = rng.sample(unknown, 2)
                world = _replay(state, actions, [*deals[:-1], _swap(deals[-1], a, b)])
                if world is None or knowledge(world, seat) != knowledge(state, seat):
                    continue
                accepted += 1
                if derive(world, seat) != derive(state, seat):
                    return True
        action = rng.choice(state.legal_actions())
        actions.append(action)
        state.apply(action)
        step += 1
    assert accepted > 0
    return False


@pytest.mark.parametrize("preset", PRESETS_ALL)
def test_knowledge_depends_only_on_what_the_seat_may_know(preset: str) -> None:
    assert not find_leak(lambda state, seat: knowledge_of(observe(state, seat)), preset)


def test_a_leaky_derivation_is_caught() -> None:
    def leaky(state: GameState, seat: int) -> Knowledge:
        k = knowledge_of(observe(state, seat))
        return dataclasses.replace(k, unknown=k.unknown & ~state.hands[(seat + 1) % 3])

    assert find_leak(leaky, "classic")
