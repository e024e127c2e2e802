"""Rating experiment: how many games a tournament needs to rank the sample bots correctly.

Why: the arena ranks bots by TrueSkill (``arena/ratings/trueskill_model.py``, leaderboard
key ``mu - 3 sigma``). 9-5-2 has a lot of luck in the deal, so a tournament must be long
enough for skill to show. Two ways to feed TrueSkill are compared and the one that needs
fewer games to reach the right order becomes the arena's default:

* **game**: every game is a 3-player free-for-all ranked by final score
  (``ranks_for_game``), rated one game at a time.
* **board**: a board is one seed played under all 6 seatings of the 3 bots (duplicate
  deals: the seed's RNG deals by seat index, so every seating sees the same cards; the
  first dealer is fixed per board, ``board % 3``). A board is rated once, as a
  free-for-all ranked by each bot's total score over its 6 games (``ranks_for_totals``).

What is measured, in three steps:

1. **Pool.** ``--boards`` boards x 6 seatings of ``sample_bots/heuristic_bot``,
   ``greedy_bot`` and ``random_bot``, run in-process (the bots' own ``decide`` on
   ``observe`` of a ``GameState``; no processes, no referee), storing each bot's final
   score per game. ``random_bot`` gets a fresh seed per game. ``--pool FILE`` caches it.
2. **Truth.** Each bot's mean score per game with a 95% confidence interval, and the
   pairwise differences, computed over boards (a board is the independent unit: its 6
   games share the deals). The true order is the data's order by mean score; the expected
   one is heuristic > greedy > random, and the report says whether the data agrees.
3. **Curve.** ``--tournaments`` random tournaments, each a sequence of boards drawn from
   the pool (``--sampling bootstrap``: with replacement, i.e. i.i.d. draws from the
   pool's empirical distribution of boards; ``permutation``: a random order of distinct
   boards). Scheme *game* rates the boards' games one by one (each board's 6 games in
   seating order); scheme *board* rates the same boards once each. At every grid point N
   (a multiple of 6: the first N/6 boards of the tournament), the tournament counts as
   correct if the order by conservative rating is exactly the true order (ties count as
   wrong). P(correct) is the fraction of correct tournaments, with its binomial standard
   error. Every grid point is a prefix of the same tournaments (common random numbers:
   one pass per tournament gives the whole curve, and both schemes see the same boards),
   so each point is an unbiased estimate while the curve is smoother than independent
   draws would make it.

The answer per scheme is the smallest grid N with P >= 95% there and at every larger
grid point, plus a linear interpolation between that point and the one before it, and its
ceiling: P at the longest tournaments of the grid. The ceiling matters because TrueSkill's
``tau`` adds uncertainty at every update, so a scheme with many small updates (one per
game) forgets old results and its accuracy can stall below 100% however long the
tournament; ``--tau`` reruns the experiment with other dynamics (e.g. ``--tau 0``).

The default scheme is the one that needs fewer games for 95%, except that a scheme
whose ceiling stays below 99% loses to one that reaches it (a longer tournament would not
make the stalled one reliable); ties on the grid go to the higher mean P from there on.

Run: ``python benchmarks/rating_experiment.py [--boards 400] [--tournaments 300]
[--ruleset classic] [--grid 6,12,...] [--tau T] [--pool pool.json] [--json]``. The
default run takes about two minutes on one core (about 20 s of it plays the pool).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.protocol.grpc_env import configure_grpc

configure_grpc(os.environ)  # a script is an entry point: before anything imports grpc

from arena.game import PRESETS, GameState, RuleSet, observe  # noqa: E402
from arena.ratings.trueskill_model import (  # noqa: E402
    Rating,
    RatingModel,
    ranks_for_game,
    ranks_for_totals,
)
from arena.sdk import Bot  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
POOL_VERSION = 1
TARGET = 0.95
CONVERGED = 0.99
"""A scheme whose P at the longest tournaments of the grid stays below this has stalled."""
SEATINGS: tuple[tuple[int, int, int], ...] = tuple(
    (a, b, c) for a, b, c in itertools.permutations(range(3))
)
"""The 6 seatings; ``seating[seat]`` is the index of the bot in that seat."""
DEFAULT_GRID = (6, 12, 24, 36, 48, 72, 96, 144, 192, 288, 384, 576, 768, 1152)
SCHEMES = ("game", "board")

BotFactory = Callable[[int], Bot]
"""Makes a fresh bot for one game from a per-game seed."""
Board = list[list[int]]
"""One board: per seating (in ``SEATINGS`` order), each bot's final score (bot order)."""


