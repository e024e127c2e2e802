"""Strength ladder: pimc against greedy and heuristic on duplicate boards, every preset.

Why: ``pimc_bot`` is the arena's reference opponent and ``heuristic_bot`` its sensible
middle rung; this measures whether the ladder random < greedy < heuristic < pimc holds in
every preset, and how pimc's strength grows with its thinking time.

Design: a *board* is one seed, so one sequence of deals (the seed fixes every deal
whatever the players do, docs/engine.md). Each board is played six times, once per
seating of the three bots over seats 0, 1, 2, so every bot holds every hand in every seat
once and the luck of the deal cancels. Games run in process (``GameState`` and each bot's
decision function on ``observe``), with no bot processes: the bots are the same code as
``sample_bots/*`` (the heuristic bot's class is imported from its directory; greedy is
the SDK's default policy; pimc is ``arena.search.PimcPolicy``, the policy of
``sample_bots/pimc_bot``).

Reported per preset and pimc budget: each bot's mean final score per game with a 95%
interval over boards (a board's value is the bot's mean over its six games), and the
per-board margins pimc - greedy, pimc - heuristic and heuristic - greedy with their 95%
intervals (normal approximation, mean +- 1.96 s / sqrt(boards)). Measured and reported,
never asserted.

Run: ``python benchmarks/strength.py [--boards 20] [--budgets 10,50,100]
[--presets classic,catalan] [--seed 1] [--json]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.game import PRESETS, Decision, GameState, Observation, observe
from arena.game.policies import GreedyPolicy
from arena.search import PimcPolicy

ROOT = Path(__file__).resolve().parent.parent
Z95 = 1.96
BOTS = ("pimc", "greedy", "heuristic")
MARGINS = (("pimc", "greedy"), ("pimc", "heuristic"), ("heuristic", "greedy"))

Act = Callable[[Observation], Decision]


def load_heuristic() -> Act:
    """The decision function of ``sample_bots/heuristic_bot`` (its class, imported)."""
    path = ROOT / "sample_bots" / "heuristic_bot" / "bot.py"
    spec = importlib.util.spec_from_file_location("heuristic_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bot = module.HeuristicBot()
    decide: Act = bot.decide
    return decide


def mean_ci(values: Sequence[float]) -> dict[str, float]:
    """Mean with a 95% normal-approximation interval: mean +- 1.96 * s / sqrt(n)."""
    n = len(values)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if n > 1 else float("nan")
    half = Z95 * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "low": mean - half, "high": mean + half}


def play(preset: str, seed: int, seating: Sequence[Act]) -> tuple[int, ...]:
    """One whole game; the final scores by seat."""
    state = GameState(PRESETS[preset], seed)
    while not state.is_over:
        seat = state.current_seat
        state.apply_decision(seating[seat](observe(state, seat)))
    assert state.result is not None
    return tuple(state.result.scores)


def board(preset: str, seed: int, acts: dict[str, Act]) -> dict[str, float]:
    """Each bot's mean final score over the six seatings of one board."""
    totals = dict.fromkeys(BOTS, 0.0)
    seatings = list(itertools.permutations(BOTS))
    for names in seatings:
        scores = play(preset, seed, [acts[name] for name in names])
        for seat, name in enumerate(names):
            totals[name] += scores[seat]
    return {name: total / len(seatings) for name, total in totals.items()}


def measure(
    preset: str, budget_ms: float, boards: int, seed: int, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Duplicate boards of one preset at one pimc budget."""
    pimc = PimcPolicy(seed, budget_ms)
    acts: dict[str, Act] = {
        "pimc": pimc.act,
        "greedy": GreedyPolicy().act,
        "heuristic": load_heuristic(),
    }
    per_board: list[dict[str, float]] = []
    started = time.perf_counter()
    for b in range(boards):
        per_board.append(board(preset, seed + b, acts))
        progress(f"{preset} @ {budget_ms:g} ms: board {b + 1}/{boards}")
    return {
        "preset": preset,
        "budget_ms": budget_ms,
        "boards": boards,
        "games": boards * 6,
        "seconds": time.perf_counter() - started,
        "scores": {name: mean_ci([r[name] for r in per_board]) for name in BOTS},
        "margins": {f"{a}-{b}": mean_ci([r[a] - r[b] for r in per_board]) for a, b in MARGINS},
    }


def print_block(r: dict[str, Any], out: Callable[[str], None] = print) -> None:
    """One preset at one budget."""
    out(
        f"{r['preset']} | pimc {r['budget_ms']:g} ms | {r['boards']} boards x 6 seatings"
        f" = {r['games']} games | {r['seconds']:.0f} s"
    )
    for name in BOTS:
        s = r["scores"][name]
        out(f"  {name:<10} score/game {s['mean']:6.2f}  95% [{s['low']:6.2f}, {s['high']:6.2f}]")
    for key, m in r["margins"].items():
        verdict = "above 0" if m["low"] > 0 else "below 0" if m["high"] < 0 else "not significant"
        out(
            f"  {key:<16} margin {m['mean']:6.2f}  95% [{m['low']:6.2f}, {m['high']:6.2f}]  {verdict}"
        )


def main(argv: list[str] | None = None) -> int:
    """Parse options, play the boards, print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=20, help="boards per preset (default 20)")
    parser.add_argument(
        "--budgets", default="10,50,100", help="pimc budgets in ms, comma-separated"
    )
    parser.add_argument(
        "--presets", default=",".join(PRESETS), help="comma-separated presets (default: all)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of board 0 (default 1)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    presets = [p for p in args.presets.split(",") if p]
    unknown = [p for p in presets if p not in PRESETS]
    if unknown or args.boards < 2:
        parser.error(f"unknown presets {unknown}" if unknown else "--boards must be >= 2")
    budgets = [float(b) for b in args.budgets.split(",") if b]

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    if not args.json:
        print("duplicate boards, in process; intervals: mean +- 1.96*s/sqrt(boards)", flush=True)
    results = []
    for budget in budgets:
        for preset in presets:
            result = measure(preset, budget, args.boards, args.seed, progress)
            results.append(result)
            if not args.json:  # each block as soon as it is measured: long runs stay useful
                print()
                print_block(result, lambda text: print(text, flush=True))
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
