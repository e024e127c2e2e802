"""Tournament throughput against ``arena match`` and the transport, and rating recomputation,
in one run (issue 14, item 6).

1. Throughput, all on the same four copies of ``sample_bots/random_bot`` (SDK bots), the
   ``classic`` rules and the default sandbox:

   a. a round robin (4 tables x ``--boards`` boards x 6 seatings) run by the tournament
      runner with ``--parallel`` worker processes, SQLite storage and live ratings
      included: with process reuse (the default: a seating's processes play its boards)
      and without (``--no-reuse``: fresh processes for every game), each with and without
      pre-starting the next game's processes (``--prestart``), and with reuse on a round
      robin as made before per-table deals (board *n* dealt alike at every table);
   b. ``arena match``'s code path: one match of ``--match-games`` games, the same three
      processes for all of them;
   c. the transport ceiling: as many decisions as the reuse run had, through ``--parallel``
      bare grpc.aio ping-pong pairs at once, each in a process of its own like a worker
      (``benchmarks/referee.py``'s bare baseline: one raw bench bot process per pair, the
      median request's bytes, no referee), converted to games/s with the tournament's
      decisions per game;
   d. the same tournament through Ray on two local nodes (:func:`ray_row`; Ray's own
      daemons share the 2 cores).

   Every row runs once per turn, ``--repeat`` turns, forwards and backwards in turn
   (:func:`turn_order`), with b, c and d next to the reuse row. A shared machine's
   load drifts: single rows here move by a third between runs of identical code, so the
   goals are ratios taken within each turn, between rows run a minute apart, and their
   median over the turns is reported (:func:`paired`; the ratio of the rows' medians
   beside it). Reported, never asserted: games/s and hands/s of each row (its median
   run, every run listed, CPU per game beside the wall clock), and the goals (local
   tournament >= 1.5x ``arena match``'s games/s, >= 0.5 of the transport ceiling, Ray's
   overhead against the local pool < 15%).
2. The time to recompute the ratings of a 10,000-game tournament from its stored games.

Run: ``python benchmarks/tournament.py [--boards 6] [--parallel 2] [--repeat 1]
[--tournaments-only] [--variants tournament_reuse,...] [--match-games 60]
[--rating-games 10000] [--json]``. ``--variants`` keeps only some of a's rows (the reuse
row always runs): the goals depend on the round robin's size, since its process starts
are the same at any number of boards, and measuring them at several sizes need not run
every variant each time (docs/scaling.md).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import importlib.util
import json
import multiprocessing
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.protocol.grpc_env import configure_grpc

configure_grpc(os.environ)  # a script is an entry point: before anything imports grpc

from arena import storage  # noqa: E402
from arena.game import PRESETS  # noqa: E402
from arena.game.record import game_record  # noqa: E402
from arena.referee.manifest import load_manifest  # noqa: E402
from arena.referee.match import MatchConfig, play_match  # noqa: E402
from arena.referee.timecontrol import TimeControl  # noqa: E402
from arena.sandbox.config import SandboxConfig  # noqa: E402
from arena.simulate import make_policies, play_game  # noqa: E402
from arena.storage.database import open_database  # noqa: E402
from arena.storage.models import BOARD_DEALS, TABLE_DEALS  # noqa: E402
from arena.submission import submit_bot  # noqa: E402
from arena.tournament.executor import Executor, LocalProcessExecutor  # noqa: E402
from arena.tournament.formats import RoundRobin  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("random_a", "random_b", "random_c", "random_d")
TIME_CONTROL = "decision=1000,bank=10000,grace=50,startup=10000"
GOAL_VS_MATCH = 1.5
GOAL_VS_CEILING = 0.5
GOAL_RAY_OVERHEAD = 0.15


def _referee_bench() -> ModuleType:
    """``benchmarks/referee.py`` (its bare gRPC baseline), imported by path."""
    spec = importlib.util.spec_from_file_location(
        "bench_referee", ROOT / "benchmarks" / "referee.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


def _copies(work: Path) -> list[Path]:
    """Four differently named copies of random_bot (a round robin of four bots)."""
    paths = []
    for name in NAMES:
        target = work / "src" / name
        shutil.copytree(ROOT / "sample_bots" / "random_bot", target)
        toml = (target / "bot.toml").read_text().replace('"random_bot"', f'"{name}"')
        (target / "bot.toml").write_text(toml)
        paths.append(target)
    return paths


def _totals(records: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """Games, hands and decisions of *records* played in *seconds*, and their rates."""
    hands = sum(int(r["result"]["hands_played"]) for r in records)
    decisions = sum(len(seat) for r in records for seat in r["timings"]["decision_ms"])
    return {
        "games": len(records),
        "hands": hands,
        "decisions": decisions,
        "faults": sum(len(r["faults"]) for r in records),
        "seconds": seconds,
        "games_per_s": len(records) / seconds,
        "hands_per_s": hands / seconds,
    }


def _new_tournament(
    work: Path, paths: list[Path], boards: int, label: str, deal_scope: str
) -> tuple[Any, str]:
    """A fresh SQLite database with the bots submitted and a round robin created."""
    data = work / f"data-{label}"
    data.mkdir()
    engine = open_database(f"sqlite:///{data / 'arena.db'}")
    versions = [submit_bot(engine, path, data)[0] for path in paths]
    total = RoundRobin().games_total(len(paths), boards)
    storage.create_tournament(
        engine, name=label, ruleset="classic", rules_json=json.dumps(PRESETS["classic"].to_json()),
        time_control=TIME_CONTROL, boards=boards, seed=1, rating_mode="board",
        entries=[storage.row_id(v) for v in versions], games_total=total, deal_scope=deal_scope,
    )  # fmt: skip
    return engine, label


def tournament_run(
    work: Path,
    paths: list[Path],
    boards: int,
    executor: Executor,
    label: str,
    deal_scope: str = TABLE_DEALS,
) -> dict[str, Any]:
    """A real round robin on SQLite played by *executor*; its totals. *deal_scope* ``table``
    is how round robins are made (every table its own deals), ``board`` how they were."""
    engine, name = _new_tournament(work, paths, boards, label, deal_scope)
    try:
        cpu_before, machine_before = _cpu_seconds(), _machine_jiffies()
        start = time.perf_counter()
        asyncio.run(run_tournament(engine, name, executor))
        seconds = time.perf_counter() - start
        cpu = _cpu_seconds() - cpu_before
        tid = storage.row_id(storage.get_tournament(engine, name))
        records = [record for _, record in storage.tournament_records(engine, tid)]
    finally:
        engine.dispose()
    return (
        _totals(records, seconds)
        | _cpu(cpu, len(records), seconds)
        | _machine(machine_before, len(records))
    )


def _machine_jiffies() -> tuple[int, int]:
    """Busy and total CPU time of the whole machine so far (``/proc/stat``, every process,
    bots included): whether idle cores were left that pre-starting processes could use."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:9]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _machine(before: tuple[int, int], games: int) -> dict[str, float]:
    """Since *before* (:func:`_machine_jiffies`), the whole machine's share of busy time,
    and its busy CPU seconds per game (every process, bots included, and other users' load
    too: on a quiet machine, what a game costs in all). The bound on a tournament's speed
    against ``arena match`` in :func:`print_report` comes from these."""
    busy, total = (b - a for a, b in zip(before, _machine_jiffies(), strict=True))
    return {
        "machine_busy": busy / total if total else 0.0,
        "machine_cpu_per_game": busy / os.sysconf("SC_CLK_TCK") / games if games else 0.0,
    }


