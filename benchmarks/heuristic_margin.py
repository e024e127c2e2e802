"""Heuristic margin: how clearly ``sample_bots/heuristic_bot`` beats ``sample_bots/random_bot``.

Why: the heuristic bot is the arena's reference "sensible" opponent and the random bot its
baseline; if the heuristic does not beat random play by a clear, statistically solid margin,
either the heuristic or the game plumbing is wrong. Everything goes through the real
referee (``play_match``, real bot processes over gRPC), not the in-process engine, so the
figures also show that real matches run without faults.

Design: the heuristic plays against two random_bot processes; its seat is rotated over
0, 1 and 2 (one match per seat, ``games / 3`` games each, different seeds), so seat and
first-dealer effects cancel out. Per game we take the final scores (``result.scores``).

Reported for the heuristic: mean final score per game with a 95% confidence interval
(normal approximation: mean +- 1.96 * s / sqrt(n), s the sample standard deviation over
games), the outright win rate with a 95% Wilson score interval (a shared first place is a
draw, counted apart; random play would win about 1/3), the per-game margin over the
random bots' mean (with the same kind of interval), and faults (must be 0). The random
bots' mean score per game is reported the same way. ``--all-presets`` adds a short run
per preset (its game seeds follow the main run's). Results are measured and reported,
never asserted; the exit status is 1 only if a fault occurred (the figures are then void).

The same measure against another opponent: ``--random-bot sample_bots/greedy_bot`` plays
the heuristic against two greedy bots (the SDK default) through the referee; the report
then names that bot where it says random_bot. (The ladder of all sample bots on duplicate
boards, in process, is ``benchmarks/strength.py``.)

Run: ``python benchmarks/heuristic_margin.py [--games 300] [--ruleset classic]
[--all-presets [--preset-games 30]] [--random-bot DIR] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.protocol.grpc_env import configure_grpc

configure_grpc(os.environ)  # a script is an entry point: before anything imports grpc

from arena.game import PRESETS  # noqa: E402
from arena.referee.manifest import BotManifest, load_manifest  # noqa: E402
from arena.referee.match import MatchConfig, play_match  # noqa: E402
from arena.referee.timecontrol import TimeControl  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
Z95 = 1.96


def mean_ci(values: Sequence[float]) -> dict[str, float]:
    """Mean with a 95% normal-approximation interval: mean +- 1.96 * s / sqrt(n)."""
    n = len(values)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if n > 1 else float("nan")
    half = Z95 * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "low": mean - half, "high": mean + half}


def wilson(successes: int, n: int, z: float = Z95) -> dict[str, float]:
    """Proportion with its Wilson score interval (95% for z = 1.96)."""
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return {"successes": successes, "n": n, "rate": p, "low": centre - half, "high": centre + half}


def split_games(games: int) -> list[int]:
    """Games per heuristic seat 0, 1, 2 (as even as possible)."""
    return [games // 3 + (1 if seat < games % 3 else 0) for seat in range(3)]


async def measure(
    heuristic: BotManifest,
    random_bot: BotManifest,
    ruleset: str,
    games: int,
    seed: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """Three matches, the heuristic in seat 0, 1, 2 against two random bots."""
    rules = PRESETS[ruleset]
    h_scores: list[float] = []
    r_scores: list[float] = []
    margins: list[float] = []
    wins = draws = hands = 0
    faults: list[dict[str, Any]] = []
    h_decision_ms: list[float] = []
    started = time.perf_counter()
    offset = 0
    for seat, count in enumerate(split_games(games)):
        if count == 0:
            continue
        seats = [random_bot, random_bot, random_bot]
        seats[seat] = heuristic
        match_seed = seed + offset  # consecutive game seeds, never reused across matches
        offset += count
        progress(f"{ruleset}: heuristic in seat {seat}, {count} games, seed {match_seed} ...")
        result = await play_match(
            seats, MatchConfig(rules, count, match_seed, time_control=TimeControl())
        )
        for record in result.records:
            outcome = record["result"]
            scores = outcome["scores"]
            others = [scores[s] for s in range(3) if s != seat]
            h_scores.append(scores[seat])
            r_scores.extend(others)
            margins.append(scores[seat] - statistics.fmean(others))
            winners = outcome["winners"]
            if seat in winners:
                if len(winners) == 1:
                    wins += 1
                else:
                    draws += 1
            hands += outcome["hands_played"]
            faults.extend({**f, "heuristic_seat": seat} for f in record["faults"])
        h_decision_ms.extend(result.stats[seat].decision_ms)
    n = len(h_scores)
    return {
        "ruleset": ruleset,
        "games": n,
        "hands": hands,
        "seconds": time.perf_counter() - started,
        "heuristic_score": mean_ci(h_scores),
        "random_score": mean_ci(r_scores),
        "margin": mean_ci(margins),
        "win_rate": wilson(wins, n),
        "draws": draws,
        "losses": n - wins - draws,
        "faults": len(faults),
        "fault_details": faults,
        "heuristic_decision_ms": {
            "mean": statistics.fmean(h_decision_ms) if h_decision_ms else float("nan"),
            "max": max(h_decision_ms, default=float("nan")),
        },
    }


def print_block(
    r: dict[str, Any], out: Callable[[str], None] = print, opponent: str = "random_bot"
) -> None:
    """One preset's results (*opponent*: the name of the two other bots)."""
    h, rnd, m, w = r["heuristic_score"], r["random_score"], r["margin"], r["win_rate"]
    out(
        f"{r['ruleset']}: {r['games']} games ({r['hands']} hands, {r['seconds']:.1f} s), heuristic seat rotated 0/1/2"
    )
    out(
        f"  heuristic mean final score/game  {h['mean']:8.2f}  95% CI [{h['low']:.2f}, {h['high']:.2f}]"
        f"  (sd {h['sd']:.2f}, n {h['n']})"
    )
    out(
        f"  {opponent:<10} mean final score/game {rnd['mean']:8.2f}  95% CI [{rnd['low']:.2f}, {rnd['high']:.2f}]"
        f"  (sd {rnd['sd']:.2f}, n {rnd['n']} seat-games)"
    )
    out(
        f"  margin heuristic - opponents' mean {m['mean']:8.2f}  95% CI [{m['low']:.2f}, {m['high']:.2f}]"
        f"  (per game)"
    )
    out(
        f"  heuristic outright win rate      {w['rate']:8.1%}  95% Wilson [{w['low']:.1%}, {w['high']:.1%}]"
        f"  ({w['successes']} wins, {r['draws']} shared firsts, {r['losses']} losses; an equal player ~33.3%)"
    )
    out(
        f"  faults {r['faults']} (must be 0); heuristic decision time mean"
        f" {r['heuristic_decision_ms']['mean']:.2f} ms, max {r['heuristic_decision_ms']['max']:.2f} ms"
    )
    for fault in r["fault_details"]:
        out(
            f"    fault: seat {fault['seat']} {fault['kind']} hand {fault['hand']}: {fault['detail']}"
        )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """The main run, then the per-preset runs if asked."""

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    heuristic = load_manifest(args.heuristic_bot)
    random_bot = load_manifest(args.random_bot)
    started = time.perf_counter()
    results: dict[str, Any] = {
        "heuristic": heuristic.label,
        "random": random_bot.label,
        "interval_method": "mean +- 1.96*s/sqrt(n) (normal approximation); win rate: Wilson score, z=1.96",
        "main": await measure(heuristic, random_bot, args.ruleset, args.games, args.seed, progress),
    }
    if args.all_presets:
        results["presets"] = [
            # Game seeds after the main run's, so no game of the main run is played again.
            await measure(
                heuristic, random_bot, preset, args.preset_games, args.seed + args.games, progress
            )
            for preset in PRESETS
        ]
    results["seconds"] = time.perf_counter() - started
    results["total_faults"] = results["main"]["faults"] + sum(
        r["faults"] for r in results.get("presets", [])
    )
    return results


