"""The first difference of two replays: two games identical up to seat 0's n-th card play,
then different, part exactly there; a game beside itself (renamed) never does."""

from __future__ import annotations

from typing import Any

import pytest

from arena.analysis import first_difference
from arena.game.actions import Play
from arena.game.cards import Card
from arena.game.observation import observe
from arena.game.record import game_record
from arena.game.rules import PRESETS
from arena.game.state import GameState, Phase
from arena.replay.steps import StepKind, build_replay
from arena.simulate import make_policies

SEED = 4242


def _game(players: list[str], swerve_at: int | None) -> dict[str, Any]:
    """Greedy everywhere, except that seat 0's card play number *swerve_at* (from 0,
    counting only plays with a choice) is another legal card than greedy's."""
    state = GameState(PRESETS["classic"], SEED, first_dealer=0)
    policies = make_policies(["greedy"] * 3, SEED)
    choices = 0
    while not state.is_over:
        seat = state.current_seat
        decision = policies[seat].act(observe(state, seat))
        legal = state.legal_actions()
        if seat == 0 and state.phase is Phase.PLAY and len(legal) > 1:
            if choices == swerve_at:
                state.apply(next(a for a in legal if isinstance(a, Card) and Play(a) != decision))
                choices += 1
                continue
            choices += 1
        state.apply_decision(decision)
    return game_record(state, players)


def _nth_choice_step(record: dict[str, Any], n: int) -> int:
    """The replay step of seat 0's n-th card play with a choice, found by replaying the
    game's states (independently of the code under test)."""
    state = GameState(PRESETS["classic"], SEED, first_dealer=0)
    policies = make_policies(["greedy"] * 3, SEED)
    replay = build_replay(record)
    plays = [s for s in replay.steps if s.kind is StepKind.PLAY]
    choices = 0
    for step in plays:
        while state.phase is not Phase.PLAY:  # pre-play decisions: replay greedy's
            mover = state.current_seat
            state.apply_decision(policies[mover].act(observe(state, mover)))
        seat = state.current_seat
        assert seat == step.seat
        legal = state.legal_actions()
        decision = policies[seat].act(observe(state, seat))
        if seat == 0 and len(legal) > 1:
            if choices == n:
                return step.index
            choices += 1
        state.apply_decision(decision)
    raise AssertionError("no such play")


@pytest.mark.parametrize("swerve_at", [0, 5])
def test_found_at_the_first_different_play(swerve_at: int) -> None:
    plain = _game(["a@1", "b@1", "c@1"], None)
    swerved = _game(["x@2", "b@1", "c@1"], swerve_at)
    expected = _nth_choice_step(plain, swerve_at)
    first, second = build_replay(plain), build_replay(swerved)
    difference = first_difference(first, second)
    assert difference is not None
    assert difference.index == expected
    assert (difference.seat, difference.decision, difference.kind) == (0, "play", "play")
    assert difference.first != difference.second
    assert "a@1" not in difference.first and "x@2" not in difference.second
    # Every earlier step is the same but for the names; the control: names alone differ.
    assert [s.kind for s in first.steps[:expected]] == [s.kind for s in second.steps[:expected]]
    assert first.steps[1].private_text != second.steps[1].private_text or expected <= 1


def test_identical_games_never_differ() -> None:
    plain = _game(["a@1", "b@1", "c@1"], None)
    renamed = _game(["b@1", "a@1", "zz@9"], None)
    assert first_difference(build_replay(plain), build_replay(renamed)) is None
    assert first_difference(build_replay(plain), build_replay(plain)) is None