def _cpu(cpu: float, games: int, seconds: float) -> dict[str, float]:
    """CPU figures of a row: on a shared machine the wall clock measures the other
    users' load too; CPU seconds per game do not (this process and the children it has
    waited for: not Ray's daemons, and a sandboxed bot only as far as its chain waited)."""
    return {"cpu_seconds": cpu, "cpu_per_game": cpu / games, "cores_busy": cpu / seconds}


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children and their children (the
    workers and their bots, once the workers have exited)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def ray_row(
    work: Path, paths: list[Path], boards: int, parallel: int, label: str = "ray"
) -> dict[str, Any] | None:
    """The Ray row: the same round robin as :func:`tournament_run` through ``RayExecutor``
    on a local cluster of two nodes; its :func:`_totals` plus anything Ray-specific, or
    ``None`` when Ray is not installed (the row then reads "not measured").

    The cluster is a head and a second node of one CPU each, started with ``ray start`` and
    token authentication by ``tests/tournament/ray_support.py`` (imported by path), before
    the clock starts. The runner joins it before the clock starts too (``connect_seconds``,
    reported apart: a cluster is joined once per run, like the pool's imports); the clock
    then covers what the local pool's does: starting the slots (Ray actors), shipping the
    versions to each node's cache, playing and storing every game.
    """
    if importlib.util.find_spec("ray") is None:
        return None
    from arena.tournament.ray_executor import RayExecutor  # noqa: PLC0415 - an optional row

    spec = importlib.util.spec_from_file_location(
        "ray_support", ROOT / "tests" / "tournament" / "ray_support.py"
    )
    assert spec is not None and spec.loader is not None
    support = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = support  # dataclasses look their module up while being made
    spec.loader.exec_module(support)
    with support.local_cluster(nodes=2) as cluster:
        executor = RayExecutor(cluster.address, parallel)
        start = time.perf_counter()
        executor.connect()
        connect = time.perf_counter() - start
        try:
            row = tournament_run(work, paths, boards, executor, label)
        finally:
            executor.close()
    row["connect_seconds"] = connect
    row["nodes"] = len(set(executor.played_on.values()))
    return row