def main(argv: list[str] | None = None) -> int:
    """Parse options, play, print the report (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        default=300,
        help="games of the main run (default 300, split over seats 0/1/2)",
    )
    parser.add_argument(
        "--ruleset",
        default="classic",
        choices=sorted(PRESETS),
        help="preset of the main run (default classic)",
    )
    parser.add_argument(
        "--all-presets", action="store_true", help="also a short run of every preset"
    )
    parser.add_argument(
        "--preset-games",
        type=int,
        default=30,
        help="games per preset with --all-presets (default 30)",
    )
    parser.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    parser.add_argument(
        "--heuristic-bot", type=Path, default=ROOT / "sample_bots" / "heuristic_bot"
    )
    parser.add_argument("--random-bot", type=Path, default=ROOT / "sample_bots" / "random_bot")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the report"
    )
    args = parser.parse_args(argv)
    if args.games < 3 or args.preset_games < 3:
        parser.error("--games and --preset-games must be >= 3 (one match per heuristic seat)")
    results = asyncio.run(run(args))
    if args.json:
        print(json.dumps(results, indent=2))
        return 1 if results["total_faults"] else 0
    print(f"{results['heuristic']} vs 2 x {results['random']}, through the referee")
    print(f"intervals: {results['interval_method']}")
    print()
    opponent = results["random"].split("@")[0]
    print_block(results["main"], opponent=opponent)
    for block in results.get("presets", []):
        print()
        print_block(block, opponent=opponent)
    print()
    print(
        f"total faults: {results['total_faults']} (must be 0); total time {results['seconds']:.1f} s"
    )
    return 1 if results["total_faults"] else 0


if __name__ == "__main__":
    sys.exit(main())
