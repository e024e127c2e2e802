"""How much CPU a Python bot spends starting: ``import arena.sdk``, and a sample bot's start.

Why: every Python bot process pays its start-up once per match, and a tournament or the
test suite starts hundreds of them (about 1,700 in ``make test``); the referee also counts
the same start-up against each author's start-up limit. Most of it is imports, so this
keeps visible what ``import arena.sdk`` loads and what a bot's start costs in all.

Measured, each ``--runs`` times in a fresh process, after one untimed run that writes the
modules' bytecode (as ``make bytecode`` leaves an installed arena):

- ``import arena.sdk``: ``python -c "import arena.sdk"``;
- ``<bot> module``: a sample bot's module loaded without running it
  (``runpy.run_path(".../bot.py")``, so its ``if __name__ == "__main__"`` part is skipped):
  its imports, the SDK's among them;
- ``<bot> start``: the sample bot run as the referee runs it (``python bot.py`` in its
  directory, the ``run`` of its bot.toml) with ``ARENA_ADDRESS`` set to a unix socket no
  one serves: it imports, loads gRPC, opens its channel, tries to send its Hello, and
  exits with :class:`arena.sdk.BotRunError` (expected, and checked). That is the whole
  start-up of a bot process up to its first message, with no referee's CPU mixed in.

Reported: the median and the range of wall seconds and of the process's CPU seconds
(user + system, from ``wait4``), then ``python -X importtime -c "import arena.sdk"``'s
costliest modules (cumulative milliseconds: they nest, so the figures overlap). ``--repo
DIR`` times another checkout's code with this interpreter (copy this script there, or pass
``--repo`` to compare a ``git worktree add /tmp/old HEAD``). Figures are reported, never
asserted.

Run: ``python benchmarks/bot_startup.py [--runs 10] [--bots random_bot,heuristic_bot]
[--repo DIR] [--top 15] [--json]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The timed runs, the -X importtime table and the report's head, shared:
from cli_startup import EndCheck, finish, import_times, run_once, succeeded, timed

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BOTS = ("random_bot", "heuristic_bot")
EXPECTED_REFUSAL = "BotRunError"
"""What a bot started against a socket no one serves must end with (its stderr)."""


def refused(code: int, stderr: str) -> bool:
    """The end of a bot started with no referee to reach: it fails with
    :data:`EXPECTED_REFUSAL`."""
    return code != 0 and EXPECTED_REFUSAL in stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=10, help="fresh processes per command")
    parser.add_argument(
        "--bots", default=",".join(DEFAULT_BOTS), help="sample bots, comma-separated"
    )
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose code runs")
    parser.add_argument("--top", type=int, default=15, help="modules listed from importtime")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    repo = args.repo.resolve()
    # Bytecode written and read, as in an installed arena (a PYTHONDONTWRITEBYTECODE left in
    # the environment would have every run compile every module from source).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(repo)
    nowhere = Path(tempfile.mkdtemp(prefix="arena-bench-bot-")) / "nobody-serves.sock"
    bot_env = env | {"ARENA_ADDRESS": f"unix:{nowhere}", "ARENA_TOKEN": "bench"}
    python = sys.executable
    # label -> (argv, working directory, environment, how it must end)
    commands: dict[str, tuple[list[str], Path, dict[str, str], EndCheck]] = {
        "import arena.sdk": ([python, "-c", "import arena.sdk"], repo, env, succeeded),
    }
    for bot in filter(None, args.bots.split(",")):
        directory = repo / "sample_bots" / bot
        load = f"import runpy; runpy.run_path({str(directory / 'bot.py')!r})"
        commands[f"{bot} module"] = ([python, "-c", load], repo, env, succeeded)
        commands[f"{bot} start"] = ([python, "bot.py"], directory, bot_env, refused)
    report: dict[str, Any] = {"repo": str(repo), "runs": args.runs, "load": os.getloadavg()}
    for label, (argv, cwd, run_env, ended_well) in commands.items():
        run_once(argv, run_env, cwd, ended_well)  # not timed: writes the bytecode
        report[label] = timed(argv, args.runs, run_env, cwd, ended_well)
    report["importtime"] = import_times([python, "-c", "import arena.sdk"], env, repo, args.top)
    if finish(report, args.json):
        return 0
    for label in commands:
        f = report[label]
        print(
            f"{label:<22} CPU median {f['cpu_median_s'] * 1000:6.1f} ms "
            f"({f['cpu_min_s'] * 1000:.1f}-{f['cpu_max_s'] * 1000:.1f}), wall median "
            f"{f['wall_median_s'] * 1000:6.1f} ms ({f['wall_min_s'] * 1000:.1f}-"
            f"{f['wall_max_s'] * 1000:.1f})"
        )
    imports = report["importtime"]
    print(f"\nimport arena.sdk: {imports['modules']} modules; costliest (cumulative):")
    for row in imports["top"]:
        print(f"  {row['cumulative_us'] / 1000:8.1f} ms  {'  ' * row['depth']}{row['module']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