def _ray_row_apart(
    work: Path, paths: list[Path], boards: int, parallel: int, label: str
) -> dict[str, Any] | None:
    """:func:`ray_row` in a fresh process: a Ray driver joins one cluster per process (it
    keeps the first cluster's token), and each run starts a cluster of its own."""
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(ray_row, work, paths, boards, parallel, label).result()


def match_run(paths: list[Path], games: int) -> dict[str, Any]:
    """``arena match``'s code path: one match, the same three processes for every game."""
    seats = [load_manifest(p) for p in paths[:3]]
    config = MatchConfig(PRESETS["classic"], games, 1, time_control=TimeControl.parse(TIME_CONTROL))
    cpu_before, machine_before = _cpu_seconds(), _machine_jiffies()
    start = time.perf_counter()
    result = asyncio.run(play_match(seats, config))
    seconds = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu_before
    return (
        _totals(result.records, seconds)
        | _cpu(cpu, games, seconds)
        | _machine(machine_before, games)
    )


def _pair(work: Path, count: int, index: int) -> float:
    """One bare ping-pong pair of *count* round trips, in a process of its own (as each
    tournament worker is); its wall time, the bot's start included."""
    bench = _referee_bench()
    manifest = bench.write_bench_bot(work / f"raw_bench_{index}")
    sizes = bench.size_sample(bench.replay_match(MatchConfig(PRESETS["classic"], 4, 1)))
    directory = Path(tempfile.mkdtemp(prefix="arena-bench-pair-"))
    try:
        start = time.perf_counter()
        asyncio.run(
            bench.bare_ping_pong(manifest, sizes.payload, count, directory, SandboxConfig())
        )
        return time.perf_counter() - start
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def transport_ceiling(
    work: Path, decisions: int, parallel: int, per_game: float, hands_per_game: float
) -> dict[str, Any]:
    """*decisions* round trips through *parallel* bare grpc.aio ping-pong pairs at once,
    each pair in a process of its own (benchmarks/referee.py's bare baseline: a raw bench
    bot, the median request's bytes, no referee)."""
    share = [
        decisions // parallel + (1 if i < decisions % parallel else 0) for i in range(parallel)
    ]
    context = multiprocessing.get_context("spawn")
    cpu_before = _cpu_seconds()
    with concurrent.futures.ProcessPoolExecutor(parallel, mp_context=context) as pool:
        start = time.perf_counter()
        list(pool.map(_pair, [work] * parallel, share, range(parallel)))
        seconds = time.perf_counter() - start
    games = decisions / per_game
    return _cpu(_cpu_seconds() - cpu_before, round(games), seconds) | {
        "decisions": decisions,
        "pairs": parallel,
        "seconds": seconds,
        "games_per_s": decisions / per_game / seconds,
        "hands_per_s": decisions / per_game * hands_per_game / seconds,
    }


def recompute(work: Path, games: int) -> dict[str, float]:
    """Store *games* games (real records, reused) and time ``recompute_ratings``."""
    names = NAMES[:3]
    engine = open_database(f"sqlite:///{work / 'ratings.db'}")
    data = work / "rating-bots"
    versions = []
    for index, name in enumerate(names):
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
        records.append(game_record(state, list(names)))
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
    engine.dispose()
    return {"games": len(schedule), "store_seconds": fill, "recompute_seconds": seconds}


