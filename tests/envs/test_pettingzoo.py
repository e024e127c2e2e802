"""The PettingZoo environment passes PettingZoo's own checks (API, seeding, and the
parallel API through turn_based_aec_to_parallel), on a preset and on a custom ruleset."""

from __future__ import annotations

import pytest

from tests.envs.optional import require

require("pettingzoo", "pettingzoo")

import numpy as np  # noqa: E402  # optional: after the check above
from pettingzoo.test import api_test, parallel_api_test, seed_test  # noqa: E402
from pettingzoo.utils.conversions import turn_based_aec_to_parallel  # noqa: E402

from arena.envs.pettingzoo import AGENTS, NineFiveTwoEnv, env  # noqa: E402
from arena.game import PRESETS  # noqa: E402


@pytest.mark.parametrize("ruleset", ["classic", "catalan-plus-minus"])
def test_pettingzoo_api_and_seed_tests(ruleset: str) -> None:
    api_test(env(ruleset), num_cycles=150)
    seed_test(lambda: env(ruleset), num_cycles=150)
    parallel_api_test(turn_based_aec_to_parallel(env(ruleset)), num_cycles=150)


def test_custom_ruleset_rewards_are_hand_deltas_and_render_is_the_text_form() -> None:
    rules = PRESETS["classic"].replace(target=3, allow_no_trump=False)
    environment = NineFiveTwoEnv(rules, render_mode="ansi")
    assert environment.observation_space("player_1") is environment.observation_space("player_1")
    environment.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(AGENTS, 0.0)
    hands = 0
    while not all(environment.terminations.values()):
        agent = environment.agent_selection
        text = environment.render()
        assert text == environment.observation_of(agent).to_text()
        mask = environment.observe(agent)["action_mask"]
        assert mask[56] == 0  # no trump is not allowed by this ruleset
        environment.step(int(rng.choice(np.flatnonzero(mask))))
        if any(environment.rewards.values()):
            assert sum(environment.rewards.values()) == 0  # a hand's deltas sum to 0
            hands += 1
        for a in AGENTS:
            totals[a] += environment.rewards[a]
    final = environment.observation_of("player_0").result
    assert final is not None and hands >= 1
    assert [totals[a] for a in AGENTS] == list(final.scores)
    assert max(final.scores) >= 3 or final.reason.value != "target"


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    environment = NineFiveTwoEnv("classic")
    environment.reset(seed=1)
    agent = environment.agent_selection
    before = environment.observe(agent)
    illegal = int(list(before["action_mask"]).index(0))
    with pytest.raises(ValueError, match="illegal action"):
        environment.step(illegal)
    assert environment.agent_selection == agent
    assert (environment.observe(agent)["observation"] == before["observation"]).all()
    legal = int(list(before["action_mask"]).index(1))
    environment.step(legal)  # control: a legal action moves the game on
    assert (environment.observe(agent)["observation"] != before["observation"]).any()
