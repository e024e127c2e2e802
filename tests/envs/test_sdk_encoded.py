"""arena.sdk's adapter: a policy function on the encoding becomes a bot that sees, at every
step of a give or discard, exactly what the environment shows at that step."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from arena.envs.encoding import action_index, action_mask, encode
from arena.game import PRESETS, GameState, Give, Phase, observe
from arena.sdk import EncodedBot, EncodedPolicy, IllegalPolicyAction
from arena.sdk.encoded import decide_encoded
from arena.simulate import play_game


class Recorder:
    """A random policy function that keeps what it was shown."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seen: list[tuple[list[float], list[int]]] = []

    def __call__(self, features: list[float], mask: list[int]) -> int:
        self.seen.append((features, mask))
        return self.rng.choice([i for i, m in enumerate(mask) if m])


def test_decisions_replay_the_steps_the_engine_would_show() -> None:
    """A recording policy sees per step what observe() gives after the same steps."""
    checked = 0
    for name in ("classic", "catalan-plus-minus"):
        for seed in range(6):
            state = GameState(PRESETS[name], seed)
            rng = random.Random(seed)
            while not state.is_over:
                seat = state.current_seat
                recorder = Recorder(rng)
                decision = decide_encoded(recorder, observe(state, seat))
                seen = recorder.seen
                if state.phase in (Phase.GIVE, Phase.DISCARD):
                    steps = (
                        [c for leg in decision.legs for c in leg]
                        if isinstance(decision, Give)
                        else list(decision.cards)
                    )  # type: ignore[union-attr]
                    for (features, mask), card in zip(seen, steps, strict=True):
                        assert (features, mask) == (
                            encode(observe(state, seat)),
                            action_mask(observe(state, seat)),
                        )
                        state.apply(card)
                        checked += 1
                else:
                    assert len(seen) == 1
                    state.apply_decision(decision)
    assert checked > 50


def test_an_illegal_choice_is_refused() -> None:
    state = GameState(PRESETS["classic"], 1)
    obs = observe(state, state.current_seat)
    illegal = action_mask(obs).index(0)
    with pytest.raises(IllegalPolicyAction, match="not allowed by its mask"):
        decide_encoded(lambda features, mask: illegal, obs)
    legal = action_mask(obs).index(1)  # control: a legal choice is taken
    assert decide_encoded(lambda features, mask: legal, obs) is not None


def test_encoded_bot_and_policy_play_whole_games() -> None:
    def lowest(features: list[float], mask: list[int]) -> int:
        return mask.index(1)

    bot = EncodedBot(lowest, name="lowest", version="1")
    assert (bot.name, bot.version) == ("lowest", "1")
    state = GameState(PRESETS["classic"], 2)
    obs = observe(state, state.current_seat)
    assert action_index(bot.decide(obs).trump) == lowest(encode(obs), action_mask(obs))  # type: ignore[union-attr]
    final = play_game(PRESETS["nine-two-five"], 3, [EncodedPolicy(lowest)] * 3)
    assert final.is_over


def test_the_adapter_and_the_encoding_need_no_numpy() -> None:
    """Bots run where numpy may be absent: arena.sdk and arena.envs import without it."""
    blocked = "import sys; sys.modules['numpy'] = None; "
    ok = subprocess.run(
        [sys.executable, "-c", blocked + "import arena.sdk, arena.envs; print(arena.envs.SIZE)"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "828"
    # Control: with numpy blocked like this, a module that needs it does fail to import.
    needs = subprocess.run(
        [sys.executable, "-c", blocked + "import arena.envs.pettingzoo"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert needs.returncode != 0 and "numpy" in needs.stderr