VARIANTS: dict[str, tuple[str, bool, bool, str]] = {
    "tournament_reuse": ("tournament, process reuse (default)", True, False, TABLE_DEALS),
    "tournament_reuse_prestart": ("tournament, reuse, --prestart", True, True, TABLE_DEALS),
    "tournament_no_reuse": ("tournament, --no-reuse", False, False, TABLE_DEALS),
    "tournament_no_reuse_prestart": (
        "tournament, --no-reuse --prestart",
        False,
        True,
        TABLE_DEALS,
    ),
    "tournament_reuse_shared_deals": (
        "tournament, reuse, shared deals",
        True,
        False,
        BOARD_DEALS,
    ),
}
"""Row key -> (label, reuse, prestart, deal scope) of each local tournament variant. The
last is a round robin as made before per-table deals (migration 0006), for comparison."""


FIRST_VARIANT = "tournament_reuse"
"""The local row every goal compares: it runs first in each turn, beside the extra rows."""


def _variants(text: str) -> list[str]:
    """``--variants``: known row keys, the reuse row first and always."""
    chosen = [key.strip() for key in text.split(",") if key.strip()]
    unknown = [key for key in chosen if key not in VARIANTS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}"
        )
    return [FIRST_VARIANT, *(key for key in dict.fromkeys(chosen) if key != FIRST_VARIANT)]


EXTRA_ROWS = ("match", "ceiling", "ray")
"""The rows beside the local variants: ``arena match``, the transport ceiling, Ray."""


def turn_order(turn: int, extras: bool, variants: list[str] | None = None) -> list[str]:
    """The rows of one turn: forwards on even turns, backwards on odd ones, so that a
    drift in the machine's load falls on all of them alike. The rows each goal compares
    with the reuse row (``arena match``, the ceiling, Ray) run right beside it. *variants*
    (default: all) are the local tournament rows; the reuse row is always first."""
    first, *others = variants or list(VARIANTS)
    assert first == FIRST_VARIANT
    order = [first, *(EXTRA_ROWS if extras else ()), *others]
    return order if turn % 2 == 0 else order[::-1]


def run_rows(
    args: argparse.Namespace, work: Path, paths: list[Path]
) -> dict[str, list[dict[str, Any] | None]]:
    """Every row *args.repeat* times, in the order of :func:`turn_order`. The ceiling
    replays the reuse row's decisions, which are the same in every run (a fixed seed and
    seeded bots): it takes them from the first reuse run."""
    extras = not args.tournaments_only
    keys = [*args.variants, *(EXTRA_ROWS if extras else ())]
    runs: dict[str, list[dict[str, Any] | None]] = {key: [] for key in keys}
    for turn in range(args.repeat):
        for key in turn_order(turn, extras, args.variants):
            runs[key].append(_one_row(key, turn, args, work, paths, runs))
    return runs


def _one_row(
    key: str,
    turn: int,
    args: argparse.Namespace,
    work: Path,
    paths: list[Path],
    runs: dict[str, list[dict[str, Any] | None]],
) -> dict[str, Any] | None:
    """One run of the row *key* (``None``: the Ray row without Ray installed)."""
    parallel = args.parallel
    if key == "match":
        return match_run(paths, args.match_games)
    if key == "ceiling":
        played = runs["tournament_reuse"][0]
        assert played is not None
        return transport_ceiling(
            work,
            played["decisions"],
            parallel,
            played["decisions"] / played["games"],
            played["hands"] / played["games"],
        )
    if key == "ray":
        return _ray_row_apart(work, paths, args.boards, parallel, f"ray-{turn}")
    _, reuse, prestart, deals = VARIANTS[key]
    executor = LocalProcessExecutor(parallel, reuse=reuse, prestart=prestart)
    row = tournament_run(work, paths, args.boards, executor, f"{key}-{turn}", deals)
    return row | {"prestarts": dict(executor.prestarts), "processes_started": executor.started}


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median games/s (the lower middle one of an even number)."""
    ranked = sorted(runs, key=lambda row: float(row["games_per_s"]))
    return ranked[(len(ranked) - 1) // 2]


def paired(runs: dict[str, list[dict[str, Any] | None]], key: str) -> list[float]:
    """Per turn, the reuse row's games/s over the row *key*'s, run beside it: a ratio
    that a slow drift in the machine's load (which moves single rows by a third between
    runs here) changes much less than either figure."""
    return [
        reuse["games_per_s"] / other["games_per_s"]
        for reuse, other in zip(runs["tournament_reuse"], runs[key], strict=True)
        if reuse is not None and other is not None
    ]


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Every measurement of one run."""
    paths = _copies(work)
    runs = run_rows(args, work, paths)
    results: dict[str, Any] = {"boards": args.boards, "parallel": args.parallel, "runs": runs}
    for key, rows in runs.items():
        measured = [row for row in rows if row is not None]
        results[key] = _median(measured) if measured else None
    if not args.tournaments_only:
        results["paired"] = {key: paired(runs, key) for key in EXTRA_ROWS}
    if args.rating_games:
        results["ratings"] = recompute(work, args.rating_games)
    return results


