"""Train a small policy through the PettingZoo environment and write a bot the arena accepts.

A linear softmax policy over the encoding of arena.envs.encoding (one weight row per
action, masked to the legal ones) learns by REINFORCE with a per-contract baseline: the
learner takes one seat (rotating every game) of the PettingZoo environment, the built-in
random and greedy policies take the others, and every action of a hand is credited with
the learner's score change for that hand. Only numpy (and the ``pettingzoo`` extra).

The result is a bot directory: ``bot.toml``, ``bot.py`` (examples/linear_bot.py, a pure
Python forward pass through arena.sdk.EncodedBot) and ``weights.json``. The script then
measures it in-process (arena.simulate.play_game) against two random players on duplicate
boards: each board's deals are played with the bot in each of the three seats, and the
board's value is the bot's mean final score minus the random players' mean; the 95%
interval is over boards.

Both steps show the CLI's progress bar on standard error (:func:`arena.cli.common.progress_bar`,
as ``arena simulate`` and ``arena match`` draw it): training counts games (against the
``--games`` cap, or open-ended under the time budget, with the time left), the
measurement counts boards.

Run: ``.venv/bin/python examples/train_policy.py --out runs/linear_bot [--minutes 6]
[--eval-boards 200]``, then ``arena bot check runs/linear_bot`` and
``arena bot submit runs/linear_bot`` (docs/rl.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import shutil
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from arena.cli.common import progress_bar
from arena.envs.encoding import ACTION_COUNT, OFFSETS, SIZE, action_index
from arena.envs.pettingzoo import AGENTS, NineFiveTwoEnv
from arena.game import PRESETS, Action, CallTrump, Discard, Give, Play
from arena.game.actions import Decision
from arena.game.policies import GreedyPolicy, Policy, RandomPolicy
from arena.sdk import EncodedPolicy
from arena.simulate import play_game

HERE = Path(__file__).resolve().parent


def steps_of(decision: Decision) -> list[Action]:
    """The step-level actions of a whole decision, in the order the engine takes them."""
    if isinstance(decision, Play):
        return [decision.card]
    if isinstance(decision, CallTrump):
        return [decision.trump]
    if isinstance(decision, Discard):
        return list(decision.cards)
    assert isinstance(decision, Give)
    return [card for leg in decision.legs for card in leg]


class Learner:
    """The linear softmax policy and its REINFORCE update."""

    def __init__(self, rng: np.random.Generator, learning_rate: float) -> None:
        self.w = np.zeros((ACTION_COUNT, SIZE))
        self.b = np.zeros(ACTION_COUNT)
        self.rng = rng
        self.learning_rate = learning_rate
        self.baseline: dict[int, float] = {}
        self.scale = 1.0

    def act(self, features: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray]:
        """A sampled legal action and the policy's probabilities."""
        logits = self.w @ features + self.b
        logits = np.where(mask > 0, logits, -np.inf)
        logits -= logits.max()
        probs = np.exp(logits)
        probs /= probs.sum()
        return int(self.rng.choice(ACTION_COUNT, p=probs)), probs

    def update(self, steps: list[tuple[np.ndarray, int, np.ndarray]], reward: float) -> None:
        """Push the hand's actions towards (or away from) what they earned."""
        if not steps:
            return
        contract = round(float(steps[0][0][OFFSETS["contracts"]]) * 9)
        base = self.baseline.get(contract, 0.0)
        self.baseline[contract] = base + 0.01 * (reward - base)
        advantage = reward - base
        self.scale += 0.01 * (abs(advantage) - self.scale)
        advantage /= max(self.scale, 1e-6)
        features = np.stack([x for x, _, _ in steps])
        grads = -np.stack([p for _, _, p in steps])
        for i, (_, action, _) in enumerate(steps):
            grads[i, action] += 1.0
        step = self.learning_rate * advantage
        self.w += step * grads.T @ features
        self.b += step * grads.sum(axis=0)


GameDone = Callable[[int, float, float], None]
"""Called after each training game: games so far, seconds left, recent mean hand reward."""
BoardDone = Callable[[int], None]
"""Called after each measured board: boards so far."""


def train(
    args: argparse.Namespace, on_game: GameDone | None = None
) -> tuple[Learner, dict[str, Any]]:
    """Play games until the time budget or the game count runs out."""
    rng = np.random.default_rng(args.seed)
    learner = Learner(rng, args.learning_rate)
    env = NineFiveTwoEnv(args.ruleset)
    env.reset(seed=args.seed)
    deadline = time.monotonic() + 60 * args.minutes
    games = hands = 0
    rewards: deque[float] = deque(maxlen=2000)
    while time.monotonic() < deadline and (args.games == 0 or games < args.games):
        if games:
            env.reset()
        me = games % 3
        opponents: dict[int, Policy] = {
            seat: RandomPolicy(int(rng.integers(2**31)))
            if rng.random() < args.random_share
            else GreedyPolicy()
            for seat in range(3)
        }
        queued: dict[int, list[Action]] = {seat: [] for seat in range(3)}
        steps: list[tuple[np.ndarray, int, np.ndarray]] = []
        while not all(env.terminations.values()):
            agent = env.agent_selection
            seat = AGENTS.index(agent)
            if seat == me:
                seen = env.observe(agent)
                features = seen["observation"].astype(np.float64)
                action, probs = learner.act(features, seen["action_mask"])
                steps.append((features, action, probs))
            else:
                if not queued[seat]:
                    queued[seat] = steps_of(opponents[seat].act(env.observation_of(agent)))
                action = action_index(queued[seat].pop(0))
            env.step(action)
            if any(env.rewards.values()) or all(env.terminations.values()):
                reward = float(env.rewards[AGENTS[me]])
                learner.update(steps, reward)
                rewards.append(reward)
                steps = []
                hands += 1
        games += 1
        if on_game is not None:
            left = max(0.0, deadline - time.monotonic())
            on_game(games, left, statistics.fmean(rewards) if rewards else 0.0)
    stats = {"games": games, "hands": hands, "recent_mean_hand_reward": statistics.fmean(rewards)}
    return learner, stats


