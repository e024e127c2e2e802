"""What storing a game costs the runner, in schedule order and behind a gap.

Why: the runner is the only writer to the database (docs/scaling.md), so its CPU per
stored game bounds how many slots one runner keeps busy, on one machine or on a Ray
cluster. Ratings follow the schedule (``arena.storage.ratings``): a game stored behind
a gap waits, unrated, until the gap closes, and parallel workers store far out of order.
Each arrival order below stores the same ``--games`` real game records into a fresh
tournament of 3 bot versions with live ratings (``storage.record_game``, as the runner
calls it), on SQLite or on ``--db URL``:

* ``in order``: schedule order, nothing ever waits;
* ``two workers``: the first and the second half of the schedule alternately, as two
  workers that own different boards store them: the second half waits for the whole
  first half, so the backlog grows to half the games;
* ``reverse``: the last game first: nothing is rated until game 0 arrives, then all.

Reported per order (the median of ``--repeat`` runs): CPU ms per stored game (mean and the
slowest store) and the wall seconds of the whole order. Measured and reported, never
asserted.

Run: ``python benchmarks/storage.py [--games 3000] [--mode board] [--repeat 3] [--db URL]
[--json]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena import storage
from arena.game import PRESETS
from arena.game.record import game_record
from arena.simulate import make_policies, play_game
from arena.storage.database import open_database
from arena.tournament.formats import RoundRobin

NAMES = ("bot_a", "bot_b", "bot_c")
RECORDS = 60
"""Distinct real records, reused round the schedule (a record's size is what matters)."""


def two_workers(count: int) -> list[int]:
    """The first and second halves of ``range(count)`` alternately."""
    half = (count + 1) // 2
    first, second = range(half), range(half, count)
    order = [i for pair in zip(first, second, strict=False) for i in pair]
    return order + list(first[len(second) :])


ORDERS: dict[str, Callable[[int], list[int]]] = {
    "in order": lambda count: list(range(count)),
    "two workers": two_workers,
    "reverse": lambda count: list(range(count))[::-1],
}


def real_records() -> list[dict[str, Any]]:
    """:data:`RECORDS` finished games of the built-in greedy policy."""
    return [
        game_record(
            play_game(PRESETS["classic"], seed, make_policies(["greedy"] * 3, seed)), list(NAMES)
        )
        for seed in range(RECORDS)
    ]


def store_all(
    url: str, games: int, mode: str, order: list[int], label: str, records: list[dict[str, Any]]
) -> dict[str, float]:
    """Store *games* games in *order* into a fresh tournament; CPU per store and wall."""
    engine = open_database(url)
    try:
        versions = []
        for name in NAMES:
            fields = {"name": name, "version": label, "language": "python", "run": ["python"]}
            checksum = hashlib.sha256(f"{name}@{label}".encode()).hexdigest()
            versions.append(storage.add_bot_version(engine, fields, checksum, name)[0])
        ids = [storage.row_id(v) for v in versions]
        tournament = storage.create_tournament(
            engine, name=f"storage-{label}", ruleset="classic",
            rules_json=json.dumps(PRESETS["classic"].to_json()), time_control="decision=1000",
            boards=games // 6, seed=1, rating_mode=mode, entries=ids, games_total=games,
        )  # fmt: skip
        tid = storage.row_id(tournament)
        schedule = RoundRobin().schedule(3, games // 6, seed=1)
        cpu: list[float] = []
        wall = time.perf_counter()
        for index in order:
            game = schedule[index]
            started = time.process_time()
            storage.record_game(
                engine, tid, schedule_index=index, table_index=game.table_index,
                board_index=game.board_index, seating_index=game.seating_index,
                seed=game.seed, seats=[ids[e] for e in game.entrants],
                record=records[index % RECORDS],
            )  # fmt: skip
            cpu.append(time.process_time() - started)
        rated = storage.ratings(engine, tid)
        assert all(r.rated_through == games - 1 for r in rated), "not every game was rated"
        return {
            "cpu_ms_mean": 1000 * statistics.mean(cpu),
            "cpu_ms_max": 1000 * max(cpu),
            "wall_s": time.perf_counter() - wall,
        }
    finally:
        engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per order (whole boards)")
    parser.add_argument("--mode", choices=("board", "game"), default="board", help="rating mode")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each order")
    parser.add_argument("--db", help="a database URL (default: a fresh SQLite file per run)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.games < 6 or args.games % 6:
        parser.error("--games must be a positive multiple of 6 (whole boards)")
    results: dict[str, Any] = {"games": args.games, "mode": args.mode, "orders": {}}
    records = real_records()
    with tempfile.TemporaryDirectory(prefix="arena-storage-") as work:
        for name, arrange in ORDERS.items():
            runs = []
            for run in range(args.repeat):
                label = f"{name.replace(' ', '-')}-{run}"
                url = args.db or f"sqlite:///{Path(work) / f'{label}.db'}"
                order = arrange(args.games)
                runs.append(store_all(url, args.games, args.mode, order, label, records))
            runs.sort(key=lambda r: r["cpu_ms_mean"])
            results["orders"][name] = runs[(len(runs) - 1) // 2] | {"runs": runs}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{args.games} games, {args.mode} rating, 3 bots, median of {args.repeat} run(s)")
    print(f"  {'order':12s} {'CPU ms/store':>13s} {'slowest':>9s} {'wall s':>8s}")
    for name, row in results["orders"].items():
        print(
            f"  {name:12s} {row['cpu_ms_mean']:13.2f} {row['cpu_ms_max']:9.1f} {row['wall_s']:8.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