def print_prestart(results: dict[str, Any]) -> None:
    """Pre-start against none, per run: wall clock and CPU."""
    runs = results["runs"]
    print(f"  pre-start, {len(runs['tournament_reuse'])} alternating run(s) of each variant:")
    for key, (label, *_) in VARIANTS.items():
        if key not in runs:
            continue
        rows = runs[key]
        rates = " ".join(f"{row['games_per_s']:.2f}" for row in rows)
        cpu = " ".join(f"{row['cpu_per_game']:.3f}" for row in rows)
        busy = " ".join(f"{row['machine_busy']:.0%}" for row in rows)
        started = sum(row["prestarts"]["started"] for row in rows)
        used = sum(row["prestarts"]["used"] for row in rows)
        print(f"    {label:36s} games/s {rates} | CPU s/game {cpu} | machine busy {busy}")
        opened = " ".join(str(row["processes_started"]) for row in rows)
        print(f"    {'':36s} bot processes started by the games (not pre-started): {opened}")
        if "prestart" in key:
            print(f"    {'':36s} pre-starts {started}, games played on one {used}")
    for plain, ahead in (
        ("tournament_reuse", "tournament_reuse_prestart"),
        ("tournament_no_reuse", "tournament_no_reuse_prestart"),
    ):
        if plain not in runs or ahead not in runs:
            continue
        speed = [
            a["games_per_s"] / b["games_per_s"]
            for a, b in zip(runs[ahead], runs[plain], strict=True)
        ]
        cpu = [
            a["cpu_per_game"] / b["cpu_per_game"]
            for a, b in zip(runs[ahead], runs[plain], strict=True)
        ]
        print(
            f"    {VARIANTS[ahead][0]} vs without: games/s x{statistics.median(speed):.2f} "
            f"(runs {' '.join(f'{x:.2f}' for x in speed)}), CPU per game "
            f"x{statistics.median(cpu):.2f}"
        )


