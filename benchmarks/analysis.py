"""Duplicate analysis speed: ``arena analyse`` work on a seeded round robin.

Why: the analysis replays every game of every traveller the bot sits in and compares each
of its games with each field game step by step, so its cost grows with boards x tables.
This seeds the dashboard tests' 4-bot round robin (``tests/dashboard/seed.py``: real
records played in-process, legacy board deals, so one traveller spans all 4 tables) with
``--boards`` boards, then times, for bot ``alpha``: gathering the games from storage
(:func:`arena.storage.travellers.duplicate_games`, records redacted for a spectator) and
the pure analysis (:func:`arena.analysis.analyse`), ``--repeat`` times each (median).

Figures are reported, not asserted. Run: ``python benchmarks/analysis.py [--boards 4]
[--repeat 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.analysis import analyse
from arena.storage.privacy import SPECTATOR
from arena.storage.travellers import duplicate_games
from tests.dashboard.seed import seed_database
from tests.migrated_sqlite import migrated_sqlite_url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        seeded = seed_database(migrated_sqlite_url(Path(folder) / "a.db"), boards=args.boards)
        gather, compute = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            gathered = duplicate_games(seeded.engine, "main", "alpha", SPECTATOR, lambda *_: False)
            middle = time.perf_counter()
            result = analyse(gathered.games, gathered.versions, bot="alpha", tournament="main")
            gather.append(middle - start)
            compute.append(time.perf_counter() - middle)
        print(
            f"{len(gathered.games)} games, {len(result.travellers)} travellers, "
            f"{len(result.pairs)} pairs: gather {statistics.median(gather) * 1000:.0f} ms, "
            f"analyse {statistics.median(compute) * 1000:.0f} ms (median of {args.repeat})"
        )
        seeded.engine.dispose()


if __name__ == "__main__":
    main()
