"""Ladder vs round robin: the games each schedule needs until the standings order is right,
and how long the ladder's matchmaker takes to choose a table.

**Bots of known strength.** Greedy play with a uniformly random decision with probability
epsilon, at ``LEVELS`` = 4 epsilons (0 = greedy, 1/3, 2/3, 1 = random); *n* bots are spread
over the levels in turn, so several bots share a level. The standings order is *right* when
no bot stands above a bot of a stronger level (bots of one level are equal, so their order
among themselves is free). Four levels, not one per bot: adjacent epsilons of 20 or 50
bots are closer than TrueSkill can ever order (its dynamics ``tau`` keep every sigma above
a floor), under any schedule.

**Stage 1, real games.** Every table of three different epsilons of a ``GRID`` of 8 plays
``--calibration-boards`` duplicate boards in-process (the built-in policies, no bot
processes: the same deals under all 6 seatings). From who beat whom on each board's total
score, each epsilon's strength is fitted by Thurstone-Mosteller Case V (least squares on
the probits of the pairwise win rates, Mosteller 1951: a board performance is the strength
plus a standard normal), and a straight line through them gives the levels' strengths.

**Stage 2, schedules.** A full round robin of 50 bots is 117,600 games a board, far beyond
real games here, so the schedules are compared on board outcomes drawn from that fitted
model: each bot of a table draws its performance, the board's ranks follow, and the arena's
own TrueSkill model (``DEFAULT_MODEL``, board mode) rates it. Both schedules get the same
model, the same ratings code (one rating update per board: ``--rating-mode board``, the
default, which is how a ladder's matches are rated), the same run length (``HORIZON`` = 60
boards per bot) and the same checkpoints: every n / 2 boards the standings (by
``mu - 3 sigma``, as ``arena standings`` sorts) are checked. The round robin plays the
arena's own schedule (``RoundRobin``: board-major, tables in order), read at every
checkpoint (mid-board too: a round robin may stop wherever its order is right) and, in a
last column, only where a board ends (what a finished round robin promises; a lower bound
when no board ends within the run). The ladder plays its matchmaker (``pick_table``, one
match at a time, as ``--parallel 1`` does) with the arena's defaults.

**The figures.** Games needed = the first checkpoint from which on the order is right in at
least 95% of the repetitions, up to the end of the run (``>`` the run's length if never).
That is a tail quantile, and a coarse one: with 10 repetitions it is the worst of ten runs
(at 50 bots the round robin's figure was 6,750 games over 10 runs, and is 8,100 over 60),
so the default is 60 repetitions (95% = 57 of 60): a quick look, while deciding the goals
takes hundreds (see the intervals below). A steadier companion figure is the mean over
runs of the games after which that run's order stays right to its end (each run's last
wrong checkpoint). Both schedules are read at the same checkpoints, so both figures are
rounded up alike, by less than one step of 3n games (on average that nudges the ratio up
a little: at 20 bots, half a step is 3% of the ladder's figure and 1.5% of the round
robin's). Choose matchmaker rules on other seeds
(``--seed``) than the published table's seed 1, or the table measures the tuning.

**How sure the figures are.** Each figure comes with a 95% bootstrap interval (percentile
method, Efron and Tibshirani 1993, ch. 13): the repetitions are resampled with replacement
``--resamples`` times (1,000; seeded, so the intervals are reproducible too) and every
figure is recomputed on each resample. A resample draws the same repetitions for both
schedules, since repetition *r* of both plays the same field, so the ratios' intervals
are paired. Different bot counts are independent samples: the change of a ratio from one
count to the next pairs their resamples at random, which is how "the advantage grows with
n" is read (an interval wholly below 0). A goal is *met* when its whole interval is within
it, *missed* when none of it is, and otherwise *inconclusive*. The 95% figure is a tail
quantile and moves in steps of a checkpoint, so its interval is coarse and only
approximate (the bootstrap of a tail quantile needs many repetitions: hundreds, not 60).

**Parallel runs.** Repetition *r* plays from its own seed (``seed * 1000 + n + r``), never
from a generator shared with other repetitions, so ``--jobs N`` (processes) gives exactly
the serial run's figures.

Run: ``python benchmarks/ladder.py [--sizes 8,20,50] [--reps 60 | --reps 300,300,100] [--jobs 1]
[--resamples 1000] [--seed 1] [--json]``
Goals: at 20 bots the ladder needs at most half the round robin's games, and the advantage
grows with n; a matchmaker decision takes under 10 ms at 500 entrants.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.game.observation import observe
from arena.game.policies import EpsilonGreedyPolicy, Policy
from arena.game.rules import get_ruleset
from arena.game.state import GameState
from arena.ratings.trueskill_model import DEFAULT_MODEL, Rating, ranks_for_totals
from arena.tournament.formats import SEATINGS, RoundRobin
from arena.tournament.matchmaker import Contender, pick_table

GRID = 8
"""Epsilons the real games are played at: 0, 1/7, ..., 1."""
LEVELS = 4
"""Strength levels of the bots: epsilon 0, 1/3, 2/3, 1 (on the fitted line)."""
TARGET = 0.95
HORIZON = 60
"""Boards per bot that each run of either schedule plays (the same for both)."""
DECISION_SIZES = (50, 500)


# ------------------------------------------------------------------ stage 1: real games


def epsilons(count: int = GRID) -> list[float]:
    """*count* epsilons from 0 (strongest) to 1."""
    return [step / (count - 1) for step in range(count)]


def play_board(levels: Sequence[int], board: int) -> list[int]:
    """Total scores of one real duplicate board (6 seatings, one deal) of three grid
    epsilons."""
    rules = get_ruleset("classic")
    eps = epsilons()
    totals = [0, 0, 0]
    for seating_index, seating in enumerate(SEATINGS):
        policies: list[Policy] = [
            EpsilonGreedyPolicy(eps[levels[seating[seat]]], board * 100 + seating_index * 3 + seat)
            for seat in range(3)
        ]
        state = GameState(rules, 7919 * board + 1, first_dealer=board % 3)
        while not state.is_over:
            seat = state.current_seat
            state.apply_decision(policies[seat].act(observe(state, seat)))
        assert state.result is not None
        for seat in range(3):
            totals[seating[seat]] += state.result.scores[seat]
    return totals


def calibrate(boards: int, seed: int) -> tuple[list[float], dict[str, Any]]:
    """Each level's strength (in board-performance standard deviations), from real games."""
    wins = [[0.0] * GRID for _ in range(GRID)]
    played = [[0] * GRID for _ in range(GRID)]
    start = time.perf_counter()
    games = 0
    for board in range(boards):
        for table in itertools.combinations(range(GRID), 3):
            totals = play_board(table, seed * 10_000 + board * 100 + sum(table))
            games += 6
            for (i, a), (j, b) in itertools.combinations(enumerate(table), 2):
                played[a][b] += 1
                played[b][a] += 1
                share = 1.0 if totals[i] > totals[j] else 0.0 if totals[i] < totals[j] else 0.5
                wins[a][b] += share
                wins[b][a] += 1.0 - share
    probit = NormalDist().inv_cdf
    grid = []
    for a in range(GRID):
        total = 0.0
        for b in range(GRID):
            if a != b:
                # A 0 or 1 rate has an infinite probit: shrink by half a board.
                rate = (wins[a][b] + 0.5) / (played[a][b] + 1.0)
                total += math.sqrt(2.0) * probit(rate)
        grid.append(total / GRID)
    slope, intercept = statistics.linear_regression(epsilons(), grid)
    strengths = [intercept + slope * eps for eps in epsilons(LEVELS)]
    info = {
        "boards_per_table": boards,
        "games": games,
        "seconds": round(time.perf_counter() - start, 1),
        "grid_epsilons": [round(e, 3) for e in epsilons()],
        "grid_strengths": [round(s, 3) for s in grid],
        "slope_per_epsilon": round(slope, 3),
        "level_epsilons": [round(e, 3) for e in epsilons(LEVELS)],
        "level_strengths": [round(s, 3) for s in strengths],
    }
    return strengths, info