def write_bot(learner: Learner, out: Path, name: str, version: str) -> None:
    """The bot directory: manifest, code and weights."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HERE / "linear_bot.py", out / "bot.py")
    weights = {
        "name": name,
        "version": version,
        "size": SIZE,
        "w": [[round(float(v), 5) for v in row] for row in learner.w],
        "b": [round(float(v), 5) for v in learner.b],
    }
    (out / "weights.json").write_text(json.dumps(weights, separators=(",", ":")), "utf-8")
    (out / "bot.toml").write_text(
        f'name = "{name}"\n'
        f'version = "{version}"\n'
        'language = "python"\n'
        'run = "python bot.py"\n'
        'description = "A linear policy on the arena encoding, trained by '
        'examples/train_policy.py (REINFORCE)."\n',
        "utf-8",
    )


def load_bot_policy(out: Path) -> EncodedPolicy:
    """The written bot's own policy function (its bot.py and weights), in-process."""
    spec = importlib.util.spec_from_file_location("trained_bot", out / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # The folder is the bot to submit: importing it here must leave no __pycache__ in it.
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes_bytecode
    return EncodedPolicy(module.policy, "trained")


def evaluate(
    policy: EncodedPolicy,
    ruleset: str,
    boards: int,
    first_seed: int,
    on_board: BoardDone | None = None,
) -> dict[str, float]:
    """Duplicate boards against two random players: mean margin and its 95% interval."""
    rules = PRESETS[ruleset]
    margins = []
    for board in range(boards):
        seed = first_seed + board
        per_seat = []
        for seat in range(3):
            players: list[Policy] = [RandomPolicy(seed * 3 + s) for s in range(3)]
            players[seat] = policy
            scores = play_game(rules, seed, players).result
            assert scores is not None
            others = [scores.scores[s] for s in range(3) if s != seat]
            per_seat.append(scores.scores[seat] - statistics.fmean(others))
        margins.append(statistics.fmean(per_seat))
        if on_board is not None:
            on_board(board + 1)
    mean = statistics.fmean(margins)
    half = 1.96 * statistics.stdev(margins) / math.sqrt(boards) if boards > 1 else math.nan
    return {"boards": boards, "mean": mean, "low": mean - half, "high": mean + half}


def train_with_progress(args: argparse.Namespace) -> tuple[Learner, dict[str, Any]]:
    """:func:`train` under the CLI's progress bar: games (of ``--games``, if set), the
    time budget left and the recent mean hand reward."""
    bar = progress_bar("train")
    with bar:
        task = bar.add_task(args.ruleset, total=args.games or None, rate="")

        def on_game(games: int, left: float, reward: float) -> None:
            bar.update(
                task,
                completed=games,
                rate=f"{left:.0f} s left, mean hand reward {reward:+.3f}",
            )

        return train(args, on_game)


def evaluate_with_progress(policy: EncodedPolicy, args: argparse.Namespace) -> dict[str, float]:
    """:func:`evaluate` under the CLI's progress bar, a board at a time; its boards'
    seeds are far from the training games' (those came from ``--seed``'s generator)."""
    bar = progress_bar("measure")
    with bar:
        task = bar.add_task("vs random", total=args.eval_boards, rate="boards x 3 seats")
        return evaluate(
            policy,
            args.ruleset,
            args.eval_boards,
            10**9,
            lambda boards: bar.update(task, completed=boards),
        )


def main(argv: list[str] | None = None) -> int:
    """Train, write the bot, measure it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="bot directory to write")
    parser.add_argument("--minutes", type=float, default=6.0, help="training time budget")
    parser.add_argument(
        "--games", type=int, default=0, help="stop after this many games (0: time only)"
    )
    parser.add_argument("--ruleset", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--learning-rate", type=float, default=0.01)
    parser.add_argument("--random-share", type=float, default=0.5, help="share of random opponents")
    parser.add_argument("--eval-boards", type=int, default=200, help="0 skips the measurement")
    parser.add_argument("--name", default="linear_bot")
    parser.add_argument("--version", default="1.0.0")
    args = parser.parse_args(argv)
    started = time.monotonic()
    learner, stats = train_with_progress(args)
    print(
        f"trained {stats['games']} games ({stats['hands']} hands) in "
        f"{time.monotonic() - started:.0f} s; recent mean hand reward "
        f"{stats['recent_mean_hand_reward']:+.3f}",
        flush=True,
    )
    write_bot(learner, args.out, args.name, args.version)
    print(f"wrote {args.out} (bot.toml, bot.py, weights.json)", flush=True)
    if args.eval_boards:
        result = evaluate_with_progress(load_bot_policy(args.out), args)
        print(
            f"vs two random players, {result['boards']} duplicate boards x 3 seats: "
            f"mean margin per game {result['mean']:+.2f}, "
            f"95% CI [{result['low']:+.2f}, {result['high']:+.2f}]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
