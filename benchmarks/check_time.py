"""How long ``make check`` (or ``make test``) takes, run after run, beside how fast the
machine is right then and how busy its cores were.

``make check`` aims at under a minute on two cores, ``make test`` at under ten. On a shared
machine one run says little: the same CPU-bound work takes up to half as long again when a
neighbour is busy. So each round first times a fixed pure-Python loop (the machine's speed
at that moment), then runs the target and times it, and the table shows both. Read the
runs whose reference time is near the best one: they are the machine at its usual speed.

Each round also reads ``/proc/stat`` before and after the run and reports the share of
the machine's CPU time that was busy meanwhile. That share says which lever is left: a
run near 100 % busy is bound by the work it does (fewer games, shared set-up), one well
below is bound by waiting (sleeps, slow bots, polling), where more pytest workers would
help. The CPU column counts only the processes ``make`` waited for, so it leaves out
daemons such as the PostgreSQL server and the browsers' helpers; the busy share does not.

    .venv/bin/python benchmarks/check_time.py                        # make check, 3 rounds
    .venv/bin/python benchmarks/check_time.py --rounds 5
    CI=true .venv/bin/python benchmarks/check_time.py --target test --rounds 1
    .venv/bin/python benchmarks/check_time.py --versus /tmp/old --warmup --rounds 4

The first round may also pay for mypy's cache and pytest's bytecode of the tests; the
table says so when it took much longer than the rest, and ``--warmup`` runs each tree
once, untimed, first.

**Comparing two trees** (``--versus DIR``: another checkout with its own ``.venv``, say
an older commit in a ``git worktree``, or this commit installed with another Python by
``make venv PYTHON=...``). Two series timed one after the other differ by more than most
changes, because the machine's speed drifts, so the trees take turns within each round,
in the order A B, B A, A B, ..., and the summary is the mean of the per-round
differences: over an even number of rounds a steady drift of the machine's speed cancels
out of it (it adds to one round's difference what it takes from the next one's), which
it never does from two series timed one after the other. Run an even number of rounds.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_LOOP = "s = 0\nfor i in range(30_000_000):\n    s += i\n"
"""About 3 s of one core on the machine this was written on: the speed reference."""
PROC_STAT = Path("/proc/stat")


def reference_seconds() -> float:
    """Wall time of :data:`REFERENCE_LOOP` in a fresh interpreter."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", REFERENCE_LOOP], check=True)
    return time.perf_counter() - started


def _cpu_jiffies() -> tuple[int, int] | None:
    """(all, idle) jiffies of every CPU since boot, or ``None`` off Linux."""
    try:
        fields = [int(value) for value in PROC_STAT.read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(fields), fields[3] + fields[4]  # idle + iowait


class BusySampler:
    """The machine's busy share over a run, from ``/proc/stat`` (``None`` where absent)."""

    def __init__(self) -> None:
        self._start = _cpu_jiffies()
        self._end: tuple[int, int] | None = None

    def stop(self) -> float | None:
        self._end = _cpu_jiffies()
        if self._start is None or self._end is None:
            return None
        total = self._end[0] - self._start[0]
        idle = self._end[1] - self._start[1]
        return 1 - idle / total if total > 0 else None


def _ticker(stop: threading.Event) -> None:
    """Print a dot a minute, so that a long ``make test`` round shows it is alive."""
    while not stop.wait(60):
        print(".", end="", file=sys.stderr, flush=True)


def turns(trees: list[Path], rounds: int) -> list[list[Path]]:
    """The order the trees run in, round by round: A B, B A, A B, ..."""
    return [trees if number % 2 == 0 else trees[::-1] for number in range(rounds)]


def paired_differences(walls: list[dict[Path, float]], base: Path, other: Path) -> list[float]:
    """Per round, *other*'s wall time minus *base*'s."""
    return [round_walls[other] - round_walls[base] for round_walls in walls]


def timed_run(target: str, tree: Path = ROOT) -> tuple[float, float, float | None, str]:
    """(wall seconds, CPU seconds of the processes waited for, busy share, pytest's summary)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy = BusySampler()
    stop = threading.Event()
    ticker = threading.Thread(target=_ticker, args=(stop,), daemon=True)
    ticker.start()
    started = time.perf_counter()
    done = subprocess.run(
        ["make", target], cwd=tree, capture_output=True, text=True, check=False, env=os.environ
    )
    wall = time.perf_counter() - started
    stop.set()
    share = busy.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [line for line in done.stdout.splitlines() if " in " in line and "passed" in line]
    summary = lines[-1].strip("= ") if lines else f"make {target} failed ({done.returncode})"
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
    return wall, cpu, share, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=3, help="runs of the target (default 3; even with --versus)"
    )
    parser.add_argument(
        "--target", choices=("check", "test"), default="check", help="make target (default check)"
    )
    parser.add_argument(
        "--versus",
        type=Path,
        metavar="DIR",
        help="another checkout (with its own .venv) to take turns with in every round",
    )
    parser.add_argument(
        "--warmup", action="store_true", help="run each tree once, untimed, before the rounds"
    )
    args = parser.parse_args()
    trees = [ROOT]
    if args.versus is not None:
        other = args.versus.resolve()
        if not (other / "Makefile").is_file():
            parser.error(f"--versus {args.versus}: no Makefile there (a checkout of the arena?)")
        if other == ROOT:
            parser.error(f"--versus {args.versus}: that is this checkout; give another one")
        trees.append(other)
    label = {tree: "this" if tree == ROOT else str(tree) for tree in trees}
    if args.warmup:
        for tree in trees:
            _wall, _cpu, _share, summary = timed_run(args.target, tree)
            print(f"warm-up {label[tree]}: {summary}", flush=True)
    rows = []
    walls: list[dict[Path, float]] = []
    for round_number, order in enumerate(turns(trees, args.rounds), start=1):
        reference = reference_seconds()
        walls.append({})
        for tree in order:
            wall, cpu, share, summary = timed_run(args.target, tree)
            walls[-1][tree] = wall
            if tree == ROOT:
                rows.append((reference, wall, cpu))
            busy = "n/a" if share is None else f"{share:4.0%}"
            where = "" if len(trees) == 1 else f" {label[tree]}"
            print(
                f"round {round_number}: reference loop {reference:5.2f} s | make {args.target}"
                f"{where} {wall:6.1f} s wall, {cpu:6.1f} s CPU, cores {busy} busy | {summary}",
                flush=True,
            )
    for tree in trees:
        series = [round_walls[tree] for round_walls in walls]
        where = "" if len(trees) == 1 else f" ({label[tree]})"
        print(
            f"make {args.target}{where}: median {statistics.median(series):.1f} s, "
            f"best {min(series):.1f} s, worst {max(series):.1f} s over {len(series)} rounds "
            f"(reference loop {min(r for r, _, _ in rows):.2f}-{max(r for r, _, _ in rows):.2f} s)"
        )
    if len(trees) == 2:
        differences = paired_differences(walls, ROOT, trees[1])
        print(
            f"{label[trees[1]]} minus this: mean {statistics.fmean(differences):+.1f} s "
            f"over {len(differences)} rounds (per round: "
            f"{', '.join(f'{d:+.1f}' for d in differences)})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
