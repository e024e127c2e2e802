"""How long the ``arena`` command takes to start: ``arena --help`` and ``arena standings --json``.

Why: issue 35 asks ``arena standings --json`` to answer in under 1 s on a 1,000,000-game
database. Its query reads tallies and takes tens of milliseconds, so the command's time is
Python starting and importing modules. The CLI imports only the module of the command
that runs (:mod:`arena.cli.lazy_group`), and ``arena.storage`` imports Alembic only to
migrate and NumPy only when the rank intervals are computed; this benchmark keeps that
visible.

Each command runs ``--runs`` times in a fresh process (``python -m arena.cli ...``, what
the ``arena`` script runs), after one untimed run that writes the modules' bytecode (as an
installed arena has it); reported: the median and the range of wall seconds and of the
process's CPU seconds (user + system, from ``wait4``). Then ``python -X importtime`` of
the same commands lists the modules that cost most (cumulative milliseconds: they nest,
so the figures overlap).

By default ``arena standings`` reads a small database this script builds in a temporary
directory (``--games`` games of 4 bots, by :func:`benchmarks.dashboard.build`); ``--db
URL`` times an existing one (its tournament ``--tournament``, ``bench`` by default, what
benchmarks/dashboard.py builds), or with ``--build`` a new one built there (a PostgreSQL
database, say). ``--repo DIR`` times another checkout's ``arena`` with this interpreter;
to time the code before a change, copy this script into a ``git worktree add /tmp/old
HEAD`` and run it from there: it builds its database with that checkout's code (a newer
checkout's database may be at a migration the old code does not know). Figures are
reported, never asserted.

Run: ``python benchmarks/cli_startup.py [--runs 7] [--db URL [--build]] [--tournament NAME]
[--games 480] [--repo DIR] [--top 12] [--json]``. Figures: docs/performance.md, "The
dashboard at a million games (issue 35)".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EndCheck = Callable[[int, str], bool]
"""Whether a timed command ended as it should, from its exit code and stderr."""


def succeeded(code: int, stderr: str) -> bool:
    """The usual end of a timed command: exit code 0."""
    return code == 0


def run_once(
    argv: list[str], env: dict[str, str], cwd: Path, ended_well: EndCheck = succeeded
) -> tuple[float, float]:
    """Wall and CPU seconds of one run of *argv* in a fresh process, which must end as
    *ended_well* (exit code, stderr) says (by default: succeed)."""
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert child.stderr is not None
    errors = child.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if not ended_well(code, errors):
        raise SystemExit(f"{' '.join(argv)} ended unexpectedly ({code}): {errors[-600:]}")
    return wall, usage.ru_utime + usage.ru_stime


def timed(
    argv: list[str], runs: int, env: dict[str, str], cwd: Path, ended_well: EndCheck = succeeded
) -> dict[str, float]:
    """Median, min and max wall and CPU seconds of *runs* fresh runs of *argv*."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = run_once(argv, env, cwd, ended_well)
        walls.append(wall)
        cpus.append(cpu)
    return {
        "wall_median_s": statistics.median(walls),
        "wall_min_s": min(walls),
        "wall_max_s": max(walls),
        "cpu_median_s": statistics.median(cpus),
        "cpu_min_s": min(cpus),
        "cpu_max_s": max(cpus),
    }


def finish(report: dict[str, Any], as_json: bool) -> bool:
    """Close *report* (the load after the runs), print it as JSON if *as_json*, else its
    head line; whether it was printed whole."""
    report["load_after"] = os.getloadavg()
    if as_json:
        print(json.dumps(report, indent=1))
        return True
    print(f"{report['repo']}: {report['runs']} fresh runs each; load "
          f"{report['load'][0]:.2f} before, {report['load_after'][0]:.2f} after")  # fmt: skip
    return False


def import_times(argv: list[str], env: dict[str, str], cwd: Path, top: int) -> dict[str, Any]:
    """The *top* modules by cumulative import time of one run of *argv* under
    ``-X importtime`` (microseconds), and how many modules it imported."""
    done = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        env=env, cwd=cwd, capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|", 2)
        rows.append((int(cumulative), name.rstrip()))
    rows.sort(reverse=True)
    return {
        "modules": len(rows),
        "top": [{"module": name.strip(), "depth": _depth(name), "cumulative_us": us}
                for us, name in rows[:top]],
    }  # fmt: skip


def _depth(name: str) -> int:
    """How deep *name* sits in importtime's tree (two spaces a level)."""
    return (len(name) - len(name.lstrip(" ")) - 1) // 2


def small_database(games: int, url: str) -> str:
    """The database at *url* (a new one) given about *games* games in tournament ``bench``,
    built here with the code of the checkout this script belongs to."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.dashboard import build  # noqa: PLC0415  (heavy: only when building)

    engine, _, seconds = build(url, games)
    engine.dispose()
    print(f"built {url} ({games} games) in {seconds:.1f} s", file=sys.stderr)
    return url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per command")
    parser.add_argument("--db", help="database URL (default: a small SQLite one built here)")
    parser.add_argument("--tournament", default="bench", help="the tournament shown")
    parser.add_argument("--games", type=int, default=480, help="games of the built database")
    parser.add_argument("--build", action="store_true", help="build the database at --db first")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose arena runs")
    parser.add_argument("--top", type=int, default=12, help="modules listed per importtime")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    repo = args.repo.resolve()
    workdir = Path(tempfile.mkdtemp(prefix="arena-bench-cli-"))
    if args.db is None or args.build:
        url = small_database(args.games, args.db or f"sqlite:///{workdir / 'arena.db'}")
    else:
        url = args.db
    # Bytecode written and read, as in an installed arena (a PYTHONDONTWRITEBYTECODE left in
    # the environment would have every run compile every module from source).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPATH": str(repo), "ARENA_DATA": str(workdir / "data")}
    python = [sys.executable]
    commands = {
        "arena --help": [*python, "-m", "arena.cli", "--help"],
        "arena standings --json": [
            *python, "-m", "arena.cli", "standings", args.tournament, "--json", "--db", url,
        ],
    }  # fmt: skip
    report: dict[str, Any] = {
        "repo": str(repo),
        "db": url,
        "runs": args.runs,
        "load": os.getloadavg(),
    }
    for label, argv in commands.items():
        run_once(argv, env, repo)  # not timed: writes the bytecode the runs then read
        report[label] = timed(argv, args.runs, env, repo)
        report[label]["importtime"] = import_times(argv, env, repo, args.top)
    if finish(report, args.json):
        return 0
    for label in commands:
        f = report[label]
        print(
            f"\n{label:<24} wall median {f['wall_median_s']:.3f} s ({f['wall_min_s']:.3f}-"
            f"{f['wall_max_s']:.3f}), CPU median {f['cpu_median_s']:.3f} s "
            f"({f['cpu_min_s']:.3f}-{f['cpu_max_s']:.3f}); {f['importtime']['modules']} modules"
        )
        for row in f["importtime"]["top"]:
            print(f"  {row['cumulative_us'] / 1000:8.1f} ms  {'  ' * row['depth']}{row['module']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
