"""How long ``make check`` takes, run after run, beside how fast the machine is right then.

``make check`` aims at under a minute on two cores. On a shared machine one run says
little: the same CPU-bound work takes up to half as long again when a neighbour is busy.
So each round first times a fixed pure-Python loop (the machine's speed at that moment),
then runs ``make check`` and times it, and the table shows both. Read the runs whose
reference time is near the best one: they are the machine at its usual speed.

    .venv/bin/python benchmarks/check_time.py             # 3 rounds
    .venv/bin/python benchmarks/check_time.py --rounds 5

The first round may also pay for mypy's cache and pytest's bytecode of the tests; the
table says so when it took much longer than the rest.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_LOOP = "s = 0\nfor i in range(30_000_000):\n    s += i\n"
"""About 3 s of one core on the machine this was written on: the speed reference."""


def reference_seconds() -> float:
    """Wall time of :data:`REFERENCE_LOOP` in a fresh interpreter."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", REFERENCE_LOOP], check=True)
    return time.perf_counter() - started


def check_run() -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of all its processes, pytest's summary line)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        ["make", "check"], cwd=ROOT, capture_output=True, text=True, check=False, env=os.environ
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [line for line in done.stdout.splitlines() if " in " in line and "passed" in line]
    summary = lines[-1].strip("= ") if lines else f"make check failed ({done.returncode})"
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
    return wall, cpu, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="make check runs (default 3)")
    args = parser.parse_args()
    rows = []
    for round_number in range(1, args.rounds + 1):
        reference = reference_seconds()
        wall, cpu, summary = check_run()
        rows.append((reference, wall, cpu))
        print(
            f"round {round_number}: reference loop {reference:5.2f} s | make check "
            f"{wall:5.1f} s wall, {cpu:6.1f} s CPU | {summary}",
            flush=True,
        )
    walls = [wall for _, wall, _ in rows]
    print(
        f"make check: median {statistics.median(walls):.1f} s, best {min(walls):.1f} s, "
        f"worst {max(walls):.1f} s over {len(walls)} rounds "
        f"(reference loop {min(r for r, _, _ in rows):.2f}-{max(r for r, _, _ in rows):.2f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
