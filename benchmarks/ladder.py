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
so the default is 60 repetitions (95% = 57 of 60). A steadier companion figure is the mean over
runs of the games after which that run's order stays right to its end (each run's last
wrong checkpoint). Both schedules are read at the same checkpoints, so both figures are
rounded up alike, by less than one step of 3n games (on average that nudges the ratio up
a little: at 20 bots, half a step is 3% of the ladder's figure and 1.5% of the round
robin's). Choose matchmaker rules on other seeds
(``--seed``) than the published table's seed 1, or the table measures the tuning.

Run: ``python benchmarks/ladder.py [--sizes 8,20,50] [--reps 60] [--json]``
Goals: at 20 bots the ladder needs at most half the round robin's games, and the advantage
grows with n; a matchmaker decision takes under 10 ms at 500 entrants.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

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


def ladder_table(field: Field, match: int, rng: random.Random) -> tuple[int, int, int]:
    contenders = [
        Contender(b, r.mu, r.sigma, g)
        for b, (r, g) in enumerate(zip(field.ratings, field.games, strict=True))
    ]
    return pick_table(contenders, random.Random(rng.getrandbits(64)))


def round_robin(n: int) -> Schedule:
    tables = RoundRobin().tables(n)
    return lambda field, match, rng: tables[match % len(tables)]


def trajectory(
    n: int, schedule: Schedule, boards: int, step: int, strengths: Sequence[float], seed: int
) -> list[bool]:
    """Whether the order is right at each checkpoint of one run."""
    rng = random.Random(seed)
    field = Field.new(n, strengths, rng)
    right = []
    for match in range(boards):
        field.play(schedule(field, match, rng), rng)
        if (match + 1) % step == 0:
            right.append(field.order_is_right())
    return right


def mean_settled(runs: Sequence[Sequence[bool]], step: int) -> float:
    """The mean over runs of the games after which the run's order stays right to its end
    (0 if it is never wrong; the run's length if it is wrong at its end)."""
    settled = []
    for run in runs:
        wrong = [c for c, right in enumerate(run) if not right]
        settled.append(0 if not wrong else (wrong[-1] + 1) * step * 6)
    return statistics.mean(settled)


def games_needed(
    runs: Sequence[Sequence[bool]], step: int, every: int = 1
) -> tuple[int | None, int]:
    """The first checkpoint (in games) from which on the order is right in >= 95% of the
    runs until their end, reading only every *every*-th checkpoint; ``None`` if there is
    none. Also the run length in games."""
    checkpoints = len(runs[0])
    read = range(every - 1, checkpoints, every)
    share = {c: sum(run[c] for run in runs) / len(runs) for c in read}
    first = None
    for c in reversed(read):
        if share[c] < TARGET:
            break
        first = c
    length = checkpoints * step * 6
    return (None if first is None else (first + 1) * step * 6), length


def compare(n: int, reps: int, strengths: Sequence[float], seed: int) -> dict[str, Any]:
    """Games needed by the ladder and by the round robin for *n* bots."""
    step = max(1, n // 2)
    tables = math.comb(n, 3)
    boards = HORIZON * n - HORIZON * n % step
    result: dict[str, Any] = {"bots": n, "reps": reps, "step_games": step * 6}
    for label, schedule in (("ladder", ladder_table), ("round_robin", round_robin(n))):
        start = time.perf_counter()
        # Both schedules play the same seeds: the same fields (levels shuffled alike).
        runs = [trajectory(n, schedule, boards, step, strengths, seed + r) for r in range(reps)]
        needed, length = games_needed(runs, step)
        result[label] = {
            "games_needed": needed,
            "run_games": length,
            "mean_games_until_right": round(mean_settled(runs, step)),
            "seconds": round(time.perf_counter() - start, 1),
        }
        if label == "round_robin":
            # Read only where a board ends: what a finished round robin promises. With no
            # board end within the run, one whole board is a lower bound.
            if tables <= boards:
                whole, _ = games_needed(runs, step, tables // step)
                result[label]["games_needed_whole_boards"] = whole
            result[label]["one_board_games"] = tables * 6
    ladder, rr = result["ladder"]["games_needed"], result["round_robin"]["games_needed"]
    rr_bound = rr if rr is not None else result["round_robin"]["run_games"]
    result["ratio"] = None if ladder is None else round(ladder / rr_bound, 3)
    result["ratio_is_upper_bound"] = rr is None
    result["mean_ratio"] = round(
        result["ladder"]["mean_games_until_right"]
        / max(1, result["round_robin"]["mean_games_until_right"]),
        3,
    )
    return result


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,20,50", help="bot counts (default 8,20,50)")
    parser.add_argument("--reps", type=int, default=60, help="repetitions per size")
    parser.add_argument("--calibration-boards", type=int, default=3,
                        help="real boards per table of three levels (default 3)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    strengths, calibration = calibrate(args.calibration_boards, args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    results = [compare(n, args.reps, strengths, args.seed * 1000 + n) for n in sizes]
    speed = {n: decision_times(n, 300, args.seed) for n in DECISION_SIZES}
    report = {"calibration": calibration, "schedules": results, "decision": speed}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"calibration ({calibration['games']} real games, {calibration['seconds']} s):")
    for eps, s in zip(calibration["grid_epsilons"], calibration["grid_strengths"], strict=True):
        print(f"  epsilon {eps:.3f}: strength {s:+.2f}")
    print(f"  fitted line: {calibration['slope_per_epsilon']:+.2f} per unit of epsilon; levels "
          f"{calibration['level_epsilons']} -> {calibration['level_strengths']}")  # fmt: skip
    print()
    print("| bots | reps | ladder games | round robin games | ladder / round robin "
          "| mean per run: ladder / round robin | round robin, whole boards |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:

        def shown(entry: dict[str, Any]) -> str:
            needed = entry["games_needed"]
            return f"{needed:,}" if needed is not None else f"> {entry['run_games']:,}"

        ratio = (
            "-"
            if r["ratio"] is None
            else f"{'< ' if r['ratio_is_upper_bound'] else ''}{r['ratio']:.2f}"
        )
        rr = r["round_robin"]
        if "games_needed_whole_boards" not in rr:
            boards = f">= {rr['one_board_games']:,}"
        elif rr["games_needed_whole_boards"] is None:
            boards = f"> {rr['run_games']:,}"
        else:
            boards = f"{rr['games_needed_whole_boards']:,}"
        means = (
            f"{r['ladder']['mean_games_until_right']:,} / {rr['mean_games_until_right']:,} "
            f"= {r['mean_ratio']:.2f}"
        )
        print(
            f"| {r['bots']} | {r['reps']} | {shown(r['ladder'])} | {shown(rr)} "
            f"| {ratio} | {means} | {boards} |"
        )
    print()
    for n, times in speed.items():
        print(f"matchmaker decision, {n} entrants: CPU median {times['cpu_median_ms']} ms, "
              f"p99 {times['cpu_p99_ms']} ms; wall median {times['wall_median_ms']} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
