"""The live feed's cost to the runner, and its delay (issue 32, docs/live.md).

1. **Overhead**: the same small round robin (the three sample Python bots, ``classic``,
   fixed seed, ``--boards`` boards of 6 games, ``--parallel`` workers, SQLite) is run with
   the live feed on and off (``ARENA_LIVE``), alternately, ``--repeat`` times each, each
   run on a fresh database with identical deals. Reported: the median wall time of each
   and the overhead of the feed in % (median on / median off - 1), plus the per-pair
   ratios (a shared machine drifts: pairs run a few seconds apart are the fairer view).
2. **Delay**: in one more run with the feed on (not timed: the reading thread shares the
   runner's process), a thread reads the live table every 10 ms;
   for each new stored view, the time from the referee making it (right after the
   decision it shows: ``decided_at``) to the view being readable in the database. A
   decision whose view a newer one replaced within the feed's interval shows with that
   newer view, so a decision's worst delay is this plus ``LIVE_INTERVAL_S``. The page adds
   its poll (1 s) and cache (0.25 s).

Run: ``python benchmarks/live_overhead.py [--boards 2] [--parallel 2] [--repeat 3]
[--slow-ms 0] [--json]`` (``--slow-ms``: random_bot thinks that long per card, so games
last long enough for many views).
Reported, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import storage  # noqa: E402
from arena.game.rules import PRESETS  # noqa: E402
from arena.storage import live, open_database  # noqa: E402
from arena.submission import submit_bot  # noqa: E402
from arena.tournament.executor import LocalProcessExecutor  # noqa: E402
from arena.tournament.formats import RoundRobin  # noqa: E402
from arena.tournament.live_feed import LIVE_INTERVAL_S  # noqa: E402
from arena.tournament.live_table import LiveTable  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402

BOTS = ("random_bot", "greedy_bot", "heuristic_bot")
TIME_CONTROL = "decision=2000,bank=30000,grace=200,startup=20000"


FEED_SECONDS = [0.0, 0]
"""Time the runner spent in the live table's writes, and how many (see :func:`_timed`)."""


def _timed(method: Any) -> Any:
    """*method* of :class:`LiveTable`, adding its time to :data:`FEED_SECONDS`: the feed's
    cost to the runner's loop measured directly, which the shared machine's drift between
    whole runs (often +-20 %) cannot hide."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            FEED_SECONDS[0] += time.perf_counter() - start
            FEED_SECONDS[1] += 1

    return timed


for _name in ("open", "update", "end", "close"):
    setattr(LiveTable, _name, _timed(getattr(LiveTable, _name)))


class DelayProbe:
    """Reads the live table every 10 ms in a thread; the delay of each new view seen."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.delays: list[float] = []
        self._seen: set[tuple[str, int, int]] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for row in live.live_rows(self.engine):
                key = (row.tournament, row.schedule_index, row.decisions)
                if key not in self._seen:
                    self._seen.add(key)
                    self.delays.append(time.time() - row.decided_at.timestamp())
            time.sleep(0.01)

    def stop(self) -> list[float]:
        self._stop.set()
        self._thread.join()
        return self.delays


def slow_copy(work: Path, sleep_ms: int) -> Path:
    """random_bot that sleeps *sleep_ms* before each card it plays (a thinking bot: games
    last longer, so the feed sends a view after most decisions)."""
    folder = work / "slow_bot"
    if not folder.exists():
        shutil.copytree(ROOT / "sample_bots" / "random_bot", folder)
        code = (
            (folder / "bot.py")
            .read_text()
            .replace("import random\n", "import random\nimport time\n")
        )
        code = code.replace(
            "    def play(self, obs: Turn) -> Play:\n",
            f"    def play(self, obs: Turn) -> Play:\n        time.sleep({sleep_ms / 1000})\n",
        )
        (folder / "bot.py").write_text(code)
    return folder


