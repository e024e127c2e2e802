"""Engine speed: random playouts in-process on one core, against OpenSpiel's ``oh_hell``.

Both engines are driven by the same kind of plain Python loop (list the legal actions,
pick one at random, apply it), so the ratio measures what Monte-Carlo bots and
reinforcement-learning users get from each. A 9-5-2 "hand" is deal, exchange, trump,
kitty and discard, 16 tricks and scoring; one OpenSpiel ``oh_hell`` game with
``num_tricks_fixed=16`` is one hand of the same length (its deal is 49 chance actions).

The second figure is the one search cares about (``search_speed.py``): clone a mid-hand
state and roll it out at random to the end of the hand, per second.

Times are CPU seconds of this process (``time.process_time``), for both engines: on a
shared machine, wall time would charge other processes' work to whichever engine happened
to be running, and the ratio would measure the neighbours.

Run: ``python benchmarks/engine.py [--seconds 3] [--json]``. Goal: ratio >= 2.0.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_speed import run_all as run_search_speed
from search_speed import summary as search_summary

from arena.game import PRESETS, GameState
from arena.game._native import is_compiled


def run_engine(preset: str, seconds: float, seed: int = 0) -> dict[str, float]:
    """Random playouts of whole games under *preset* for about *seconds* seconds."""
    rules = PRESETS[preset]
    rng = random.Random(seed)
    choice = rng.choice
    hands = decisions = games = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(20):
            state = GameState(rules, seed + games)
            while not state.is_over:
                state.apply(choice(state.legal_actions()))
            hands += state.hands_played
            decisions += state.decisions
            games += 1
    elapsed = time.process_time() - start
    return {
        "games": games,
        "hands": hands,
        "decisions": decisions,
        "seconds": elapsed,
        "hands_per_s": hands / elapsed,
        "decisions_per_s": decisions / elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="CPU seconds per preset (default 3)"
    )
    parser.add_argument("--openspiel-hands", type=int, default=20000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    results: dict[str, Any] = {"engine": {}, "openspiel": None, "compiled": is_compiled()}
    for preset in PRESETS:
        results["engine"][preset] = run_engine(preset, args.seconds)
    try:
        # Imported late on purpose: the engine figures stand even without OpenSpiel.
        from openspiel_ohhell import run_openspiel  # noqa: PLC0415

        results["openspiel"] = run_openspiel(args.openspiel_hands, seed=0)
    except ImportError as exc:
        print(f"OpenSpiel not measured: {exc}", file=sys.stderr)

    results["search"] = search_summary(run_search_speed(args.seconds / 3))

    engine_hands = sum(r["hands"] for r in results["engine"].values())
    engine_seconds = sum(r["seconds"] for r in results["engine"].values())
    results["engine_hands_per_s"] = engine_hands / engine_seconds
    if results["openspiel"] is not None:
        results["ratio"] = results["engine_hands_per_s"] / results["openspiel"]["hands_per_s"]

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    build = "compiled by mypyc" if results["compiled"] else "pure Python (no compiled build)"
    print(f"engine: {build}; rates per CPU second of this process")
    print(f"{'engine':24s} {'hands/s':>10s} {'decisions/s':>12s}")
    for preset, r in results["engine"].items():
        print(f"{preset:24s} {r['hands_per_s']:10,.0f} {r['decisions_per_s']:12,.0f}")
    print(f"{'all presets':24s} {results['engine_hands_per_s']:10,.0f}")
    if results["openspiel"] is not None:
        o = results["openspiel"]
        print(
            f"{'openspiel oh_hell (16)':24s} {o['hands_per_s']:10,.0f} {o['decisions_per_s']:12,.0f}"
        )
        print(f"ratio engine / openspiel hands/s: {results['ratio']:.2f} (goal >= 2.0)")
    search = results["search"]
    print(
        f"mid-hand clone + rollout to the hand's end: {search['rollouts_per_s']:,.0f}/s"
        f" ({search['plays_per_s']:,.0f} plays/s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
