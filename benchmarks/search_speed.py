"""Search speed: clone a mid-hand state and roll it out at random to the end of the hand.

Why: a Monte-Carlo bot (PIMC, ISMCTS) spends its time in exactly this loop. For each
sampled world it stands in the middle of a hand, copies the state, and plays the rest of
the hand with a fast policy to score a candidate. So the figure that matters for search
is not whole games per second but *clone + roll out to the end of the hand* per second,
from the positions search meets: after the pre-play decisions, with 0 to 15 tricks done.

The start positions are taken from random games of every preset, at every trick count,
so the average rollout plays about half a hand (24 cards). Re-dealing the unseen cards
consistently with a seat's observation (the sampling half of determinisation) is the
search code's job (``arena.search``); this measures the engine's half.

Times are CPU seconds of this process (``time.process_time``), as in ``engine.py``.

Run: ``python benchmarks/search_speed.py [--seconds 3] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from arena.game import PRESETS, GameState, Phase


def start_positions(preset: str, count: int, seed: int = 0) -> list[GameState]:
    """*count* mid-hand states of *preset*: random games stopped in trick play, at every
    number of completed tricks from 0 to 15 in turn."""
    rules = PRESETS[preset]
    rng = random.Random(seed)
    positions: list[GameState] = []
    game = 0
    while len(positions) < count:
        state = GameState(rules, seed + game)
        game += 1
        target = len(positions) % 16  # tricks done when we stop
        while not state.is_over:
            if state.phase is Phase.PLAY and len(state.hand.tricks) == target and not state.trick:
                positions.append(state)
                break
            state.apply(rng.choice(state.legal_actions()))
    return positions


def run_rollouts(preset: str, seconds: float, seed: int = 0) -> dict[str, float]:
    """Clone + random rollout to the end of the hand, from :func:`start_positions`, for
    about *seconds* seconds."""
    positions = start_positions(preset, 64, seed)
    rng = random.Random(seed)
    choice = rng.choice
    rollouts = plays = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for position in positions:
            state = position.clone()
            hand = state.hand
            # The hand is over when the engine moves to the next hand's log (or ends).
            while state.hand is hand and not state.is_over:
                state.apply(choice(state.legal_actions()))
                plays += 1
            rollouts += 1
    elapsed = time.process_time() - start
    return {
        "rollouts": rollouts,
        "plays": plays,
        "seconds": elapsed,
        "rollouts_per_s": rollouts / elapsed,
        "plays_per_s": plays / elapsed,
    }


def run_all(seconds: float) -> dict[str, dict[str, float]]:
    """:func:`run_rollouts` for every preset, *seconds* each."""
    return {preset: run_rollouts(preset, seconds) for preset in PRESETS}


def summary(results: dict[str, dict[str, float]]) -> dict[str, float]:
    """All presets pooled: rollouts and plays per second."""
    seconds = sum(r["seconds"] for r in results.values())
    return {
        "rollouts_per_s": sum(r["rollouts"] for r in results.values()) / seconds,
        "plays_per_s": sum(r["plays"] for r in results.values()) / seconds,
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: measure every preset and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="CPU seconds per preset (default 3)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    results = run_all(args.seconds)
    pooled = summary(results)
    if args.json:
        print(json.dumps({"presets": results, "all": pooled}, indent=2))
        return 0
    print(f"{'clone + rollout to hand end':28s} {'rollouts/s':>11s} {'plays/s':>10s}")
    for preset, r in results.items():
        print(f"{preset:28s} {r['rollouts_per_s']:11,.0f} {r['plays_per_s']:10,.0f}")
    print(f"{'all presets':28s} {pooled['rollouts_per_s']:11,.0f} {pooled['plays_per_s']:10,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