# ---------------------------------------------------------------------------------------
# The bots, in-process
# ---------------------------------------------------------------------------------------


def load_class(path: Path, class_name: str) -> type[Bot]:
    """The class *class_name* of the Python file *path*, loaded without a package."""
    spec = importlib.util.spec_from_file_location(f"_rating_{path.parent.name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls = getattr(module, class_name)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise TypeError(f"{path}: {class_name} is not an arena.sdk.Bot")
    return cls


def sample_bots() -> dict[str, BotFactory]:
    """The three sample bots, in the expected order of strength."""
    bots = ROOT / "sample_bots"
    heuristic = load_class(bots / "heuristic_bot" / "bot.py", "HeuristicBot")
    greedy = load_class(bots / "greedy_bot" / "bot.py", "GreedyBot")
    random_cls: Any = load_class(bots / "random_bot" / "bot.py", "RandomBot")

    def make_random(seed: int) -> Bot:
        bot = random_cls(seed)
        assert isinstance(bot, Bot)
        return bot

    return {
        "heuristic": lambda _seed: heuristic(),
        "greedy": lambda _seed: greedy(),
        "random": make_random,
    }


def play_game(
    rules: RuleSet, seed: int, first_dealer: int, players: Sequence[Bot]
) -> tuple[int, int, int]:
    """Final scores per seat of one game with ``players[seat]`` deciding for each seat."""
    state = GameState(rules, seed, first_dealer=first_dealer)
    while not state.is_over:
        seat = state.current_seat
        state.apply_decision(players[seat].decide(observe(state, seat)))
    assert state.result is not None
    return state.result.scores


def board_seed(seed: int, board: int) -> int:
    """The deal seed of board *board* (distinct per experiment seed and board)."""
    return seed * 1_000_003 + board


def play_board(rules: RuleSet, seed: int, board: int, factories: Sequence[BotFactory]) -> Board:
    """One board: the same seed and first dealer under every seating."""
    deals = board_seed(seed, board)
    scores: Board = []
    for s, seating in enumerate(SEATINGS):
        game_seed = random.Random(f"{seed}-{board}-{s}").getrandbits(32)
        players = [factories[bot](game_seed) for bot in seating]
        by_seat = play_game(rules, deals, board % 3, players)
        by_bot = [0, 0, 0]
        for seat, bot in enumerate(seating):
            by_bot[bot] = by_seat[seat]
        scores.append(by_bot)
    return scores


def build_pool(
    rules: RuleSet, seed: int, boards: int, bots: dict[str, BotFactory]
) -> dict[str, Any]:
    """Play *boards* boards and return the pool as a JSON-ready dict."""
    factories = list(bots.values())
    return {
        "version": POOL_VERSION,
        "ruleset": rules.name,
        "seed": seed,
        "bots": list(bots),
        "seatings": [list(s) for s in SEATINGS],
        "boards": [play_board(rules, seed, b, factories) for b in range(boards)],
    }


def load_or_build_pool(
    path: Path | None, rules: RuleSet, seed: int, boards: int, bots: dict[str, BotFactory]
) -> tuple[list[Board], bool]:
    """The pool's boards, from *path* if it holds a matching pool, else played (and cached).

    :returns: the boards and whether they came from the cache.
    """
    if path is not None and path.exists():
        cached = json.loads(path.read_text())
        if (
            cached.get("version") == POOL_VERSION
            and cached.get("ruleset") == rules.name
            and cached.get("seed") == seed
            and cached.get("bots") == list(bots)
            and len(cached.get("boards", [])) >= boards
        ):
            return cached["boards"][:boards], True
    pool = build_pool(rules, seed, boards, bots)
    if path is not None:
        path.write_text(json.dumps(pool))
    return pool["boards"], False


# ---------------------------------------------------------------------------------------
# The truth: mean scores with confidence intervals, over boards
# ---------------------------------------------------------------------------------------


def mean_ci(values: Sequence[float]) -> dict[str, float]:
    """Mean, standard error and normal 95% interval of *values*."""
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return {"mean": mean, "se": se, "low": mean - 1.96 * se, "high": mean + 1.96 * se}


def truth(boards: Sequence[Board], names: Sequence[str]) -> dict[str, Any]:
    """Per bot mean score per game and pairwise differences, over board means."""
    per_board = [
        [statistics.fmean(game[b] for game in board) for b in range(3)] for board in boards
    ]
    bots = {name: mean_ci([row[b] for row in per_board]) for b, name in enumerate(names)}
    order = sorted(range(3), key=lambda b: -bots[names[b]]["mean"])
    pairs: list[dict[str, Any]] = []
    for a, b in itertools.combinations(order, 2):  # (1st, 2nd), (1st, 3rd), (2nd, 3rd)
        diff = mean_ci([row[a] - row[b] for row in per_board])
        pairs.append({"better": names[a], "worse": names[b], **diff})
    first = [0, 0, 0]
    for board in boards:
        for game in board:
            for b, rank in enumerate(ranks_for_game(game, [False, False, False])):
                first[b] += rank == 0
    games = sum(len(board) for board in boards)
    for b, name in enumerate(names):
        bots[name]["first_place_rate"] = first[b] / games
    return {
        "order": [names[b] for b in order],
        "order_index": order,
        "expected_order": list(names),
        "matches_expected": order == [0, 1, 2],
        "separated": pairs[0]["low"] > 0 and pairs[2]["low"] > 0,  # the adjacent pairs
        "bots": bots,
        "pairs": pairs,
    }


# ---------------------------------------------------------------------------------------
# Tournaments
# ---------------------------------------------------------------------------------------


def in_order(ratings: Sequence[Rating], order: Sequence[int]) -> bool:
    """Whether the conservative ratings put the bots strictly in *order* (best first)."""
    keys = [ratings[b].conservative for b in order]
    return all(keys[i] > keys[i + 1] for i in range(len(keys) - 1))


def draw_boards(rng: random.Random, pool_size: int, count: int, sampling: str) -> list[int]:
    """Board indices of one tournament of *count* boards."""
    if sampling == "bootstrap":
        return [rng.randrange(pool_size) for _ in range(count)]
    return rng.sample(range(pool_size), count)


@dataclass
class Curve:
    """Correct-order counts per scheme and grid point over the tournaments run."""

    grid: tuple[int, ...]
    tournaments: int = 0

    def __post_init__(self) -> None:
        self.correct = {scheme: [0] * len(self.grid) for scheme in SCHEMES}

    def point(self, scheme: str, i: int) -> dict[str, float]:
        """P(correct order) at grid point *i* and its binomial standard error."""
        p = self.correct[scheme][i] / self.tournaments
        return {"p": p, "se": math.sqrt(p * (1 - p) / self.tournaments)}


def run_tournaments(
    boards: Sequence[Board],
    order: Sequence[int],
    grid: tuple[int, ...],
    tournaments: int,
    sampling: str,
    seed: int,
    model: RatingModel,
) -> Curve:
    """Both schemes over the same random tournaments; counts correct orders per grid point."""
    curve = Curve(grid)
    checkpoints = {n // 6: i for i, n in enumerate(grid)}
    length = grid[-1] // 6
    rng = random.Random(f"tournaments-{seed}")
    no_faults = [False, False, False]
    for _ in range(tournaments):
        per_game = [model.initial()] * 3
        per_board = [model.initial()] * 3
        for played, index in enumerate(draw_boards(rng, len(boards), length, sampling), 1):
            board = boards[index]
            for game in board:
                per_game = model.rate(per_game, ranks_for_game(game, no_faults))
            totals = [sum(game[b] for game in board) for b in range(3)]
            per_board = model.rate(per_board, ranks_for_totals(totals))
            i = checkpoints.get(played)
            if i is not None:
                curve.correct["game"][i] += in_order(per_game, order)
                curve.correct["board"][i] += in_order(per_board, order)
        curve.tournaments += 1
    return curve


def games_needed(curve: Curve, scheme: str) -> dict[str, Any]:
    """Smallest grid N with P >= 95% there and at every larger N, an interpolation, and the
    ceiling (P at the longest tournaments of the grid).
    """
    points = [curve.point(scheme, i)["p"] for i in range(len(curve.grid))]
    answer: dict[str, Any] = {
        "ceiling": curve.point(scheme, len(curve.grid) - 1),
        "ceiling_games": curve.grid[-1],
    }
    first = None
    for i in reversed(range(len(points))):
        if points[i] < TARGET:
            break
        first = i
    if first is None:
        return {**answer, "games": None, "boards": None, "p": None, "se": None}
    interpolated = float(curve.grid[first])
    if first > 0:
        lo_n, hi_n = curve.grid[first - 1], curve.grid[first]
        lo_p, hi_p = points[first - 1], points[first]
        if hi_p > lo_p:
            interpolated = lo_n + (TARGET - lo_p) / (hi_p - lo_p) * (hi_n - lo_n)
    return {
        **answer,
        "games": curve.grid[first],
        "boards": curve.grid[first] // 6,
        **curve.point(scheme, first),
        "interpolated": interpolated,
        "mean_p_from_there": statistics.fmean(points[first:]),
    }


def choose_default(answers: dict[str, dict[str, Any]]) -> tuple[str | None, str]:
    """The default scheme and why.

    The scheme that reaches 95% with fewer games wins, with one exception: a scheme whose
    accuracy stalls (ceiling below ``CONVERGED``) loses to one that converges, because
    longer tournaments would never make its ranking reliable. Ties on the grid go to the
    higher mean P from that point on.
    """
    reached = {s: a for s, a in answers.items() if a["games"] is not None}
    if not reached:
        return None, "neither scheme reaches 95% within the grid; extend --grid"
    if len(reached) == 1:
        (only,) = reached
        return only, f"only '{only}' reaches 95% within the grid"
    converged = [s for s, a in reached.items() if a["ceiling"]["p"] >= CONVERGED]
    if len(converged) == 1:
        (winner,) = converged
        (loser,) = set(reached) - {winner}
        fast, slow = reached[loser]["games"], reached[winner]["games"]
        speed = (
            f"both reach 95% at {fast} games"
            if fast == slow
            else f"'{loser}' reaches 95% at {fast} games, '{winner}' at {slow}"
        )
        return winner, (
            f"{speed}, but '{loser}' stalls at {reached[loser]['ceiling']['p']:.1%} at "
            f"{reached[loser]['ceiling_games']} games while '{winner}' reaches "
            f"{reached[winner]['ceiling']['p']:.1%}: only '{winner}' gets more reliable as "
            "tournaments get longer"
        )
    game, board = reached["game"], reached["board"]
    if game["games"] != board["games"]:
        winner = "game" if game["games"] < board["games"] else "board"
        ratio = max(game["games"], board["games"]) / min(game["games"], board["games"])
        return winner, f"'{winner}' reaches 95% with {ratio:.1f}x fewer games"
    winner = "game" if game["mean_p_from_there"] > board["mean_p_from_there"] else "board"
    return winner, (
        f"both reach 95% at {game['games']} games; '{winner}' has the higher mean P from "
        "there on (a narrow call: rerun with more --tournaments or a finer --grid)"
    )


# ---------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------


def print_report(results: dict[str, Any]) -> None:
    """The readable report."""
    setup = results["setup"]
    print(
        f"Rating experiment: ruleset {setup['ruleset']}, pool of {setup['boards']} boards x 6 "
        f"seatings = {setup['games']} games ({setup['pool_source']}), seed {setup['seed']}"
    )
    print(
        f"{setup['tournaments']} tournaments per grid point, {setup['sampling']} sampling of "
        f"boards; order = by conservative rating (mu - 3 sigma); TrueSkill tau {setup['tau']:.4g}"
    )
    print()
    t = results["truth"]
    print("Truth (mean final score per game, 95% CI over boards; first = share of games won)")
    for name in t["order"]:
        b = t["bots"][name]
        print(
            f"  {name:10s} {b['mean']:7.2f}  [{b['low']:6.2f}, {b['high']:6.2f}]  "
            f"first {b['first_place_rate']:5.1%}"
        )
    for pair in t["pairs"]:
        print(
            f"  {pair['better']} - {pair['worse']}: {pair['mean']:+.2f} "
            f"[{pair['low']:+.2f}, {pair['high']:+.2f}] per game"
        )
    agreed = "agrees with" if t["matches_expected"] else "DIFFERS from"
    print(
        f"  true order (from the data): {' > '.join(t['order'])}; it {agreed} the expected "
        f"{' > '.join(t['expected_order'])}"
    )
    if not t["separated"]:
        print("  WARNING: some adjacent pair's CI includes 0; the true order is uncertain")
    print()
    print("P(correct full order) after N games (+- standard error)")
    print(f"  {'games':>6s} {'boards':>6s}   {'game scheme':>15s}   {'board scheme':>15s}")
    for row in results["curve"]:
        cells = []
        for scheme in SCHEMES:
            p = row[scheme]
            mark = "*" if p["p"] >= TARGET else " "
            cells.append(f"{p['p']:6.1%} +- {p['se']:4.1%}{mark}")
        print(f"  {row['games']:6d} {row['boards']:6d}   {cells[0]:>15s}   {cells[1]:>15s}")
    print("  (* = at or above 95%)")
    print()
    print("Games needed for 95% (smallest grid N from which every point is >= 95%)")
    for scheme in SCHEMES:
        a = results["answers"][scheme]
        ceiling = f"ceiling {a['ceiling']['p']:.1%} at {a['ceiling_games']} games"
        if a["games"] is None:
            print(f"  {scheme:6s}: not reached within the grid; {ceiling}")
            continue
        print(
            f"  {scheme:6s}: N = {a['games']} games ({a['boards']} boards), "
            f"P = {a['p']:.1%} +- {a['se']:.1%}; interpolated ~{a['interpolated']:.0f} games; "
            f"{ceiling}"
        )
    print()
    default = results["default"]
    print(f"Default scheme: {default['scheme']} ({default['reason']})")
    s = results["seconds"]
    print(f"Time: pool {s['pool']:.1f} s, tournaments {s['tournaments']:.1f} s")


# ---------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------


def parse_grid(text: str) -> tuple[int, ...]:
    """A comma-separated, increasing list of positive multiples of 6."""
    try:
        grid = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None
    if not grid or any(n <= 0 or n % 6 for n in grid) or list(grid) != sorted(set(grid)):
        raise argparse.ArgumentTypeError("the grid must be increasing positive multiples of 6")
    return grid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--ruleset", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--boards", type=int, default=400, help="boards in the pool")
    parser.add_argument("--tournaments", type=int, default=300, help="random tournaments")
    parser.add_argument(
        "--grid",
        type=parse_grid,
        default=DEFAULT_GRID,
        help="game counts (multiples of 6), comma-separated",
    )
    parser.add_argument(
        "--sampling",
        choices=("bootstrap", "permutation"),
        default="bootstrap",
        help="boards drawn with replacement, or a random order of distinct boards",
    )
    parser.add_argument(
        "--tau",
        type=float,
        default=RatingModel().parameters["tau"],
        help="TrueSkill dynamics per rating update (the arena's model by default)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds deals, bots, tournaments")
    parser.add_argument("--pool", type=Path, default=None, help="JSON file caching the pool")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.boards < 2 or args.tournaments < 1:
        parser.error("--boards must be >= 2 and --tournaments >= 1")
    if args.sampling == "permutation" and args.grid[-1] // 6 > args.boards:
        parser.error("permutation sampling needs --boards >= the largest grid point / 6")

    rules = PRESETS[args.ruleset]
    bots = sample_bots()
    start = time.perf_counter()
    boards, cached = load_or_build_pool(args.pool, rules, args.seed, args.boards, bots)
    pool_seconds = time.perf_counter() - start

    t = truth(boards, list(bots))
    start = time.perf_counter()
    curve = run_tournaments(
        boards,
        t["order_index"],
        args.grid,
        args.tournaments,
        args.sampling,
        args.seed,
        RatingModel(tau=args.tau),
    )
    tournament_seconds = time.perf_counter() - start

    answers = {scheme: games_needed(curve, scheme) for scheme in SCHEMES}
    scheme, reason = choose_default(answers)
    del t["order_index"]
    results: dict[str, Any] = {
        "setup": {
            "ruleset": args.ruleset,
            "boards": len(boards),
            "games": 6 * len(boards),
            "pool_source": f"cached in {args.pool}" if cached else "played now",
            "seed": args.seed,
            "tournaments": args.tournaments,
            "sampling": args.sampling,
            "tau": args.tau,
            "grid": list(args.grid),
            "target": TARGET,
        },
        "truth": t,
        "curve": [
            {
                "games": n,
                "boards": n // 6,
                **{s: curve.point(s, i) for s in SCHEMES},
            }
            for i, n in enumerate(args.grid)
        ],
        "answers": answers,
        "default": {"scheme": scheme, "reason": reason},
        "seconds": {"pool": pool_seconds, "tournaments": tournament_seconds},
    }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