def print_report(results: dict[str, Any]) -> None:
    """The table and the goals."""
    reuse = results["tournament_reuse"]
    print(
        f"4 x random_bot, classic, default sandbox; round robin of {reuse['games']} games "
        f"({results['boards']} boards), --parallel {results['parallel']}"
    )
    print(f"  {'':44s} {'games/s':>8s} {'hands/s':>8s} {'games':>6s} {'seconds':>8s}")
    rows = [(label, results[key]) for key, (label, *_) in VARIANTS.items() if key in results]
    faults = sum(row.get("faults", 0) for rows in results["runs"].values() for row in rows if row)
    if faults:
        print(f"  WARNING: {faults} bot fault(s): the figures are void")
    if "match" not in results:
        _print_rows(rows)
        print_prestart(results)
        return
    rows += [
        ("arena match (3 processes for all games)", results["match"]),
        (f"transport ceiling ({results['parallel']} bare grpc.aio pairs)", results["ceiling"]),
        ("tournament through Ray, 2 local nodes", results["ray"]),
    ]
    _print_rows(rows)
    print_prestart(results)
    for key, label in (("match", "arena match"), ("ceiling", "transport ceiling"), ("ray", "Ray")):
        shown = [f"{row['games_per_s']:.2f}" for row in results["runs"][key] if row]
        print(f"  {label} runs, games/s by turn: {' '.join(shown) or 'not measured'}")
    vs_match = reuse["games_per_s"] / results["match"]["games_per_s"]
    vs_ceiling = reuse["games_per_s"] / results["ceiling"]["games_per_s"]
    fresh = results.get("tournament_no_reuse")
    if fresh is not None:
        print(f"  reuse vs --no-reuse: {reuse['games_per_s'] / fresh['games_per_s']:.2f}x")
    print(
        "  arena-side CPU seconds per game (runner, workers, referees; independent of other "
        "users' load; a bot's CPU counts only when every process between it and this one "
        "waited for it, which the sandbox's chain does not promise):"
    )
    for label, key in (
        ("tournament, reuse", "tournament_reuse"),
        ("tournament, --no-reuse", "tournament_no_reuse"),
        ("arena match", "match"),
        ("transport ceiling", "ceiling"),
    ):
        row = results.get(key)
        if row is None:
            continue
        print(
            f"    {label:24s} {row['cpu_per_game']:6.3f} s/game, "
            f"{row['cores_busy']:.2f} cores busy on average"
        )
    print(
        "  whole machine busy during the tournament (all processes, bots included; what is "
        "left idle bounds what pre-starting the next game's processes could use): "
        f"reuse {reuse['machine_busy']:.0%}"
        + (f", --no-reuse {fresh['machine_busy']:.0%}" if fresh is not None else "")
    )
    match = results["match"]
    cores = os.cpu_count() or 1
    match_game_s = 1 / match["games_per_s"]
    print(
        "  whole-machine CPU seconds per game (bots included): "
        f"tournament, reuse {reuse['machine_cpu_per_game']:.3f}; arena match "
        f"{match['machine_cpu_per_game']:.3f}, whose games take {match_game_s:.3f} s each. "
        f"With no process to start at all, {cores} busy cores would play at most "
        f"{cores * match_game_s / match['machine_cpu_per_game']:.2f}x arena match's games/s "
        "(docs/scaling.md)"
    )
    print(
        "  goals, each as the median over turns of the reuse row's games/s against the row "
        "run beside it (and, in brackets, the ratio of the two rows' medians):"
    )
    pairs = results["paired"]
    print(
        f"    tournament >= {GOAL_VS_MATCH}x arena match: {_goal(pairs['match'])} [{vs_match:.2f}x]"
    )
    print(
        f"    tournament >= {GOAL_VS_CEILING} of the transport ceiling: {_goal(pairs['ceiling'])} "
        f"[{vs_ceiling:.2f}]"
    )
    if results["ray"] is not None:
        overhead = [ratio - 1 for ratio in pairs["ray"]]
        rates = " ".join(f"{row['games_per_s']:.2f}" for row in results["runs"]["ray"] if row)
        print(
            f"    Ray overhead < {GOAL_RAY_OVERHEAD:.0%}: {_goal(overhead, percent=True)} "
            f"[{reuse['games_per_s'] / results['ray']['games_per_s'] - 1:+.1%}] "
            f"(Ray runs: {rates})"
        )
    if "ratings" in results:
        r = results["ratings"]
        print(
            f"ratings: recompute {r['games']} games in {r['recompute_seconds']:.2f} s "
            f"(storing them one by one with live rating took {r['store_seconds']:.1f} s)"
        )


def _goal(values: list[float], *, percent: bool = False) -> str:
    """The median of per-turn *values*, and each of them."""
    shown = [f"{v:+.1%}" if percent else f"{v:.2f}" for v in values]
    middle = statistics.median(values)
    figure = f"{middle:+.1%}" if percent else f"{middle:.2f}"
    return f"{figure} (turns: {' '.join(shown)})"


def _print_rows(rows: list[tuple[str, dict[str, Any] | None]]) -> None:
    """One line per row: games/s, hands/s, games, seconds."""
    for label, row in rows:
        if row is None:
            print(f"  {label:44s} {'not measured':>8s}")
            continue
        games = row.get("games", "")
        print(
            f"  {label:44s} {row['games_per_s']:8.2f} {row['hands_per_s']:8.1f} "
            f"{games!s:>6s} {row['seconds']:8.1f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=6, help="boards of the round robin")
    parser.add_argument("--parallel", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs of each local tournament variant (alternating) and of the Ray row; medians reported",
    )
    parser.add_argument(
        "--tournaments-only",
        action="store_true",
        help="only the local tournament variants (reuse and pre-start, with and without)",
    )
    parser.add_argument(
        "--variants",
        type=_variants,
        default=list(VARIANTS),
        help="the local tournament rows, comma-separated (default: all): "
        f"{', '.join(VARIANTS)}; {FIRST_VARIANT} always runs, first, since every goal "
        "compares it",
    )
    parser.add_argument("--match-games", type=int, default=60, help="games of the arena match")
    parser.add_argument(
        "--rating-games", type=int, default=10_000, help="0: skip the rating recompute"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    try:
        results = run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
