"""The hidden-information property (docs/style.md 21; docs/rules.md section 6).

At decision points of random games, for every seat: re-deal cards the seat cannot know
(swap them between the other hands and the kitty), replay the same actions, and keep the
new world only if it is consistent with everything the seat may know, as listed here from
docs/rules.md 6 independently of the observer. In every such world the seat's observation must
be identical. A deliberately leaky observer is caught by the same check, so it can fail.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.game import PRESETS, Action, GameState, IllegalActionError, Observation, observe
from arena.game.cards import BIT, cards_in, mask_of
from tests.presets import every_preset

from .helpers import cards_seen

GAMES_PER_PRESET = 4
SWAPS_PER_POINT = 4


def knowledge(state: GameState, seat: int) -> tuple[Any, ...]:
    """What docs/rules.md 6 lets *seat* know, written out from the full state."""
    facts: list[Any] = []
    for log in state.history:
        facts += [
            ("hand", log.number, log.dealer, log.contracts, log.scores_before, log.previous_deltas),
            ("dealt", log.deal[seat]),
            ("trump", log.trump),
            ("kitty", log.kitty_taken, log.kitty if seat == log.dealer and log.kitty_taken else 0),
            ("shown", [(to, m) for to, m in log.shown if seat in (to, log.dealer)]),
            ("discarded", len(log.discards) == 4),
            ("own discards", tuple(log.discards) if seat == log.dealer else ()),
            ("tricks", [(t.leader, t.cards, t.winner) for t in log.tricks]),
            ("result", log.deltas, log.scores),
        ]
        for i, leg in enumerate(log.legs):
            mine = seat in (leg.leg.giver, leg.leg.receiver)
            given = mask_of(leg.given) if mine and leg.is_given else 0
            returned = mask_of(leg.returned) if mine and leg.is_done else 0
            facts.append(("leg", i, leg.leg, leg.stage, given, returned))
    own_turn = not state.is_over and state.current_seat == seat
    facts.append(("now", state.phase, state.current_seat, state.trick))
    facts.append(("own picks", state.pending_picks if own_turn else ()))
    return tuple(facts)


def _known_cards(state: GameState, seat: int) -> int:
    known = 0
    for fact in knowledge(state, seat):
        for item in fact[1:]:
            known |= _cards_of(item)
    return known | state.hands[seat]


def _cards_of(item: Any) -> int:
    if isinstance(item, int) and not isinstance(item, bool) and item >= 52:
        return item  # a mask
    found = cards_seen(item)
    return mask_of(found)


def _replay(
    state: GameState, actions: list[Action], deals: list[tuple[tuple[int, int, int], int]]
) -> GameState | None:
    def source(number: int, dealer: int) -> tuple[tuple[int, int, int], int]:
        del dealer
        return deals[number - 1]

    world = GameState(state.rules, state.seed, first_dealer=state.first_dealer, deal_source=source)
    try:
        for action in actions:
            world.apply(action)
    except IllegalActionError:
        return None
    return world


def _swap(
    deal: tuple[tuple[int, int, int], int], a: int, b: int
) -> tuple[tuple[int, int, int], int]:
    both = BIT[a] | BIT[b]
    parts = [*deal[0], deal[1]]
    parts = [p ^ both if p & both and (p & both) != both else p for p in parts]
    return (parts[0], parts[1], parts[2]), parts[3]


def find_leak(
    preset: str, observer: Callable[[GameState, int], Observation], games: int = GAMES_PER_PRESET
) -> tuple[int, int] | None:
    """A (game, seat) where two worlds the seat cannot tell apart observe differently."""
    rules = PRESETS[preset]
    rng = random.Random(f"hidden-{preset}")
    accepted = 0
    for game in range(games):
        state = GameState(rules, game)
        actions: list[Action] = []
        step = 0
        while not state.is_over:
            if step % 7 == 0:
                deals = [(log.deal, log.kitty) for log in state.history]
                for seat in range(3):
                    unknown = cards_in(~_known_cards(state, seat) & ((1 << 52) - 1))
                    mine = knowledge(state, seat)
                    mine_obs = observer(state, seat)
                    for _ in range(SWAPS_PER_POINT):
                        if len(unknown) < 2:
                            break
                        a, b = rng.sample(unknown, 2)
                        swapped = [*deals[:-1], _swap(deals[-1], a, b)]
                        world = _replay(state, actions, swapped)
                        if world is None or knowledge(world, seat) != mine:
                            continue
                        accepted += 1
                        if observer(world, seat) != mine_obs:
                            return game, seat
            action = rng.choice(state.legal_actions())
            state.apply(action)
            actions.append(action)
            step += 1
    assert accepted > 50, "too few indistinguishable worlds: the check would prove nothing"
    return None


@pytest.mark.slow
@pytest.mark.parametrize("preset", every_preset())
def test_observation_depends_only_on_what_the_seat_may_know(preset: str) -> None:
    assert find_leak(preset, observe) is None


def _leaky(state: GameState, seat: int) -> Observation:
    """An observer with a classic bug: everyone sees the kitty once it is taken."""
    obs = observe(state, seat)
    if state.hand.kitty_taken:
        return dataclasses.replace(obs, kitty=cards_in(state.hand.kitty))
    return obs


@pytest.mark.parametrize("preset", ["classic", "catalan-plus-minus"])
def test_a_leaky_observer_is_caught(preset: str) -> None:
    assert find_leak(preset, _leaky, games=2) is not None


def test_own_cards_are_not_unknown() -> None:
    """Swapping a card of the seat's own deal changes its knowledge and its observation."""
    state = GameState(PRESETS["classic"], 3)
    deal = (state.hand.deal, state.hand.kitty)
    own = cards_in(deal[0][0])[0]
    other = cards_in(deal[0][1])[0]
    world = _replay(state, [], [_swap(deal, own, other)])
    assert world is not None
    assert knowledge(world, 0) != knowledge(state, 0)
    assert observe(world, 0) != observe(state, 0)
