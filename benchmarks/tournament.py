"""Tournament throughput and rating recomputation, in one run.

1. Scheduler overhead: the same games (a round robin of three copies of ``random_bot``,
   fresh bot processes for every game) played (a) one after another by the match code
   that ``arena match`` uses, and (b) by the tournament runner with ``--parallel 1`` and
   ``--parallel 2`` (worker processes, SQLite storage and rating updates included).
2. The time to recompute the ratings of a 10,000-game tournament from its stored games.

Run: ``python benchmarks/tournament.py [--boards 4] [--rating-games 10000] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena import storage
from arena.game import PRESETS
from arena.game.record import game_record
from arena.referee.manifest import load_manifest
from arena.referee.match import MatchConfig, play_match
from arena.simulate import make_policies, play_game
from arena.storage.database import open_database
from arena.submission import submit_bot
from arena.tournament.executor import LocalProcessExecutor
from arena.tournament.formats import RoundRobin
from arena.tournament.runner import run_tournament

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("random_a", "random_b", "random_c")


def _copies(work: Path) -> list[Path]:
    """Three differently named copies of random_bot (a round robin needs three bots)."""
    paths = []
    for name in NAMES:
        target = work / "src" / name
        shutil.copytree(ROOT / "sample_bots" / "random_bot", target)
        toml = (target / "bot.toml").read_text().replace('"random_bot"', f'"{name}"')
        (target / "bot.toml").write_text(toml)
        paths.append(target)
    return paths


def sequential_matches(paths: list[Path], boards: int) -> dict[str, float]:
    """The tournament's games played one after another with fresh processes, no storage."""
    schedule = RoundRobin().schedule(3, boards, seed=1)
    manifests = [load_manifest(p) for p in paths]
    start = time.perf_counter()
    for game in schedule:
        seats = [manifests[e] for e in game.entrants]
        config = MatchConfig(PRESETS["classic"], 1, game.seed, first_dealers=(game.first_dealer,))
        asyncio.run(play_match(seats, config))
    seconds = time.perf_counter() - start
    return {"games": len(schedule), "seconds": seconds, "games_per_s": len(schedule) / seconds}


def tournament_run(work: Path, paths: list[Path], boards: int, parallel: int) -> dict[str, float]:
    """A real tournament on SQLite with *parallel* workers."""
    data = work / f"data-{parallel}"
    data.mkdir()
    engine = open_database(f"sqlite:///{data / 'arena.db'}")
    versions = [submit_bot(engine, path, data)[0] for path in paths]
    name = f"bench-{parallel}"
    total = len(RoundRobin().schedule(3, boards, seed=1))
    storage.create_tournament(
        engine, name=name, ruleset="classic", rules_json=json.dumps(PRESETS["classic"].to_json()),
        time_control="decision=1000,bank=10000,grace=50,startup=10000", boards=boards, seed=1,
        rating_mode="board", entries=[storage.row_id(v) for v in versions], games_total=total,
    )  # fmt: skip
    start = time.perf_counter()
    asyncio.run(run_tournament(engine, name, LocalProcessExecutor(parallel)))
    seconds = time.perf_counter() - start
    return {"games": total, "seconds": seconds, "games_per_s": total / seconds}


def recompute(work: Path, games: int) -> dict[str, float]:
    """Store *games* games (real records, reused) and time ``recompute_ratings``."""
    engine = open_database(f"sqlite:///{work / 'ratings.db'}")
    data = work / "rating-bots"
    versions = []
    for index, name in enumerate(NAMES):
        path = str(data / name)
        fields = {"name": name, "version": "1", "language": "python", "run": ["python", "bot.py"]}
        versions.append(storage.add_bot_version(engine, fields, f"{index:064d}", path)[0])
    ids = [storage.row_id(v) for v in versions]
    tournament = storage.create_tournament(
        engine, name="ratings", ruleset="classic",
        rules_json=json.dumps(PRESETS["classic"].to_json()), time_control="decision=1000",
        boards=games // 6, seed=1, rating_mode="game", entries=ids, games_total=games,
    )  # fmt: skip
    tid = storage.row_id(tournament)
    records = []
    for seed in range(60):
        state = play_game(
            PRESETS["classic"], seed, make_policies(["random", "greedy", "random"], seed)
        )
        records.append(game_record(state, list(NAMES)))
    schedule = RoundRobin().schedule(3, games // 6, seed=1)
    fill_start = time.perf_counter()
    for game in schedule:
        storage.record_game(
            engine, tid, schedule_index=game.schedule_index, table_index=game.table_index,
            board_index=game.board_index, seating_index=game.seating_index, seed=game.seed,
            seats=[ids[e] for e in game.entrants], record=records[game.schedule_index % 60],
        )  # fmt: skip
    fill = time.perf_counter() - fill_start
    start = time.perf_counter()
    storage.recompute_ratings(engine, tid)
    seconds = time.perf_counter() - start
    return {"games": len(schedule), "store_seconds": fill, "recompute_seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--boards", type=int, default=4, help="boards of the round robin (x6 games)"
    )
    parser.add_argument("--rating-games", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    try:
        paths = _copies(work)
        results: dict[str, Any] = {
            "sequential_matches": sequential_matches(paths, args.boards),
            "tournament_parallel_1": tournament_run(work, paths, args.boards, 1),
            "tournament_parallel_2": tournament_run(work, paths, args.boards, 2),
            "ratings": recompute(work, args.rating_games),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    seq = results["sequential_matches"]
    print(f"games per run: {seq['games']} (3 x random_bot, fresh processes per game, classic)")
    for key, label in (
        ("sequential_matches", "match code, one after another"),
        ("tournament_parallel_1", "tournament --parallel 1"),
        ("tournament_parallel_2", "tournament --parallel 2"),
    ):
        r = results[key]
        print(f"  {label:32s} {r['games_per_s']:6.2f} games/s  ({r['seconds']:.1f} s)")
    overhead = results["tournament_parallel_1"]["seconds"] / seq["seconds"] - 1
    print(f"  scheduler + storage overhead at --parallel 1: {overhead:+.1%}")
    r = results["ratings"]
    print(
        f"ratings: recompute {r['games']} games in {r['recompute_seconds']:.2f} s "
        f"(storing them one by one with live rating took {r['store_seconds']:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
