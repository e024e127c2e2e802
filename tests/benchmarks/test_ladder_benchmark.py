"""The ladder benchmark's statistics (``benchmarks/ladder.py``): the games-needed figure, its
bootstrap intervals, and parallel repetitions giving the serial run's figures.

The benchmark's figures themselves are measured by running it, never asserted here."""

from __future__ import annotations

import math

import numpy as np

from tests.benchmarks.scripts import load_benchmark

ladder = load_benchmark("ladder")
STEP = 4
"""Boards per checkpoint of these hand-made runs: 24 games."""


def test_games_needed_is_the_start_of_the_tail_where_95_percent_are_right() -> None:
    runs = np.ones((20, 6), dtype=bool)
    runs[:, :2] = False  # every run wrong at the first two checkpoints
    runs[0, 3] = False  # one run in 20 wrong at the fourth: 95% right is enough
    right = runs.sum(axis=0)
    assert ladder.games_needed(right, 20, STEP) == 3 * STEP * 6
    # The control: a second wrong run there (90%) pushes the figure past that checkpoint.
    runs[1, 3] = False
    assert ladder.games_needed(runs.sum(axis=0), 20, STEP) == 5 * STEP * 6
    runs[:2, 5] = False  # wrong at the end of the run: never reached
    assert math.isinf(ladder.games_needed(runs.sum(axis=0), 20, STEP))


def test_settled_games_is_the_last_wrong_checkpoint_per_run() -> None:
    runs = np.array([[True] * 4, [False, True, True, True], [True, False, True, False]])
    assert ladder.settled_games(runs, STEP).tolist() == [0, 1 * STEP * 6, 4 * STEP * 6]


def test_resamples_draw_every_repetition_count_and_are_seeded() -> None:
    counts = ladder.resample_counts(30, 200, (7, 20))
    assert counts.shape == (200, 30) and (counts.sum(axis=1) == 30).all()
    assert (counts == ladder.resample_counts(30, 200, (7, 20))).all()
    assert not (counts == ladder.resample_counts(30, 200, (8, 20))).all()  # the control
    # With replacement: some repetitions are drawn twice or more, some not at all.
    assert (counts == 0).any() and (counts >= 2).any()


def test_the_interval_is_the_central_95_percent_of_the_draws() -> None:
    draws = np.random.default_rng(5).permutation(1000).astype(float)
    low, high = ladder.interval(draws)
    assert low is not None and high is not None
    # Ends are draws themselves, cutting at most 2.5% (and one draw) off either side.
    assert low in draws and high in draws
    assert 25 <= (draws <= low).sum() <= 27 and 25 <= (draws >= high).sum() <= 27
    # A figure that more than 2.5% of the resamples never reach within the run has no
    # upper end; the control: one that fewer than 2.5% never reach still has one.
    assert ladder.interval(np.where(draws >= 970, np.inf, draws)) == [low, None]
    assert ladder.interval(np.where(draws >= 980, np.inf, draws)) == [low, high]


def test_a_goal_is_decided_only_by_an_interval_on_one_side_of_it() -> None:
    assert ladder.verdict([0.42, 0.49], 0.5) == "met"
    assert ladder.verdict([0.45, 0.58], 0.5) == "inconclusive"
    assert ladder.verdict([0.51, 0.58], 0.5) == "missed"
    assert ladder.verdict([None, None], 0.5) == "missed"  # never reached within the run
    assert ladder.verdict([0.42, None], 0.5) == "inconclusive"


def test_an_interval_narrows_with_more_repetitions() -> None:
    """Runs right with probability 0.97 at every checkpoint: the 95% figure's interval from
    400 repetitions is narrower than from 40, which is the point of measuring hundreds."""
    rng = np.random.default_rng(3)

    def width(reps: int) -> float:
        runs = rng.random((reps, 30)) < np.linspace(0.5, 0.999, 30)
        draws = ladder.games_needed(
            ladder.resample_counts(reps, 1000, (1, reps)) @ runs.astype(np.int64), reps, STEP
        )
        low, high = ladder.interval(draws)
        return math.inf if high is None else high - low

    assert width(400) < width(40)


def test_parallel_repetitions_give_the_serial_runs() -> None:
    """Two repetitions in two processes: each plays from its own seed, so they are the
    serial run's repetitions."""
    strengths = [1.9, 0.6, -0.6, -1.9]
    serial = ladder.play_runs(6, "ladder", strengths, 1006, 2, jobs=1)
    assert (ladder.play_runs(6, "ladder", strengths, 1006, 2, jobs=2) == serial).all()
    # The control: another seed gives another run, so the equality is not vacuous.
    assert not (ladder.play_runs(6, "ladder", strengths, 1007, 1, jobs=1)[0] == serial[0]).all()
