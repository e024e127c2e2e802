"""A bot playing a linear policy trained by examples/train_policy.py (copied there as bot.py).

The weights live in ``weights.json`` beside this file. The forward pass is pure Python on
the encoding of arena.envs.encoding (through arena.sdk.EncodedBot), so the bot needs
nothing beyond the arena's own interpreter in the sandbox: no numpy. It plays the legal
action of highest score (the trained softmax policy's most likely action).
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.envs.encoding import SIZE
from arena.sdk import EncodedBot

WEIGHTS = json.loads(Path(__file__).with_name("weights.json").read_text(encoding="utf-8"))
if WEIGHTS["size"] != SIZE:
    raise SystemExit(f"weights.json is for an encoding of {WEIGHTS['size']} values, not {SIZE}")
ROWS: list[list[float]] = WEIGHTS["w"]
BIAS: list[float] = WEIGHTS["b"]


def policy(features: list[float], mask: list[int]) -> int:
    """The allowed action of highest linear score."""
    active = [(i, v) for i, v in enumerate(features) if v]
    best, best_score = -1, float("-inf")
    for action, allowed in enumerate(mask):
        if allowed:
            row = ROWS[action]
            score = BIAS[action] + sum(row[i] * v for i, v in active)
            if score > best_score:
                best, best_score = action, score
    return best


if __name__ == "__main__":
    EncodedBot(policy, name=WEIGHTS["name"], version=WEIGHTS["version"]).run()
