"""The tests that once failed on a busy machine, each run again and again on one.

Issue 31 found five tests that passed alone and failed when other work kept both cores
busy: their subject is not the clock, yet a limit that a busy machine exhausts first (a
decision time, a fixed think, a short timeout) decided them. This keeps every core busy
with spin-loop processes and runs each test ``--runs`` times in a pytest process of its
own, then prints how many runs of each passed. A test that was skipped (a sandbox layer
or Chromium missing here) counts as not passed: the table says so.

    .venv/bin/python benchmarks/load_sensitive.py            # 10 runs each, all cores busy
    .venv/bin/python benchmarks/load_sensitive.py --runs 3 --only spinner

The output of every run that did not pass is kept under ``runs/load_sensitive/``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "runs" / "load_sensitive"


@dataclass(frozen=True)
class LoadSensitive:
    """One of the tests, as a file and a ``-k`` expression that selects only it."""

    name: str
    path: str
    keyword: str


TESTS = [
    LoadSensitive(
        "memory hog [namespaces]",
        "tests/sandbox/test_zoo_sandbox.py",
        "test_memory_hog_crashes_at_the_cap and namespaces",
    ),
    LoadSensitive(
        "memory hog [landlock]",
        "tests/sandbox/test_zoo_sandbox.py",
        "test_memory_hog_crashes_at_the_cap and landlock",
    ),
    LoadSensitive(
        "cpu spinner [landlock]",
        "tests/sandbox/test_zoo_sandbox.py",
        "test_cpu_spinner_is_killed_at_its_cpu_limit and landlock",
    ),
    LoadSensitive(
        "second stream refused",
        "tests/referee/test_arena_faults.py",
        "test_a_second_stream_is_refused_and_counted_at_the_door",
    ),
    LoadSensitive(
        "organiser browser flow",
        "tests/dashboard/test_browser_accounts.py",
        "test_an_organiser_creates_and_starts_a_tournament_and_a_spectator_watches",
    ),
]

SPIN = "while True: pass"


@contextmanager
def busy_cores(count: int) -> Iterator[None]:
    """*count* processes that each keep a core busy, for as long as the block runs."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()


def command(test: LoadSensitive) -> list[str]:
    """The pytest command that runs *test* alone (in its file's order, no plugins' shuffle)."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:randomly",
        "-q",
        test.path,
        "-k",
        test.keyword,
    ]


def run_once(test: LoadSensitive, number: int) -> tuple[bool, float]:
    """Run *test* once: passed (exactly one test, and it passed) and the wall time."""
    started = time.monotonic()
    done = subprocess.run(
        command(test), cwd=ROOT, capture_output=True, text=True, check=False, timeout=1800
    )
    elapsed = time.monotonic() - started
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    passed = done.returncode == 0 and re.search(r"\b1 passed\b", summary) is not None
    if not passed:
        LOGS.mkdir(parents=True, exist_ok=True)
        slug = re.sub(r"\W+", "-", test.name).strip("-")
        (LOGS / f"{slug}-{number}.log").write_text(done.stdout + done.stderr)
    return passed, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each test (10)")
    parser.add_argument(
        "--spinners", type=int, default=os.cpu_count() or 2, help="busy processes (one a core)"
    )
    parser.add_argument("--only", default="", help="only the tests whose name contains this")
    args = parser.parse_args()
    chosen = [t for t in TESTS if args.only in t.name]
    print(f"{args.spinners} spin loops on {os.cpu_count()} cores, {args.runs} runs of each test")
    rows = []
    with busy_cores(args.spinners):
        for test in chosen:
            print(f"$ {' '.join(command(test)[1:])}", flush=True)
            results = [run_once(test, n) for n in range(1, args.runs + 1)]
            passes = sum(passed for passed, _ in results)
            slowest = max(elapsed for _, elapsed in results)
            rows.append((test.name, passes, slowest))
            print(f"  {passes}/{args.runs} passed (slowest run {slowest:.0f} s)", flush=True)
    print()
    print(f"| {'test':<24} | passed | slowest run |")
    print(f"| {'-' * 24} | ------ | ----------- |")
    for name, passes, slowest in rows:
        print(f"| {name:<24} | {passes:>2}/{args.runs:<3} | {slowest:>9.0f} s |")
    return 0 if all(passes == args.runs for _, passes, _ in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
