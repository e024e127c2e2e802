"""examples/train_policy.py end to end, in miniature: a few games of training write a bot
directory that ``arena bot check`` accepts (real bot processes over real gRPC), and the
written bot's policy is the trained one."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arena.cli import main
from arena.envs.encoding import SIZE
from tests.envs.optional import require

require("pettingzoo", "pettingzoo")

import numpy as np  # noqa: E402  # optional: after the check above

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_policy.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_policy", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_policy"] = module
    spec.loader.exec_module(module)
    return module


def test_a_tiny_training_writes_a_bot_that_passes_bot_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = load_example()
    out = tmp_path / "tiny_bot"
    args = ["--out", str(out), "--games", "2", "--eval-boards", "2", "--name", "tiny_bot"]
    assert example.main(args) == 0
    printed = capsys.readouterr().out
    assert "trained 2 games" in printed and "95% CI" in printed
    assert sorted(p.name for p in out.iterdir()) == ["bot.py", "bot.toml", "weights.json"]
    weights = json.loads((out / "weights.json").read_text())
    assert len(weights["w"]) == 57 and any(any(row) for row in weights["w"])  # it learned something

    assert main(["bot", "check", str(out), "--games", "1"]) == 0
    assert "no faults" in capsys.readouterr().out


def test_the_written_bot_plays_its_weights(tmp_path: Path) -> None:
    example = load_example()
    learner = example.Learner(np.random.default_rng(0), 0.01)
    learner.b[3] = 5.0  # a bias towards the three of spades, and nothing else
    example.write_bot(learner, tmp_path, "biased", "1")
    policy = example.load_bot_policy(tmp_path).policy
    mask = [0] * 57
    mask[3] = mask[40] = 1
    assert policy([0.0] * SIZE, mask) == 3
    mask[3] = 0  # control: the favourite is not allowed, so it plays the other
    assert policy([0.0] * SIZE, mask) == 40
