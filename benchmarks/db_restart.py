"""How long a run pauses, and how fast it recovers, when its PostgreSQL server restarts.

Why: issue 36's runner rides out a database outage (``arena.tournament.outage``): it holds
finished games, retries with capped exponential backoff, retakes its runner lock and
stores what it held. The backoff trades load on a recovering server against how soon the
runner notices it is back; this measures that cost on the case the issue names: a real
round robin (bot processes, ``--parallel 2``, the CLI) whose postmaster is killed with
SIGKILL after a few games and started again 3 s later.

It reports, per repetition (the stored games are watched every 20 ms from outside):

* **restart**: from the kill until the server takes connections again (3 s of down time
  plus PostgreSQL's start and crash recovery);
* **recovery**: from the server taking connections until the runner's next stored game;
* **pause**: from the last game stored before the kill to the first one after (what a
  spectator sees), against the median gap between stores when nothing fails;
* **burst**: games stored within a second of the first one after the outage (the results
  held in memory meanwhile).

Figures are reported, not asserted. Run as root or any user (the server runs as
``embedded_postgres`` when root): ``python benchmarks/db_restart.py [--repeat 3]
[--boards 2] [--down 3]``.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg

from arena.cli import main
from tests.chaos.conftest import BOTS, SAMPLES, TIME_CONTROL
from tests.chaos.killable_postgres import KillablePostgres, killable_postgres

POLL_S = 0.02


class Watcher(threading.Thread):
    """Records when each game of tournament *name* is first seen stored (a plain psycopg
    connection, reconnecting while the server is down)."""

    def __init__(self, server: KillablePostgres, database: str, name: str) -> None:
        super().__init__(daemon=True)
        self.server, self.database, self.name = server, database, name
        self.seen: dict[int, float] = {}
        self.done = threading.Event()

    def run(self) -> None:
        query = (
            "SELECT g.schedule_index FROM game g JOIN tournament t ON t.id = g.tournament_id "
            "WHERE t.name = %s"
        )
        while not self.done.is_set():
            try:
                with psycopg.connect(host=str(self.server.socket_dir), user="postgres",
                                     dbname=self.database, connect_timeout=1) as connection:  # fmt: skip
                    while not self.done.is_set():
                        rows = connection.execute(query, (self.name,)).fetchall()
                        now = time.monotonic()
                        for (index,) in rows:
                            self.seen.setdefault(index, now)
                        time.sleep(POLL_S)
            except psycopg.Error:
                time.sleep(POLL_S)


def one_run(server: KillablePostgres, url: str, data: Path, name: str, boards: int,
            down: float) -> dict[str, float]:  # fmt: skip
    common = ["--db", url, "--data", str(data)]
    assert main(["tournament", "create", name, "--bots", ",".join(BOTS), "--boards",
                 str(boards), "--seed", "3", "--time-control", TIME_CONTROL, *common]) == 0  # fmt: skip
    watcher = Watcher(server, "arena", name)
    watcher.start()
    runner = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "run", name, "--parallel", "2",
         *common],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    games = 6 * boards
    while len(watcher.seen) < games // 3:
        assert runner.poll() is None, runner.communicate()
        time.sleep(POLL_S)
    killed = time.monotonic()
    server.kill()
    time.sleep(down)
    server.start()
    ready = time.monotonic()
    _, err = runner.communicate(timeout=600)
    watcher.done.set()
    watcher.join()
    assert runner.returncode == 0, err
    assert sorted(watcher.seen) == list(range(games)), "a game is missing"
    times = sorted(watcher.seen.values())
    before = [t for t in times if t < killed]
    after = [t for t in times if t > killed]
    gaps = [b - a for a, b in itertools.pairwise(before)]
    return {
        "restart": ready - killed,
        "recovery": after[0] - ready,
        "pause": after[0] - before[-1],
        "normal_gap": statistics.median(gaps) if gaps else float("nan"),
        "burst": float(sum(1 for t in after if t - after[0] <= 1.0)),
        "wait_lines": float(err.count("database unreachable (")),
    }


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--boards", type=int, default=2)
    parser.add_argument("--down", type=float, default=3.0, help="seconds the server stays down")
    args = parser.parse_args()
    with killable_postgres() as server, tempfile.TemporaryDirectory() as folder:
        url = server.create_database("arena")
        data = Path(folder) / "data"
        for bot in BOTS:
            assert (
                main(["bot", "submit", str(SAMPLES / bot), "--db", url, "--data", str(data)]) == 0
            )
        rows = [one_run(server, url, data, f"restart-{i}", args.boards, args.down)
                for i in range(args.repeat)]  # fmt: skip
    print(f"PostgreSQL down {args.down:g} s after SIGKILL, {6 * args.boards} games, --parallel 2")
    for key in ("restart", "recovery", "pause", "normal_gap", "burst", "wait_lines"):
        values = [row[key] for row in rows]
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"{key:>11}: median {statistics.median(values):.2f}  ({shown})")


if __name__ == "__main__":
    main_()
