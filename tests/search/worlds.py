"""Decision points of seeded games, and the true hidden cards behind each (test support)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from arena.game import PRESETS, GameState, Observation, Phase, observe
from arena.game.policies import GreedyPolicy, Policy, RandomPolicy
from arena.search.knowledge import DEAD, Knowledge, Regime


def decision_points(
    preset: str, games: int, every: int = 1, seed: int = 0
) -> Iterator[tuple[GameState, Observation]]:
    """The state and the acting seat's observation at every *every*-th decision of
    *games* games (greedy and random seats mixed, so exchanges, voids and shows occur)."""
    rules = PRESETS[preset]
    rng = random.Random(f"{preset}-{seed}")
    for game in range(games):
        state = GameState(rules, seed * 1000 + game)
        policies: list[Policy] = [
            GreedyPolicy(),
            RandomPolicy(rng.randrange(1 << 30)),
            GreedyPolicy(),
        ]
        step = 0
        while not state.is_over:
            seat = state.current_seat
            obs = observe(state, seat)
            if step % every == 0:
                yield state, obs
            step += 1
            state.apply_decision(policies[seat].act(obs))


def truth(state: GameState, knowledge: Knowledge) -> tuple[int, int, int, int]:
    """Where the hidden cards really are, in the knowledge's regime."""
    hand = state.hand
    if knowledge.regime is Regime.DEAL:
        return (hand.deal[0], hand.deal[1], hand.deal[2], hand.kitty)
    hands = list(state.hands)
    if state.phase is Phase.DISCARD:
        dead = 0  # the four to discard are still in the dealer's hand
    elif hand.kitty_taken:
        dead = sum(1 << c for c in hand.discards)
    else:
        dead = hand.kitty
    return (hands[0], hands[1], hands[2], dead)


def violations(knowledge: Knowledge, world: tuple[int, int, int, int]) -> list[str]:
    """How *world* breaks *knowledge* (empty when it is one of the worlds it allows)."""
    out = []
    me = knowledge.seat
    if world[me] != knowledge.own:
        out.append("the seat's own cards differ")
    for holder in (0, 1, 2, DEAD):
        if holder == me:
            continue
        cards = world[holder]
        if cards.bit_count() != knowledge.counts[holder]:
            out.append(
                f"holder {holder} has {cards.bit_count()} cards, not {knowledge.counts[holder]}"
            )
        if knowledge.known[holder] & ~cards:
            out.append(f"holder {holder} lacks a card known to be there")
        if cards & ~knowledge.known[holder] & ~knowledge.allowed[holder]:
            out.append(f"holder {holder} holds a card it may not hold")
    return out
