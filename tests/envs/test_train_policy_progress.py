"""examples/train_policy.py shows its progress while it trains and while it measures the
bot, with the CLI's progress bar (arena.cli.common.progress_bar) on standard error: it
used to print nothing during a 6-minute training and a 2.5-minute measurement."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.envs.optional import require
from tests.envs.test_train_policy import load_example

require("pettingzoo", "pettingzoo")


def test_training_and_measuring_draw_the_clis_progress_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = load_example()
    args = ["--out", str(tmp_path / "bot"), "--games", "3", "--eval-boards", "2"]
    assert example.main(args) == 0
    printed = capsys.readouterr()
    bars = [line for line in printed.err.splitlines() if "━" in line]
    assert len(bars) == 2, printed.err
    trained, measured = bars
    assert trained.startswith("train classic") and " 3/3 " in trained
    assert "s left, mean hand reward" in trained
    assert measured.startswith("measure vs random") and " 2/2 " in measured
    # The results themselves stay on standard output, apart from the bars.
    assert "━" not in printed.out and "trained 3 games" in printed.out


def test_the_bars_follow_every_game_and_every_board() -> None:
    """The callbacks behind the bars: one call per game and per board, in order. Control
    for the test above: a bar drawn only at the end would show the same last line."""
    example = load_example()
    games: list[int] = []
    args = argparse.Namespace(
        seed=0, learning_rate=0.01, ruleset="classic", minutes=5.0, games=4, random_share=0.5
    )
    learner, stats = example.train(args, lambda done, left, reward: games.append(done))
    assert games == [1, 2, 3, 4] == list(range(1, stats["games"] + 1))
    boards: list[int] = []
    policy = example.EncodedPolicy(lambda features, mask: mask.index(1), "first legal")
    example.evaluate(policy, "classic", 3, 10**9, boards.append)
    assert boards == [1, 2, 3]
    assert learner is not None