def one_run(
    work: Path,
    label: str,
    args: argparse.Namespace,
    feed: bool,
    probe: bool = False,
) -> dict[str, Any]:
    """A fresh database, the bots, one round robin, run with the feed on or off (and with
    *probe*, the delay measured meanwhile)."""
    data = work / label
    data.mkdir()
    engine = open_database(f"sqlite:///{data / 'arena.db'}")
    paths = [ROOT / "sample_bots" / bot for bot in BOTS]
    if args.slow_ms:
        paths[0] = slow_copy(work, args.slow_ms)
    versions = [submit_bot(engine, path, data)[0] for path in paths]
    boards, parallel = args.boards, args.parallel
    storage.create_tournament(
        engine, name=label, ruleset="classic", rules_json=json.dumps(PRESETS["classic"].to_json()),
        time_control=TIME_CONTROL, boards=boards, seed=11, rating_mode="game",
        entries=[storage.row_id(v) for v in versions],
        games_total=RoundRobin().games_total(len(BOTS), boards),
    )  # fmt: skip
    os.environ["ARENA_LIVE"] = "1" if feed else "0"
    reader = DelayProbe(engine) if probe else None
    FEED_SECONDS[:] = [0.0, 0]
    try:
        start = time.perf_counter()
        asyncio.run(run_tournament(engine, label, LocalProcessExecutor(parallel)))
        seconds = time.perf_counter() - start
    finally:
        delays = reader.stop() if reader is not None else []
        engine.dispose()
    return {
        "feed": feed,
        "seconds": seconds,
        "delays": delays,
        "feed_s": FEED_SECONDS[0],
        "feed_writes": FEED_SECONDS[1],
    }


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(args: argparse.Namespace) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="arena-live-bench-") as folder:
        work = Path(folder)
        for turn in range(args.repeat):
            order = (True, False) if turn % 2 == 0 else (False, True)
            for feed in order:
                label = f"{'on' if feed else 'off'}{turn}"
                runs.append(one_run(work, label, args, feed))
                print(f"  {label}: {runs[-1]['seconds']:.2f} s", file=sys.stderr)
        probed = one_run(work, "delay", args, True, probe=True)
    on = [r["seconds"] for r in runs if r["feed"]]
    off = [r["seconds"] for r in runs if not r["feed"]]
    pairs = [a / b - 1 for a, b in zip(on, off, strict=True)]
    delays = probed["delays"]
    return {
        "games_per_run": RoundRobin().games_total(len(BOTS), args.boards),
        "parallel": args.parallel,
        "median_on_s": statistics.median(on),
        "median_off_s": statistics.median(off),
        "overhead_pct": 100 * (statistics.median(on) / statistics.median(off) - 1),
        "pair_overheads_pct": [round(100 * p, 2) for p in pairs],
        "runs_on_s": on,
        "runs_off_s": off,
        "feed_pct_of_run": [round(100 * r["feed_s"] / r["seconds"], 3) for r in runs if r["feed"]],
        "feed_writes_per_run": [r["feed_writes"] for r in runs if r["feed"]],
        "views_seen": len(delays),
        "delay_median_ms": 1000 * statistics.median(delays) if delays else None,
        "delay_p95_ms": 1000 * _pct(delays, 0.95) if delays else None,
        "delay_max_ms": 1000 * max(delays) if delays else None,
        "feed_interval_ms": 1000 * LIVE_INTERVAL_S,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=2, help="boards (6 games each)")
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="runs with the feed on (and off)")
    parser.add_argument(
        "--slow-ms", type=int, default=0, help="random_bot sleeps this long per card played"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = run(args)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    slow = f", random_bot sleeps {args.slow_ms} ms per card" if args.slow_ms else ""
    print(f"{results['games_per_run']} games, --parallel {results['parallel']}{slow}")
    print(f"median wall time, feed on:  {results['median_on_s']:.2f} s  {results['runs_on_s']}")
    print(f"median wall time, feed off: {results['median_off_s']:.2f} s  {results['runs_off_s']}")
    print(f"overhead of the feed: {results['overhead_pct']:+.2f} % (pairs: "
          f"{results['pair_overheads_pct']})")  # fmt: skip
    print(
        f"runner time in live-table writes, % of each run with the feed: "
        f"{results['feed_pct_of_run']} ({results['feed_writes_per_run']} writes)"
    )
    if results["views_seen"]:
        print(
            f"decision -> readable in the database, {results['views_seen']} views: median "
            f"{results['delay_median_ms']:.0f} ms, p95 {results['delay_p95_ms']:.0f} ms, "
            f"max {results['delay_max_ms']:.0f} ms (plus up to "
            f"{results['feed_interval_ms']:.0f} ms for a decision a newer view replaced)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
