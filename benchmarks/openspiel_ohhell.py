"""Reference speed: random playouts of OpenSpiel's ``oh_hell``, driven from Python.

Why: 9-5-2 and Oh Hell are both 3-player trick-taking games on a 52-card deck, so
OpenSpiel's C++ ``oh_hell`` played with 16 tricks (the length of a 9-5-2 hand) is a
yardstick for our pure-Python rules engine. Both are driven the same way, by a plain
Python loop choosing uniformly random legal actions, so the figures compare engines
plus the per-action Python overhead that any arena pays, not C++ against Python alone.

Scope: one OpenSpiel game is one hand (deal, bids, 16 tricks). Decisions are the
non-chance actions (3 bids + 48 card plays = 51 per hand); chance actions (choice of
the number of tricks, dealer, 49 dealt cards including the trump card) are applied
but not counted. Every chance node of this game has uniform outcomes (checked over
10,200 chance nodes of 200 hands), so a uniform pick equals sampling by probability.

Times are CPU seconds of this process (``time.process_time``), as in ``engine.py``.

Run alone: ``python benchmarks/openspiel_ohhell.py --hands 2000``.
Needs the ``bench`` extra (``pip install open_spiel``); ``arena`` never imports this.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from typing import Any

try:
    import pyspiel
except ImportError as exc:  # let callers such as benchmarks/engine.py skip cleanly
    raise ImportError(
        "OpenSpiel is not installed: run `make venv` (bench extra) or `pip install open_spiel`"
    ) from exc

LOGGER = logging.getLogger(__name__)

GAME_NAME = "oh_hell"
#: Parameter names as reported by ``pyspiel.load_game("oh_hell").get_parameters()``.
#: ``num_suits`` x ``num_cards_per_suit`` = 4 x 13 is the standard 52-card deck (the
#: defaults, given explicitly so a change of default cannot change the benchmark).
GAME_PARAMS: dict[str, int] = {
    "players": 3,
    "num_suits": 4,
    "num_cards_per_suit": 13,
    "num_tricks_fixed": 16,
}


def load_game() -> Any:
    """Load ``oh_hell`` with :data:`GAME_PARAMS` and check the parameters took effect.

    :raises RuntimeError: if OpenSpiel reports parameters other than the ones asked for.
    """
    game = pyspiel.load_game(GAME_NAME, GAME_PARAMS)
    actual = game.get_parameters()
    wrong = {key: actual.get(key) for key, value in GAME_PARAMS.items() if actual.get(key) != value}
    if wrong:
        raise RuntimeError(f"{GAME_NAME} ignored parameters {wrong}; asked for {GAME_PARAMS}")
    return game


def run_openspiel(hands: int, seed: int) -> dict[str, float]:
    """Play ``hands`` random hands of 3-player, 16-trick ``oh_hell``; return the speed.

    :raises ValueError: if ``hands`` is not positive.
    """
    if hands <= 0:
        raise ValueError(f"hands must be positive, got {hands}")
    game = load_game()
    rng = random.Random(seed)
    decisions = 0
    start = time.process_time()
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                legal = state.legal_actions()
                state.apply_action(rng.choice(legal))
                decisions += 1
    seconds = time.process_time() - start
    LOGGER.debug("%d hands, %d decisions in %.3f s", hands, decisions, seconds)
    return {
        "hands": hands,
        "decisions": decisions,
        "seconds": seconds,
        "hands_per_s": hands / seconds,
        "decisions_per_s": decisions / seconds,
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: run the benchmark once and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands to play (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the action choices")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON line")
    args = parser.parse_args(argv)
    result = run_openspiel(args.hands, args.seed)
    if args.json:
        print(json.dumps(result))
        return 0
    params = ", ".join(f"{key}={value}" for key, value in GAME_PARAMS.items())
    print(f"OpenSpiel {GAME_NAME}({params}), random playouts, seed {args.seed}")
    print(
        f"{result['hands']:.0f} hands, {result['decisions']:.0f} decisions"
        f" in {result['seconds']:.3f} s"
    )
    print(f"{result['hands_per_s']:,.0f} hands/s, {result['decisions_per_s']:,.0f} decisions/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
