"""The encoding against the observation it encodes, the mask against the engine's legal
actions, and the hidden-information property: cards the seat has not seen can be dealt
again without changing its encoding."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from arena.envs.encoding import (
    ACTION_COUNT,
    FIELDS,
    OFFSETS,
    SIZE,
    TRUMP_CALLS,
    action_index,
    action_mask,
    action_of,
    encode,
)
from arena.game import CARDS, PRESETS, GameState, Phase, fixed_deals, observe


def block(vector: Sequence[float], name: str, index: int = 0) -> list[float]:
    """One field of an encoded vector (*index* selects a 52-card block of a 3-seat field)."""
    field = next(f for f in FIELDS if f.name == name)
    size = 52 if field.size == 3 * 52 else field.size
    start = field.offset + size * index
    return list(vector[start : start + size])


def cards_of(values: Sequence[float]) -> set[int]:
    return {i for i, v in enumerate(values) if v == 1.0}


def random_states(rules_name: str, seed: int, every: int = 17) -> list[GameState]:
    state = GameState(PRESETS[rules_name], seed)
    rng = random.Random(seed)
    out = []
    step = 0
    while not state.is_over:
        if step % every == 0:
            out.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
        step += 1
    out.append(state)
    return out


def test_fields_tile_the_vector_and_action_ids_round_trip() -> None:
    assert FIELDS[0].offset == 0
    for before, after in itertools.pairwise(FIELDS):
        assert after.offset == before.offset + before.size
    assert SIZE == FIELDS[-1].offset + FIELDS[-1].size == 828
    assert [action_index(action_of(i)) for i in range(ACTION_COUNT)] == list(range(ACTION_COUNT))
    assert action_of(52) is TRUMP_CALLS[0] and action_of(5) == CARDS[5]
    with pytest.raises(ValueError, match=r"not in 0 \.\. 56"):
        action_of(57)


@pytest.mark.parametrize("rules_name", list(PRESETS))
def test_encoding_matches_the_observation(rules_name: str) -> None:
    for state in random_states(rules_name, seed=11):
        for seat in range(3):
            obs = observe(state, seat)
            vector = encode(obs)
            assert len(vector) == SIZE and all(-1.0 <= v <= 1.0 for v in vector)
            assert cards_of(block(vector, "hand")) == set(obs.hand)
            for rel in range(3):
                played = {
                    c
                    for t in obs.tricks
                    for i, c in enumerate(t.cards)
                    if (t.leader + i - seat) % 3 == rel
                }
                assert cards_of(block(vector, "played", rel)) == played
            trump = block(vector, "trump")
            assert trump.index(1.0) == (5 if obs.trump is None else TRUMP_CALLS.index(obs.trump))
            assert block(vector, "dealer")[(obs.dealer - seat) % 3] == 1.0
            assert block(vector, "contracts") == [
                obs.contracts[(seat + r) % 3] / 9 for r in range(3)
            ]
            assert block(vector, "tricks_won") == [
                obs.tricks_won[(seat + r) % 3] / 16 for r in range(3)
            ]
            assert cards_of(block(vector, "kitty")) == set(obs.kitty or ())
            assert cards_of(block(vector, "discards")) == set(obs.discards or ())
            mask = action_mask(obs)
            legal = (
                state.legal_actions() if seat == state.current_seat and not state.is_over else ()
            )
            assert [i for i in range(ACTION_COUNT) if mask[i]] == sorted(
                action_index(a) for a in legal
            )
            assert (
                vector[
                    OFFSETS["phase"]
                    + [Phase.GIVE, Phase.TRUMP, Phase.DISCARD, Phase.PLAY, Phase.OVER].index(
                        obs.phase
                    )
                ]
                == 1.0
            )


def _play_hand_one(seed: int, rng: random.Random) -> tuple[GameState, list[int], set[int]]:
    """Hand 1 of a classic game played at random into its play phase; the actions, and
    which of them were the dealer's discards."""
    state = GameState(PRESETS["classic"], seed)
    actions: list[int] = []
    discard_steps: set[int] = set()
    tricks = rng.randrange(0, 15)
    while len(observe(state, 0).tricks) < tricks or state.phase is not Phase.PLAY:
        if state.phase is Phase.DISCARD:
            discard_steps.add(len(actions))
        action = action_index(rng.choice(state.legal_actions()))
        state.apply(action_of(action))
        actions.append(action)
    return state, actions, discard_steps


def _redeal(state: GameState, seat: int, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Hand 1 dealt again: the cards *seat* has not seen (the others' hands now and the
    dealer's discards) change places within each suit, so every play stays legal. Returns
    the new deal (three hands and the kitty) and the dealer's new discards."""
    views = [observe(state, s) for s in range(3)]
    dealer = views[0].dealer
    played: dict[int, set[int]] = {s: set() for s in range(3)}
    for trick in [*views[0].tricks, *filter(None, [views[0].current_trick])]:
        for i, card in enumerate(trick.cards):
            played[(trick.leader + i) % 3].add(int(card))
    where = {int(c): s for s in range(3) if s != seat for c in views[s].hand}
    where.update({int(c): 3 for c in views[dealer].discards or ()})
    for suit in range(4):
        cards = sorted(c for c in where if c // 13 == suit)
        places = [where[c] for c in cards]
        rng.shuffle(places)
        where.update(zip(cards, places, strict=True))
    hands = [
        sorted(int(c) for c in views[seat].dealt)
        if s == seat
        else sorted(played[s] | {c for c, p in where.items() if p == s})
        for s in range(3)
    ]
    discards = sorted(c for c, p in where.items() if p == 3)
    return [*hands, discards], discards


def test_unseen_cards_dealt_again_leave_the_encoding_unchanged() -> None:
    rng = random.Random(5)
    checked = changed = 0
    for seed in range(15):
        state, actions, discard_steps = _play_hand_one(seed, rng)
        dealer = observe(state, 0).dealer
        for seat in range(3):
            if seat == dealer:
                continue  # the dealer has seen the kitty and chosen the discards
            deal, discards = _redeal(state, seat, rng)
            new_actions = list(actions)
            for step, card in zip(sorted(discard_steps), discards, strict=True):
                new_actions[step] = card
            again = GameState(
                PRESETS["classic"],
                0,
                first_dealer=dealer,
                deal_source=fixed_deals([(deal[0], deal[1], deal[2], deal[3])]),
            )
            for action in new_actions:
                again.apply(action_of(action))
            assert encode(observe(again, seat)) == encode(observe(state, seat))
            checked += 1
            # Control: the same re-deal is visible to a seat that knew the moved cards.
            other = 3 - seat - dealer
            if observe(again, other).hand != observe(state, other).hand:
                assert encode(observe(again, other)) != encode(observe(state, other))
                changed += 1
    assert checked == 30
    assert changed >= 20