# --------------------------------------------------------------- stage 2: the schedules


@dataclass
class Field:
    """*n* bots, their levels and current ratings."""

    levels: list[int]
    strengths: list[float]
    ratings: list[Rating]
    games: list[int]

    @classmethod
    def new(cls, n: int, strengths: Sequence[float], rng: random.Random) -> Field:
        levels = [i % LEVELS for i in range(n)]
        rng.shuffle(levels)
        prior = DEFAULT_MODEL.initial()
        return cls(levels, [strengths[lv] for lv in levels], [prior] * n, [0] * n)

    def play(self, table: Sequence[int], rng: random.Random) -> None:
        """One board of *table*: performances drawn from the fitted model, rated once."""
        performance = [self.strengths[b] + rng.gauss(0.0, 1.0) for b in table]
        # ranks_for_totals wants integers; a million steps keep every order.
        ranks = ranks_for_totals([round(p * 1e6) for p in performance])
        rated = DEFAULT_MODEL.rate([self.ratings[b] for b in table], ranks)
        for bot, rating in zip(table, rated, strict=True):
            self.ratings[bot] = rating
            self.games[bot] += 6

    def order_is_right(self) -> bool:
        """No bot stands above a bot of a stronger level (lower level number)."""
        order = sorted(
            range(len(self.levels)),
            key=lambda b: (-self.ratings[b].conservative, -self.ratings[b].mu, b),
        )
        worst = -1
        for bot in order:
            if self.levels[bot] < worst:
                return False
            worst = max(worst, self.levels[bot])
        return True


