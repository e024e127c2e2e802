"""A decision method gets a :class:`~arena.sdk.Turn`: the seat's observation with its
request always set, so a bot reads ``obs.request`` without checking it; a bot written
against ``Observation`` (with the check) keeps working."""

from __future__ import annotations

import pytest

from arena.game import PRESETS, CallTrump, Observation, Trump, new_game, observe
from arena.game.policies import GreedyPolicy
from arena.sdk import Bot, Turn


def _to_act() -> Observation:
    state = new_game(PRESETS["classic"], 7)
    return observe(state, state.current_seat)


class Recorder(Bot):
    """Takes the greedy decisions, keeping what each decision method received."""

    def __init__(self) -> None:
        super().__init__()
        self.received: list[Observation] = []

    def trump(self, obs: Turn) -> CallTrump | Trump:
        self.received.append(obs)
        return super().trump(obs)


def test_a_decision_method_gets_a_turn_equal_to_the_observation() -> None:
    obs = _to_act()
    bot = Recorder()
    bot.decide(obs)
    (turn,) = bot.received
    assert isinstance(turn, Turn) and isinstance(turn, Observation)
    assert turn.request == obs.request and turn.hand == obs.hand and turn.seat == obs.seat


def test_an_observation_of_a_seat_not_to_act_is_no_turn() -> None:
    state = new_game(PRESETS["classic"], 7)
    idle = observe(state, (state.current_seat + 1) % 3)
    assert idle.request is None
    with pytest.raises(ValueError, match="nothing to decide"):
        Turn.of(idle)
    with pytest.raises(ValueError, match="nothing to decide"):
        Bot().decide(idle)


def test_a_turn_of_a_turn_is_itself() -> None:
    turn = Turn.of(_to_act())
    assert Turn.of(turn) is turn


def test_a_bot_written_against_observation_still_decides() -> None:
    class OldStyle(Bot):
        def trump(self, obs: Observation) -> Trump:
            assert obs.request is not None
            return obs.request.trump_options[0]

    obs = _to_act()
    assert obs.request is not None
    assert OldStyle().decide(obs) == CallTrump(obs.request.trump_options[0])


def test_a_bot_is_a_policy_whose_act_is_its_decision() -> None:
    obs = _to_act()
    assert Bot().act(obs) == GreedyPolicy().act(obs)
