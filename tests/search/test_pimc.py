"""The PIMC policy: legal decisions of all four kinds in every preset, within its budget."""

from __future__ import annotations

import pytest

from arena.game import PRESETS, DecisionKind, GameState, Observation, observe
from arena.game.policies import GreedyPolicy
from arena.search import PimcPolicy, think_seconds
from arena.search import pimc as pimc_module
from arena.search.rollout import rollout as real_rollout
from arena.simulate import UnknownPolicyError, make_policies
from tests.presets import every_preset
from tests.search.worlds import decision_points


@pytest.mark.parametrize("preset", every_preset())
def test_every_decision_kind_is_legal(preset: str) -> None:
    """Three PIMC seats play three hands: every trump call, discard, give and play they
    choose is accepted by the engine (``apply_decision`` raises on an illegal one)."""
    rules = PRESETS[preset].replace(max_hands=3)
    kinds: set[DecisionKind] = set()
    for seed in range(4):
        policy = PimcPolicy(seed, budget_ms=10_000, max_worlds=2)
        state = GameState(rules, seed)
        while not state.is_over:
            obs = observe(state, state.current_seat)
            assert obs.request is not None
            kinds.add(obs.request.kind)
            state.apply_decision(policy.act(obs))
        if kinds == set(DecisionKind):
            break
    assert kinds == set(DecisionKind)


class TickingClock:
    """A fake clock: every reading advances one millisecond."""

    def __init__(self) -> None:
        self.now = 0.0
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        self.now += 0.001
        return self.now


def _observations(preset: str) -> list[Observation]:
    """One observation per decision kind with more than one option, from one game."""
    seen: set[DecisionKind] = set()
    out = []
    for _, obs in decision_points(preset, games=1):
        request = obs.request
        assert request is not None
        several = len(request.cards) > 1 or len(request.trump_options) > 1
        if request.kind not in seen and several:
            seen.add(request.kind)
            out.append(obs)
    return out


@pytest.mark.parametrize("preset", ["classic", "catalan-plus-minus"])
def test_it_stops_when_the_deadline_says_so(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = TickingClock()
    evaluated_at: list[float] = []

    def counting_rollout(state: GameState) -> tuple[int, int, int]:
        evaluated_at.append(clock.now)
        return real_rollout(state)

    monkeypatch.setattr(pimc_module, "rollout", counting_rollout)
    for obs in _observations(preset):
        policy = PimcPolicy(1, clock=clock, endgame_tricks=0)
        clock.now, evaluated_at[:] = 0.0, []
        decision = policy.decide(obs, seconds=0.030)
        deadline = 0.001 + 0.030  # the first reading starts the clock
        assert evaluated_at, obs.request
        assert max(evaluated_at) < deadline  # nothing is evaluated after the deadline
        assert clock.now < deadline + 0.005  # and it returns promptly
        assert decision is not None


def test_without_time_it_answers_the_greedy_choice() -> None:
    for obs in _observations("classic"):
        policy = PimcPolicy(1, clock=TickingClock())
        assert policy.decide(obs, seconds=0.0) == GreedyPolicy().act(obs)
        assert policy.last_worlds == 0


def test_more_time_evaluates_more_worlds() -> None:
    obs = next(o for _, o in decision_points("classic", games=1) if o.phase.value == "play"
               and o.request is not None and len(o.request.cards) > 2)  # fmt: skip
    short, long = PimcPolicy(1, clock=TickingClock()), PimcPolicy(1, clock=TickingClock())
    short.decide(obs, seconds=0.030)  # each clock reading costs 1 ms of fake time
    long.decide(obs, seconds=0.300)
    assert 0 < short.last_worlds < long.last_worlds


def test_think_time_follows_the_clock() -> None:
    assert think_seconds(100, 1000, 10_000) == pytest.approx(0.100)  # default control
    assert think_seconds(100, 100, 0) == pytest.approx(0.030)  # half the allowance - 20 ms
    assert think_seconds(100, 30, 0) == 0.0  # no time: answer at once
    assert think_seconds(100, 30, 5_000) == pytest.approx(0.045)  # a slice of the bank
    assert think_seconds(500, 30, 5_000) < 0.005 * 10 + 0.001  # never the whole bank


def test_pimc_is_a_builtin_policy() -> None:
    """``arena simulate --players pimc,...`` and ``builtin:pimc`` seats find it."""
    policies = make_policies(["pimc", "greedy", "random"], seed=4)
    assert [p.name for p in policies] == ["pimc", "greedy", "random"]
    assert isinstance(policies[0], PimcPolicy)
    with pytest.raises(UnknownPolicyError, match="greedy, pimc, random"):
        make_policies(["pimc", "oracle", "random"], seed=4)
