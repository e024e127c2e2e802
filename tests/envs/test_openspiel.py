"""The OpenSpiel game: OpenSpiel's own random-simulation checks (with serialisation and
cloning), the resampler ISMCTS relies on, and ISMCTS against random play."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.envs.optional import require

require("pyspiel", "bench")

import numpy as np  # noqa: E402  # optional: after the check above
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import arena.envs.openspiel  # noqa: E402, F401  # registers the game
from arena.envs.encoding import encode  # noqa: E402


def load(**params: Any) -> Any:
    return pyspiel.load_game("python_nine_five_two", params)


@pytest.mark.parametrize(
    ("ruleset", "hands"), [("classic", 2), ("catalan-plus-minus", 2), ("nine-two-five", 1)]
)
def test_random_simulations_pass_openspiels_checks(ruleset: str, hands: int) -> None:
    pyspiel.random_sim_test(
        load(ruleset=ruleset, max_hands=hands), num_sims=1, serialize=True, verbose=False
    )


def test_game_type_and_parameters() -> None:
    game = load(ruleset="classic-show", max_hands=5)
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert game.num_distinct_actions() == 57 and game.num_players() == 3
    assert game.rules.name == "custom" and game.rules.max_hands == 5 and game.rules.dealer_show
    custom = load(ruleset=json.dumps(game.rules.replace(target=4).to_json()))
    assert custom.rules.target == 4
    with pytest.raises(Exception, match="unknown ruleset"):
        load(ruleset="no-such-preset")


def play_to_decisions(game: Any, seed: int, keep_every: int) -> list[Any]:
    rng = random.Random(seed)
    state = game.new_initial_state()
    kept = []
    step = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choice([a for a, _ in outcomes]))
            continue
        if step % keep_every == 0:
            kept.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
        step += 1
    return kept


def test_strings_tensors_and_clones_follow_the_observation() -> None:
    game = load(ruleset="classic", max_hands=2)
    for state in play_to_decisions(game, seed=1, keep_every=9):
        seat = state.current_player()
        obs = state.view(seat)
        assert state.observation_string(seat) == obs.to_text()
        assert list(state.observation_tensor(seat)) == pytest.approx(encode(obs))
        assert state.information_state_string(seat).endswith(
            state.information_text(seat).split("\n")[-1]
        )
        clone = state.clone()
        action = clone.legal_actions()[0]
        clone.apply_action(action)
        assert state.view(seat) == obs  # the clone moved, the original did not


@pytest.mark.parametrize("ruleset", ["classic", "classic-show", "catalan-plus-minus"])
def test_resampled_states_keep_the_information_state(ruleset: str) -> None:
    game = load(ruleset=ruleset, max_hands=3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    moved = 0
    for state in play_to_decisions(game, seed=4, keep_every=23):
        seat = state.current_player()
        other = (seat + 1) % 3
        sampled = state.resample_from_infostate(seat, sampler)
        assert sampled.information_state_string(seat) == state.information_state_string(seat)
        assert sampled.legal_actions() == state.legal_actions()
        # Control: the other seats' hidden cards were dealt again.
        if sampled.view(other).hand != state.view(other).hand:
            moved += 1
    assert moved >= 3


def test_ismcts_plays_whole_games_against_random_play() -> None:
    """ISMCTSBot searches on states from the resampler (it checks each sample's
    information-state key against the real one) and plays legal moves to the end."""
    game = load(ruleset="classic", max_hands=1)
    rng = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rng)
    picker = random.Random(3)
    searched = 0
    for searcher in (0, 1):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(picker.choice([a for a, _ in state.chance_outcomes()]))
            elif state.current_player() == searcher:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
                searched += 1
            else:
                state.apply_action(picker.choice(state.legal_actions()))
        assert sum(state.returns()) == 0
        assert state.returns() == [float(x) for x in state.view(0).result.scores]
    assert searched >= 2 * 16