Schedule = Callable[[Field, int, random.Random], tuple[int, int, int]]
SCHEDULES = ("ladder", "round_robin")
RESAMPLES = 1000
"""Bootstrap resamples per interval."""
LEVEL = 0.95
"""The intervals' coverage."""


def ladder_table(field: Field, match: int, rng: random.Random) -> tuple[int, int, int]:
    contenders = [
        Contender(b, r.mu, r.sigma, g)
        for b, (r, g) in enumerate(zip(field.ratings, field.games, strict=True))
    ]
    return pick_table(contenders, random.Random(rng.getrandbits(64)))


@functools.cache
def _round_robin_tables(n: int) -> list[tuple[int, int, int]]:
    return list(RoundRobin().tables(n))


def schedule_for(name: str, n: int) -> Schedule:
    """The schedule called *name* (one of ``SCHEDULES``) for *n* bots."""
    if name == "ladder":
        return ladder_table
    tables = _round_robin_tables(n)
    return lambda field, match, rng: tables[match % len(tables)]


def trajectory(
    n: int, schedule: str, boards: int, step: int, strengths: Sequence[float], seed: int
) -> list[bool]:
    """Whether the order is right at each checkpoint of one run of *schedule*."""
    choose = schedule_for(schedule, n)
    rng = random.Random(seed)
    field = Field.new(n, strengths, rng)
    right = []
    for match in range(boards):
        field.play(choose(field, match, rng), rng)
        if (match + 1) % step == 0:
            right.append(field.order_is_right())
    return right


def _trajectory_job(job: tuple[int, str, int, int, tuple[float, ...], int]) -> list[bool]:
    return trajectory(*job)


