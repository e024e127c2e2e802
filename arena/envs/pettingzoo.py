"""9-5-2 as a PettingZoo AEC environment (needs the ``pettingzoo`` extra).

The step-level game of the engine: each step is one of 57 actions (a card to give, discard
or play, or a trump call), so a give of *k* cards is *k* steps, as in
``GameState.apply``. An agent per seat (``player_0`` .. ``player_2``); each observation is
``{"observation": encode(obs), "action_mask": action_mask(obs)}`` of
:mod:`arena.envs.encoding`, built from ``observe(state, seat)`` only. The reward of a step
is each seat's score change: zero except on the step that ends a hand, where it is the
hand's delta. An episode is one whole game under the ruleset (any preset or a custom
:class:`~arena.game.RuleSet`); it never truncates (the ruleset's ``max_hands`` caps it).

``reset(seed=s)`` makes the deals reproducible: the game keys come from a generator seeded
with *s*; a reset without a seed draws the next game from the same generator.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from arena.envs.encoding import ACTION_COUNT, SIZE, action_mask, action_of, encode
from arena.game import PRESETS, GameState, IllegalActionError, Observation, RuleSet, observe

AGENTS = ("player_0", "player_1", "player_2")


class NineFiveTwoEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no types
    """The raw AEC environment; :func:`env` adds PettingZoo's order checks."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "nine_five_two_v0",
        "is_parallelizable": True,
    }

    def __init__(
        self,
        ruleset: str | RuleSet = "classic",
        render_mode: str | None = None,
        max_hands: int | None = None,
    ) -> None:
        """*ruleset* is a preset id or a RuleSet; *max_hands* shortens games (training).

        :raises ValueError: for an unknown preset or render mode.
        """
        super().__init__()
        rules = PRESETS[ruleset] if isinstance(ruleset, str) and ruleset in PRESETS else ruleset
        if not isinstance(rules, RuleSet):
            raise ValueError(f"unknown ruleset {ruleset!r}; presets: {', '.join(PRESETS)}")
        if max_hands is not None:
            rules = rules.replace(max_hands=max_hands)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.rules = rules
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
            }
        )
        # Built once: the API requires the very same space object on every call.
        self.observation_spaces = {a: observation_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(ACTION_COUNT) for a in AGENTS}
        self._games: random.Random | None = None
        self.game: GameState | None = None
        """The engine's state of the game in progress (named so as not to hide
        ``AECEnv.state()``, the global-state hook)."""

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of *agent* (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """57 actions: cards 0..51, trump calls S H D C NT as 52..56."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; *seed* makes this and every later game reproducible."""
        del options
        if seed is not None or self._games is None:
            self._games = random.Random(seed)
        self.game = GameState(self.rules, self._games.getrandbits(128))
        self._scores = observe(self.game, 0).scores
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.game.current_seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The encoded observation and action mask of *agent* now."""
        obs = self.observation_of(agent)
        return {
            "observation": np.asarray(encode(obs), dtype=np.float32),
            "action_mask": np.asarray(action_mask(obs), dtype=np.int8),
        }

    def observation_of(self, agent: str) -> Observation:
        """The engine's observation of *agent* (what its seat may know), for policies that
        want more than the encoding."""
        return observe(self._game(), AGENTS.index(agent))

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action id.

        :raises ValueError: if the action is not legal now (the state is unchanged).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._game()
        if action is None:
            raise ValueError(f"{agent} must act; None is only for agents whose game is over")
        before = self._scores
        try:
            state.apply(action_of(int(action)))
        except IllegalActionError as exc:
            raise ValueError(f"{agent}: illegal action {action}: {exc}") from None
        after = self._scores = observe(state, 0).scores
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: after[i] - before[i] for i, a in enumerate(AGENTS)}
        if state.is_over:
            self.terminations = dict.fromkeys(AGENTS, True)
            self.agent_selection = AGENTS[(AGENTS.index(agent) + 1) % 3]
        else:
            self.agent_selection = AGENTS[state.current_seat]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The text form of the acting seat's observation (seat 0's once the game is over)."""
        if self.render_mode is None or self.game is None:
            return None
        state = self.game
        return observe(state, 0 if state.is_over else state.current_seat).to_text()

    def close(self) -> None:
        """Nothing to release."""

    def _game(self) -> GameState:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


def env(
    ruleset: str | RuleSet = "classic", render_mode: str | None = None, max_hands: int | None = None
) -> AECEnv:
    """The environment with PettingZoo's order-enforcing wrapper (the usual entry point)."""
    return wrappers.OrderEnforcingWrapper(NineFiveTwoEnv(ruleset, render_mode, max_hands))