def play_runs(
    n: int, schedule: str, strengths: Sequence[float], seed: int, reps: int, jobs: int
) -> np.ndarray:
    """Repetitions ``seed .. seed + reps - 1`` of *schedule*: a (reps, checkpoints) array of
    whether the order is right, the same for any number of *jobs*."""
    step = max(1, n // 2)
    boards = HORIZON * n - HORIZON * n % step
    work = [(n, schedule, boards, step, tuple(strengths), seed + r) for r in range(reps)]
    if jobs <= 1:
        runs = [_trajectory_job(job) for job in work]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            runs = list(pool.map(_trajectory_job, work, chunksize=max(1, reps // (4 * jobs))))
    return np.array(runs, dtype=bool)


def games_needed(right: np.ndarray, reps: int, step: int) -> np.ndarray:
    """From *right*, how many of *reps* runs are right at each checkpoint (last axis; any
    leading axes, e.g. bootstrap resamples): the games up to the first checkpoint from which
    on the order is right in >= 95% of the runs until their end, ``inf`` if there is none."""
    ok = right / reps >= TARGET
    tail = np.logical_and.accumulate(ok[..., ::-1], axis=-1).sum(axis=-1)
    first = ok.shape[-1] - tail
    return np.where(tail > 0, (first + 1) * step * 6, np.inf)


def settled_games(runs: np.ndarray, step: int) -> np.ndarray:
    """Per run, the games after which its order stays right to its end (0 if it is never
    wrong; the run's length if it is wrong at its end)."""
    wrong = ~runs
    last_wrong = runs.shape[1] - 1 - np.argmax(wrong[:, ::-1], axis=1)
    return np.where(wrong.any(axis=1), (last_wrong + 1) * step * 6, 0)


def resample_counts(reps: int, resamples: int, seed: Sequence[int]) -> np.ndarray:
    """(resamples, reps): how often each repetition is drawn in each bootstrap resample.
    Drawing *reps* repetitions with replacement is one multinomial draw of these counts."""
    rng = np.random.default_rng(list(seed))
    return rng.multinomial(reps, np.full(reps, 1.0 / reps), size=resamples)


def interval(values: np.ndarray) -> list[float | None]:
    """The central ``LEVEL`` percentile interval of bootstrap *values* (an ``inf`` end, a
    figure never reached within the run, as ``None``)."""
    tail = (1.0 - LEVEL) / 2.0
    ends = np.quantile(values, [tail, 1.0 - tail], method="inverted_cdf")
    return [None if not math.isfinite(e) else round(float(e), 3) for e in ends]


def _ratio(ladder: np.ndarray, rr: np.ndarray, run_games: int) -> np.ndarray:
    """The ladder's games over the round robin's, a round robin never right within the run
    counting as the run's length (so the ratio is an upper bound there)."""
    return ladder / np.where(np.isinf(rr), run_games, rr)


@dataclass
class Measured:
    """One bot count's runs of both schedules, and their figures on every resample."""

    n: int
    runs: dict[str, np.ndarray]
    """Per schedule, (reps, checkpoints): whether the order is right."""
    ratio_draws: np.ndarray
    mean_ratio_draws: np.ndarray
    result: dict[str, Any]


def compare(
    n: int,
    reps: int,
    strengths: Sequence[float],
    seed: int,
    jobs: int = 1,
    resamples: int = RESAMPLES,
) -> Measured:
    """Games needed by the ladder and by the round robin for *n* bots, with intervals."""
    step = max(1, n // 2)
    tables = math.comb(n, 3)
    runs: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    for label in SCHEDULES:
        start = time.perf_counter()
        # Both schedules play the same seeds: the same fields (levels shuffled alike).
        runs[label] = play_runs(n, label, strengths, seed, reps, jobs)
        seconds[label] = round(time.perf_counter() - start, 1)
    run_games = runs["ladder"].shape[1] * step * 6
    counts = resample_counts(reps, resamples, (seed, n))
    result: dict[str, Any] = {"bots": n, "reps": reps, "step_games": step * 6}
    needed, draws, settled, means = {}, {}, {}, {}
    for label in SCHEDULES:
        right = runs[label].astype(np.int64)
        needed[label] = float(games_needed(right.sum(axis=0), reps, step))
        draws[label] = games_needed(counts @ right, reps, step)
        settled[label] = settled_games(runs[label], step)
        means[label] = (counts @ settled[label]) / reps
        result[label] = {
            "games_needed": None if math.isinf(needed[label]) else int(needed[label]),
            "games_needed_interval": interval(draws[label]),
            "run_games": run_games,
            "mean_games_until_right": round(float(settled[label].mean())),
            "mean_games_until_right_interval": interval(means[label]),
            "seconds": seconds[label],
        }
    rr = result["round_robin"]
    # Read only where a board ends: what a finished round robin promises. With no board end
    # within the run, one whole board is a lower bound.
    every = tables // step
    if tables <= runs["round_robin"].shape[1] * step:
        whole = games_needed(runs["round_robin"][:, every - 1 :: every].sum(axis=0), reps,
                             step * every)  # fmt: skip
        rr["games_needed_whole_boards"] = None if math.isinf(whole) else int(whole)
    rr["one_board_games"] = tables * 6
    ratio_draws = _ratio(draws["ladder"], draws["round_robin"], run_games)
    mean_ratio_draws = means["ladder"] / np.maximum(1.0, means["round_robin"])
    ratio = float(_ratio(np.array(needed["ladder"]), np.array(needed["round_robin"]), run_games))
    result["ratio"] = None if math.isinf(ratio) else round(ratio, 3)
    result["ratio_interval"] = interval(ratio_draws)
    result["ratio_is_upper_bound"] = math.isinf(needed["round_robin"])
    result["mean_ratio"] = round(
        float(settled["ladder"].mean()) / max(1.0, float(settled["round_robin"].mean())), 3
    )
    result["mean_ratio_interval"] = interval(mean_ratio_draws)
    return Measured(n, runs, ratio_draws, mean_ratio_draws, result)


def _change(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round(after - before, 3)


def trend(measured: Sequence[Measured]) -> list[dict[str, Any]]:
    """Intervals of each ratio's change from one bot count to the next (below 0: the
    ladder's advantage grows). The counts' runs are independent, so their resamples are
    paired in the order drawn, which is a random pairing."""
    return [
        {
            "bots": [a.n, b.n],
            "ratio_change": _change(a.result["ratio"], b.result["ratio"]),
            "ratio_change_interval": interval(b.ratio_draws - a.ratio_draws),
            "mean_ratio_change": _change(a.result["mean_ratio"], b.result["mean_ratio"]),
            "mean_ratio_change_interval": interval(b.mean_ratio_draws - a.mean_ratio_draws),
        }
        for a, b in itertools.pairwise(measured)
    ]


# ------------------------------------------------------------------ matchmaker speed


def decision_times(entrants: int, decisions: int, seed: int) -> dict[str, float]:
    """Milliseconds per matchmaker decision among *entrants* settled bots (the slower
    path: no newcomers), as CPU time of this thread (what the code costs: on a shared
    machine, wall time also counts the other processes) and as wall time."""
    rng = random.Random(seed)
    bots = [Contender(i, rng.gauss(25.0, 6.0), rng.uniform(0.8, 3.0), 60) for i in range(entrants)]
    cpu, wall = [], []
    for d in range(decisions):
        started, started_cpu = time.perf_counter(), time.thread_time()
        pick_table(bots, random.Random(d))
        cpu.append((time.thread_time() - started_cpu) * 1e3)
        wall.append((time.perf_counter() - started) * 1e3)
    cpu.sort()
    return {
        "cpu_median_ms": round(statistics.median(cpu), 3),
        "cpu_p99_ms": round(cpu[int(0.99 * (len(cpu) - 1))], 3),
        "wall_median_ms": round(statistics.median(wall), 3),
    }


def verdict(bounds: Sequence[float | None], limit: float) -> str:
    """Whether an interval says a figure is at most *limit*: ``met`` when all of it is,
    ``missed`` when none of it is, else ``inconclusive``."""
    low, high = bounds
    if high is not None and high <= limit:
        return "met"
    if low is None or low > limit:
        return "missed"
    return "inconclusive"


def goals(results: Sequence[dict[str, Any]], trends: Sequence[dict[str, Any]]) -> dict[str, str]:
    """The issue's goals read from the intervals: the ladder needs at most half the round
    robin's games at 20 bots, and its ratio falls from each bot count to the next."""
    read: dict[str, str] = {}
    for r in results:
        if r["bots"] == 20:
            read["20 bots, ratio <= 0.5"] = verdict(r["ratio_interval"], 0.5)
            read["20 bots, mean ratio <= 0.5"] = verdict(r["mean_ratio_interval"], 0.5)
    for t in trends:
        a, b = t["bots"]
        read[f"ratio falls from {a} to {b} bots"] = verdict(t["ratio_change_interval"], 0.0)
        read[f"mean ratio falls from {a} to {b} bots"] = verdict(
            t["mean_ratio_change_interval"], 0.0
        )
    return read


def _games(value: int | None, bounds: Sequence[float | None], run_games: int) -> str:
    def one(v: float | None) -> str:
        return f"> {run_games:,}" if v is None else f"{round(v):,}"

    return f"{one(value)} [{one(bounds[0])}, {one(bounds[1])}]"


def _share(value: float | None, bounds: Sequence[float | None], signed: bool = False) -> str:
    def one(v: float | None) -> str:
        return "-" if v is None else f"{v:+.2f}" if signed else f"{v:.2f}"

    return f"{one(value)} [{one(bounds[0])}, {one(bounds[1])}]"


def print_table(report: dict[str, Any]) -> None:
    """The report as text: calibration, the Markdown table, trends, goals and speed."""
    calibration = report["calibration"]
    print(f"calibration ({calibration['games']} real games, {calibration['seconds']} s):")
    for eps, s in zip(calibration["grid_epsilons"], calibration["grid_strengths"], strict=True):
        print(f"  epsilon {eps:.3f}: strength {s:+.2f}")
    print(f"  fitted line: {calibration['slope_per_epsilon']:+.2f} per unit of epsilon; levels "
          f"{calibration['level_epsilons']} -> {calibration['level_strengths']}")  # fmt: skip
    print()
    print(f"In brackets: {LEVEL:.0%} bootstrap intervals ({report['resamples']:,} resamples).")
    print("| bots | reps | ladder games | round robin games | ladder / round robin "
          "| mean per run: ladder / round robin | round robin, whole boards |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in report["schedules"]:
        ladder, rr = r["ladder"], r["round_robin"]
        ratio = _share(r["ratio"], r["ratio_interval"])
        if r["ratio_is_upper_bound"]:
            ratio = f"< {ratio}"
        if "games_needed_whole_boards" not in rr:
            boards = f">= {rr['one_board_games']:,}"
        elif rr["games_needed_whole_boards"] is None:
            boards = f"> {rr['run_games']:,}"
        else:
            boards = f"{rr['games_needed_whole_boards']:,}"
        means = (
            f"{ladder['mean_games_until_right']:,} / {rr['mean_games_until_right']:,} "
            f"= {_share(r['mean_ratio'], r['mean_ratio_interval'])}"
        )
        print(
            f"| {r['bots']} | {r['reps']} "
            f"| {_games(ladder['games_needed'], ladder['games_needed_interval'], ladder['run_games'])} "
            f"| {_games(rr['games_needed'], rr['games_needed_interval'], rr['run_games'])} "
            f"| {ratio} | {means} | {boards} |"
        )
    print()
    for t in report["trend"]:
        a, b = t["bots"]
        ratio = _share(t["ratio_change"], t["ratio_change_interval"], signed=True)
        mean = _share(t["mean_ratio_change"], t["mean_ratio_change_interval"], signed=True)
        print(f"change from {a} to {b} bots: ratio {ratio}, mean ratio {mean}")
    for goal, reading in report["goals"].items():
        print(f"goal: {goal}: {reading}")
    print()
    for n, times in report["decision"].items():
        print(f"matchmaker decision, {n} entrants: CPU median {times['cpu_median_ms']} ms, "
              f"p99 {times['cpu_p99_ms']} ms; wall median {times['wall_median_ms']} ms")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,20,50", help="bot counts (default 8,20,50)")
    parser.add_argument("--reps", default="60",
                        help="repetitions per size, or one per size (e.g. 300,300,100)")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes playing repetitions (default 1; same figures)")  # fmt: skip
    parser.add_argument("--resamples", type=int, default=RESAMPLES,
                        help=f"bootstrap resamples per interval (default {RESAMPLES})")  # fmt: skip
    parser.add_argument("--calibration-boards", type=int, default=3,
                        help="real boards per table of three levels (default 3)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    strengths, calibration = calibrate(args.calibration_boards, args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    reps = [int(r) for r in args.reps.split(",")]
    if len(reps) == 1:
        reps *= len(sizes)
    if len(reps) != len(sizes):
        parser.error(f"--reps gives {len(reps)} counts for {len(sizes)} sizes")
    measured = []
    for n, count in zip(sizes, reps, strict=True):
        measured.append(
            compare(n, count, strengths, args.seed * 1000 + n, args.jobs, args.resamples)
        )
        # Progress on stderr: a long run shows each size's figures as soon as they exist.
        print(json.dumps(measured[-1].result), file=sys.stderr, flush=True)
    results = [m.result for m in measured]
    trends = trend(measured)
    speed = {n: decision_times(n, 300, args.seed) for n in DECISION_SIZES}
    report = {
        "calibration": calibration,
        "resamples": args.resamples,
        "interval_level": LEVEL,
        "schedules": results,
        "trend": trends,
        "goals": goals(results, trends),
        "decision": speed,
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
