"""Protocol conversion CPU per decision, bot start-up CPU, and a match's CPU split.

Why: tournaments on two cores are CPU-bound, and every decision costs CPU twice: in the
referee (build the seat's observation, encode it) and in the bot (decode it, decide,
reply). The wire sends the full observation every time, so most of each conversion
repeats the one before (docs/performance.md, "Protocol conversions"). One run measures:

a. **Per decision, on recorded-like requests.** Engine games of random play (the
   requests exactly as the referee builds them: ``observe`` + ``request_message``).
   Referee side: ``observe``, ``request_message`` (``observation_to_proto``), serializing.
   Bot side: parsing the ``RefereeMessage``, ``request_from_proto`` (the SDK's decoding),
   a random decision, encoding the reply. A bot process sees only its seat's requests
   and keeps its caches for itself, so the bot side decodes seat 0's requests of some
   games, then seat 1's of other games, then seat 2's; every round plays games of its
   own, so nothing decoded in one round is met again in the next.
b. **Bot start-up and exit.** ``python -c "import arena.sdk"`` in a fresh process,
   repeated, beside ``python -c "import sys"`` (the interpreter alone); each also reports
   what it spends after its last atexit handler (the interpreter's finalisation).
c. **A match's CPU split.** ``play_match`` of three ``sample_bots/random_bot`` processes
   (the sandbox off: its set-up is not what is measured): the CPU of this process (the
   referee) and of its children (the three bots), from ``getrusage``. With ``--raw``, the
   same match of three copies of the raw bench bot of ``benchmarks/referee.py`` (answers
   from the protobuf message, no SDK) alternates with it: the difference is the SDK's.
d. **Old against new in the same match** (``--versus OLD_TREE``, the parent directory of
   an old ``arena`` package): one ``random_bot`` on the old tree, one on this one and one
   raw bench bot play the same matches, seats rotated, so all three see the same machine
   load (matches run one after another can differ by more than a change). Each bot
   process reports its own CPU (``getrusage`` at exit).
e. **A bot process's whole life, counted** (``--count-life GAMES``, alone): one match in
   which a ``random_bot`` runs under ``valgrind --tool=callgrind``, beside two raw bench
   bots; the instructions of that process up to the interpreter's finalisation and in it
   (docs/performance.md, "A bot process's own cost").

All figures are CPU time (``time.process_time``, ``getrusage``), not wall clock: other
load on the machine inflates them less. Rounds repeat each part; the minimum is the
least disturbed figure, the median the typical one. Nothing is asserted.

Before/after: copy the old tree (``cp -r arena /tmp/old/``) and run this script with
``PYTHONPATH=/tmp/old``: every part then uses the ``arena`` package this process imported,
the bots of (c) and the imports of (b) too (they put its parent first on ``sys.path``).

Instruction counts, which the machine's load does not change: ``valgrind --tool=callgrind
python benchmarks/protocol.py --count-step STEP --games 3`` for STEP ``observe``, ``build``
and ``decode``; the differences of the "Collected" totals over the decisions printed are the
per-decision costs (see :func:`counted_workload`).

Run: ``python benchmarks/protocol.py [--games 10] [--rounds 3] [--imports 10]
[--match-games 30] [--matches 1] [--raw] [--versus OLD_TREE [--versus-matches 3]]
[--json]`` (about a minute with the defaults); ``python benchmarks/protocol.py
--count-life GAMES [--seed N]`` for (e) (about 10 s, and 1 s a game, under callgrind).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.protocol.grpc_env import configure_grpc

configure_grpc(os.environ)  # a script is an entry point: before anything imports grpc

import arena  # noqa: E402
from arena.game import PRESETS, GameState, Observation, new_game, observe  # noqa: E402
from arena.game.policies import RandomPolicy  # noqa: E402
from arena.protocol import convert  # noqa: E402
from arena.referee.config import MatchConfig  # noqa: E402
from arena.referee.manifest import BotManifest, load_manifest  # noqa: E402
from arena.referee.match import play_match  # noqa: E402
from arena.referee.timecontrol import TimeControl  # noqa: E402
from arena.sandbox.config import SandboxConfig, SandboxMode  # noqa: E402
from arena.v1 import arena_pb2 as pb  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ARENA_PARENT = str(Path(arena.__file__).resolve().parent.parent)
"""Where the ``arena`` package this process runs comes from (the old tree under PYTHONPATH)."""
RANDOM_BOT = ROOT / "sample_bots" / "random_bot" / "bot.py"

# ---------------------------------------------------------------------------------------
# a. Per decision
# ---------------------------------------------------------------------------------------


def play_random(seed: int, ruleset: str) -> list[tuple[GameState, Observation]]:
    """Every decision point of one game of random play: a copy of the state, and the
    observation of the seat to act."""
    state = new_game(PRESETS[ruleset], seed)
    policy = RandomPolicy(seed)
    points = []
    while not state.is_over:
        obs = observe(state, state.current_seat)
        points.append((state.clone(), obs))
        state.apply_decision(policy.act(obs))
    return points


def cpu_us(run: Callable[[], object], count: int) -> float:
    """Microseconds of CPU per item of one call of *run* over *count* items."""
    start = time.process_time()
    run()
    return (time.process_time() - start) / count * 1e6


def per_decision_round(seed: int, games: int, ruleset: str) -> dict[str, float]:
    """One round of part (a): ``3 * games`` fresh games, CPU microseconds per decision."""
    points = [play_random(seed + g, ruleset) for g in range(3 * games)]
    flat = [p for game in points for p in game]
    n = len(flat)
    figures: dict[str, float] = {}
    figures["observe"] = cpu_us(lambda: [observe(s, o.seat) for s, o in flat], n)
    messages: list[pb.RefereeMessage] = []
    figures["build"] = cpu_us(
        lambda: messages.extend(convert.request_message(o, 1, 1000, 10000) for _, o in flat), n
    )
    wire: list[bytes] = []
    figures["serialize"] = cpu_us(lambda: wire.extend(m.SerializeToString() for m in messages), n)
    # The bot side: seat s's requests of games s*games .. (s+1)*games-1, seat after seat.
    seat_of = [o.seat for _, o in flat]
    game_of = [g for g, game in enumerate(points) for _ in game]
    stream = [
        data for seat in range(3) for data, s, g in zip(wire, seat_of, game_of, strict=True)
        if s == seat and g // games == seat
    ]  # fmt: skip
    m = len(stream)
    parsed: list[pb.RefereeMessage] = []
    figures["parse"] = cpu_us(
        lambda: parsed.extend(pb.RefereeMessage.FromString(d) for d in stream), m
    )
    requests: list[convert.DecisionRequest] = []
    figures["decode"] = cpu_us(
        lambda: requests.extend(convert.request_from_proto(p.decision_request) for p in parsed), m
    )
    policy = RandomPolicy(seed)
    decisions: list[Any] = []
    figures["decide"] = cpu_us(lambda: decisions.extend(policy.act(r.observation) for r in requests), m)  # fmt: skip
    figures["reply"] = cpu_us(
        lambda: [
            pb.BotMessage(
                action_reply=convert.decision_to_proto(d, r.request_id)
            ).SerializeToString()
            for d, r in zip(decisions, requests, strict=True)
        ],
        m,
    )
    figures["decisions"] = n
    figures["bot_decisions"] = m
    figures["request_bytes"] = sum(map(len, wire)) / n
    return figures


def counted_workload(step: str, games: int) -> None:
    """A fixed workload to run under ``valgrind --tool=callgrind``, whose instruction counts
    do not depend on the machine's load: *games* games per seat (seeds 100...) played to
    the end with ``observe`` at every decision, plus, from *step* ``build`` on, every
    request built and serialized, plus, for ``decode``, each seat's requests of its own
    games parsed and decoded. The difference between two steps' counts, divided by the
    decisions (printed on stderr), is that step's cost."""
    streams: list[bytes] = []
    decisions = 0
    for g in range(3 * games):
        state = new_game(PRESETS["classic"], 100 + g)
        policy = RandomPolicy(g)
        while not state.is_over:
            obs = observe(state, state.current_seat)
            if step != "observe":
                data = convert.request_message(obs, 1, 1000, 10000).SerializeToString()
                if g // games == obs.seat:
                    streams.append(data)
            decisions += 1
            state.apply_decision(policy.act(obs))
    if step == "decode":
        for data in streams:  # seat 0's games come first, then seat 1's, then seat 2's
            convert.request_from_proto(pb.RefereeMessage.FromString(data).decision_request)
    print(f"{step}: {decisions} decisions, {len(streams)} decoded", file=sys.stderr)


def per_decision(games: int, rounds: int, ruleset: str, seed: int) -> dict[str, Any]:
    """Part (a) over *rounds* rounds: min and median per figure."""
    runs = [per_decision_round(seed + r * 3 * games, games, ruleset) for r in range(rounds)]
    return summarize(runs)


# ---------------------------------------------------------------------------------------
# b. Bot start-up
# ---------------------------------------------------------------------------------------


EXIT_PROBE = (
    "import atexit, resource\n"
    "def _cpu():\n"
    "    usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    print(usage.ru_utime + usage.ru_stime, flush=True)\n"
    "atexit.register(_cpu)\n"  # registered first, so it runs after every other handler
)
"""The start of every program of (b): it prints its CPU seconds at its last atexit handler,
so that what the process spends after that (the interpreter's finalisation) is known."""


def child_cpu(argv: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system) of one child process run to its end, and of its part
    after the CPU it printed last (see :data:`EXIT_PROBE`)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    printed = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return total, total - float(printed.split()[-1])


def imports(count: int) -> dict[str, Any]:
    """Part (b): CPU ms of ``import arena.sdk`` in a fresh interpreter, and of none; and of
    each one's finalisation after its last atexit handler."""
    sdk = f"{EXIT_PROBE}import sys; sys.path.insert(0, {ARENA_PARENT!r}); import arena.sdk"
    runs = []
    for _ in range(count):
        sdk_s, sdk_exit_s = child_cpu([sys.executable, "-c", sdk])
        bare_s, bare_exit_s = child_cpu([sys.executable, "-c", EXIT_PROBE])
        runs.append(
            {
                "import_arena_sdk_ms": sdk_s * 1e3,
                "import_arena_sdk_exit_ms": sdk_exit_s * 1e3,
                "interpreter_ms": bare_s * 1e3,
                "interpreter_exit_ms": bare_exit_s * 1e3,
            }
        )
    return summarize(runs)


# ---------------------------------------------------------------------------------------
# c. A match's CPU split
# ---------------------------------------------------------------------------------------

LAUNCHER = '''\
"""Runs {script} with the arena package in {parent}; appends its own CPU to {cpu_log}."""
import atexit, resource, runpy, sys
sys.path.insert(0, {parent!r})


def _cpu() -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open({cpu_log!r}, "a", encoding="utf-8") as log:
        log.write(f"{{usage.ru_utime + usage.ru_stime}}\\n")


atexit.register(_cpu)
sys.argv = [{script!r}, *{args!r}]
runpy.run_path({script!r}, run_name="__main__")
'''


def launcher_bot(
    directory: Path,
    name: str,
    script: Path,
    args: list[str],
    parent: str = ARENA_PARENT,
    command: str = "python bot.py",
) -> BotManifest:
    """A bot directory whose bot runs *script* on the ``arena`` package in *parent* (this
    process's by default) and appends its CPU seconds to ``cpu.log`` there when it ends;
    the manifest runs the launcher with *command*."""
    directory.mkdir(parents=True, exist_ok=True)
    source = LAUNCHER.format(
        script=str(script), parent=parent, args=args, cpu_log=str(directory / "cpu.log")
    )
    (directory / "bot.py").write_text(source, encoding="utf-8")
    (directory / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "python"\n'
        f'description = "benchmark launcher"\nrun = "{command}"\n',
        encoding="utf-8",
    )
    return load_manifest(directory)


def raw_bench_bot(directory: Path) -> BotManifest:
    """The raw bench bot of ``benchmarks/referee.py`` behind a launcher."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from referee import write_bench_bot  # noqa: PLC0415 - a sibling script, on demand

    source = write_bench_bot(directory / "source")
    return launcher_bot(directory / "launcher", "raw_bench", source.directory / "bot.py", [])


def bot_cpu(manifest: BotManifest) -> float:
    """CPU seconds the launcher bot's processes reported so far (and forget them)."""
    log = manifest.directory / "cpu.log"
    seconds = sum(float(line) for line in log.read_text(encoding="utf-8").split())
    log.unlink()
    return seconds


def versus(old_tree: str, games: int, count: int, seed: int) -> dict[str, Any]:
    """Part (d): one random_bot on *old_tree*, one on this tree and one raw bench bot in
    the same match, seats rotated each match: all three see the same machine load."""
    with tempfile.TemporaryDirectory(prefix="arena-protocol-bench-") as tmp:
        bots = [
            launcher_bot(Path(tmp, "old"), "random_old", RANDOM_BOT, ["--seed", "1"], old_tree),
            launcher_bot(Path(tmp, "new"), "random_new", RANDOM_BOT, ["--seed", "1"]),
            raw_bench_bot(Path(tmp, "raw")),
        ]
        runs: list[dict[str, float]] = []
        for i in range(count):
            seats = bots[i % 3 :] + bots[: i % 3]
            config = MatchConfig(
                PRESETS["classic"], games, seed + i, sandbox=SandboxConfig(mode=SandboxMode.OFF)
            )
            result = asyncio.run(play_match(seats, config))
            # Each seat takes about a third of the decisions.
            total = sum(len(seat) for r in result.records for seat in r["timings"]["decision_ms"])
            decisions = total / 3
            cpu = {bot.name: bot_cpu(bot) for bot in bots}
            runs.append(
                {
                    "old_s": cpu["random_old"],
                    "new_s": cpu["random_new"],
                    "raw_s": cpu["raw_bench"],
                    "sdk_over_raw_old_us": (cpu["random_old"] - cpu["raw_bench"]) / decisions * 1e6,
                    "sdk_over_raw_new_us": (cpu["random_new"] - cpu["raw_bench"]) / decisions * 1e6,
                    "decisions_per_bot": decisions,
                }
            )
    return {"runs": runs, **summarize(runs)}


def match_split(manifest: BotManifest, games: int, seed: int) -> dict[str, float]:
    """CPU seconds of the referee (this process) and of the three bots in one match."""
    config = MatchConfig(
        PRESETS["classic"], games, seed, sandbox=SandboxConfig(mode=SandboxMode.OFF)
    )
    self_before = resource.getrusage(resource.RUSAGE_SELF)
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = asyncio.run(play_match([manifest] * 3, config))
    self_after = resource.getrusage(resource.RUSAGE_SELF)
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    faults = sum(len(record["faults"]) for record in result.records)
    decisions = sum(len(seat) for r in result.records for seat in r["timings"]["decision_ms"])
    return {
        "referee_cpu_s": cpu_delta(self_before, self_after),
        "bots_cpu_s": cpu_delta(children_before, children_after),
        "bots_user_s": children_after.ru_utime - children_before.ru_utime,
        "decisions": decisions,
        "bots_us_per_decision": cpu_delta(children_before, children_after) / decisions * 1e6,
        "referee_us_per_decision": cpu_delta(self_before, self_after) / decisions * 1e6,
        "faults": faults,
    }


def cpu_delta(before: resource.struct_rusage, after: resource.struct_rusage) -> float:
    """User + system CPU seconds between two ``getrusage`` readings."""
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def matches(games: int, count: int, raw: bool, seed: int) -> dict[str, Any]:
    """Part (c): *count* matches of random_bot (alternating with raw bench bot matches)."""
    with tempfile.TemporaryDirectory(prefix="arena-protocol-bench-") as tmp:
        bots = {"random_bot": launcher_bot(Path(tmp, "random"), "random_bot", RANDOM_BOT, ["--seed", "1"])}  # fmt: skip
        if raw:
            bots["raw_bench"] = raw_bench_bot(Path(tmp, "raw"))
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in bots}
        for i in range(count):
            for name, manifest in bots.items():
                runs[name].append(match_split(manifest, games, seed + i * games))
    return {name: summarize(r) for name, r in runs.items()}


# ---------------------------------------------------------------------------------------
# e. A bot process's whole life, counted
# ---------------------------------------------------------------------------------------

PATIENT = TimeControl(decision_ms=60_000, bank_ms=600_000, grace_ms=1000, startup_ms=600_000)
"""Limits a bot running under callgrind (some 50 times slower) never reaches."""


def counted_life(games: int, seed: int) -> dict[str, float]:
    """Part (e): one match of *games* games in which seat 0 is a ``random_bot`` process run
    under ``valgrind --tool=callgrind`` and seats 1 and 2 raw bench bots: the instructions
    that process executed from its start to the interpreter's finalisation (start-up,
    imports, the games, the end of :meth:`~arena.sdk.Bot.run`, atexit handlers excluded)
    and in the finalisation (``Py_FinalizeEx``: atexit handlers, garbage collection,
    module teardown). Counts do not depend on the machine's load, so one run of the old
    tree and one of the new compare (PYTHONPATH, as for the other parts)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--count-life needs valgrind")
    with tempfile.TemporaryDirectory(prefix="arena-protocol-bench-") as tmp:
        out = Path(tmp, "callgrind.out")
        counted = launcher_bot(
            Path(tmp, "counted"),
            "random_counted",
            RANDOM_BOT,
            ["--seed", "1"],
            command=f"{valgrind} --tool=callgrind --callgrind-out-file={out} "
            "--dump-before=Py_FinalizeEx python bot.py",
        )
        raw = raw_bench_bot(Path(tmp, "raw"))
        config = MatchConfig(
            PRESETS["classic"],
            games,
            seed,
            time_control=PATIENT,
            stop_grace_s=600,
            sandbox=SandboxConfig(mode=SandboxMode.OFF),
        )
        result = asyncio.run(play_match([counted, raw, raw], config))
        return {
            "decisions": sum(len(r["timings"]["decision_ms"][0]) for r in result.records),
            "faults": sum(len(record["faults"]) for record in result.records),
            "before_finalisation": callgrind_total(Path(f"{out}.1")),
            "finalisation": callgrind_total(out),
        }


def callgrind_total(path: Path) -> float:
    """The instruction total of one callgrind output file."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("totals:"):
            return float(line.split()[1])
    raise ValueError(f"no totals in {path}")


# ---------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------


def summarize(runs: list[dict[str, float]]) -> dict[str, Any]:
    """Min and median of every figure over the runs."""
    return {
        key: {
            "min": min(r[key] for r in runs),
            "median": statistics.median(r[key] for r in runs),
        }
        for key in runs[0]
    }


def report(results: dict[str, Any]) -> str:
    """The figures as a short text table."""
    lines = [f"arena package: {ARENA_PARENT}"]
    a = results.get("per_decision")
    if a:
        lines.append(
            f"a. per decision, CPU us (min / median of {results['rounds']} rounds; "
            f"{a['decisions']['median']:.0f} decisions, the bot side "
            f"{a['bot_decisions']['median']:.0f}, {a['request_bytes']['median']:.0f} bytes "
            "a request):"
        )
        for side, keys in (
            ("referee", ("observe", "build", "serialize")),
            ("bot", ("parse", "decode", "decide", "reply")),
        ):
            parts = ", ".join(f"{k} {a[k]['min']:.1f} / {a[k]['median']:.1f}" for k in keys)
            lines.append(f"   {side}: {parts}")
    b = results.get("imports")
    if b:
        lines.append(
            "b. start-up CPU ms (min / median): import arena.sdk "
            f"{b['import_arena_sdk_ms']['min']:.0f} / {b['import_arena_sdk_ms']['median']:.0f}, "
            f"bare interpreter {b['interpreter_ms']['min']:.0f} / "
            f"{b['interpreter_ms']['median']:.0f}; of which the finalisation after atexit: "
            f"{b['import_arena_sdk_exit_ms']['min']:.1f} / "
            f"{b['import_arena_sdk_exit_ms']['median']:.1f} and "
            f"{b['interpreter_exit_ms']['min']:.1f} / {b['interpreter_exit_ms']['median']:.1f}"
        )
    c = results.get("matches")
    if c:
        lines.append("c. match CPU s (min / median), sandbox off:")
        for name, figures in c.items():
            lines.append(
                f"   {name}: referee {figures['referee_cpu_s']['min']:.2f} / "
                f"{figures['referee_cpu_s']['median']:.2f}, bots "
                f"{figures['bots_cpu_s']['min']:.2f} / {figures['bots_cpu_s']['median']:.2f} "
                f"(user {figures['bots_user_s']['median']:.2f}), "
                f"{figures['decisions']['median']:.0f} decisions; per decision (median): "
                f"referee {figures['referee_us_per_decision']['median']:.0f} us, "
                f"bots {figures['bots_us_per_decision']['median']:.0f} us; "
                f"faults {figures['faults']['median']:.0f}"
            )
    d = results.get("versus")
    if d:
        lines.append(
            "d. same match, CPU s of each bot process "
            f"(about {d['decisions_per_bot']['median']:.0f} decisions each):"
        )
        for run in d["runs"]:
            lines.append(
                f"   old {run['old_s']:.2f}, new {run['new_s']:.2f}, raw {run['raw_s']:.2f}; "
                f"SDK over raw a decision: old {run['sdk_over_raw_old_us']:.0f} us, "
                f"new {run['sdk_over_raw_new_us']:.0f} us"
            )
    e = results.get("counted_life")
    if e:
        lines.append(
            f"e. a random_bot process under callgrind, {e['decisions']:.0f} decisions: "
            f"{e['before_finalisation'] / 1e6:.1f} M instructions to its finalisation, "
            f"{e['finalisation'] / 1e6:.1f} M in it; faults {e['faults']:.0f}"
        )
    return "\n".join(lines)


def main() -> int:
    """Run the parts asked for and print the figures (exit 1 if a bot faulted)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per seat and round (a)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of (a)")
    parser.add_argument("--ruleset", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--imports", type=int, default=10, help="fresh processes of (b); 0: skip")
    parser.add_argument("--match-games", type=int, default=30, help="games per match of (c)")
    parser.add_argument("--matches", type=int, default=1, help="matches of (c); 0: skip")
    parser.add_argument("--raw", action="store_true", help="also matches of the raw bench bot")
    parser.add_argument(
        "--versus", metavar="OLD_TREE", help="(d): the parent of an old arena package"
    )
    parser.add_argument("--versus-matches", type=int, default=3, help="matches of (d)")
    parser.add_argument(
        "--count-step",
        choices=("observe", "build", "decode"),
        help="only run the fixed workload of counted_workload (for callgrind) and exit",
    )
    parser.add_argument(
        "--count-life",
        type=int,
        metavar="GAMES",
        help="only run (e): a match of GAMES games with one bot under callgrind, and exit",
    )
    parser.add_argument("--seed", type=int, default=random.SystemRandom().randrange(1 << 30))
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    if args.count_step:
        counted_workload(args.count_step, args.games)
        return 0
    results: dict[str, Any] = {"seed": args.seed, "rounds": args.rounds, "arena": ARENA_PARENT}
    if args.count_life:
        results["counted_life"] = counted_life(args.count_life, args.seed)
        print(json.dumps(results, indent=2) if args.json else report(results))
        return 1 if results["counted_life"]["faults"] else 0
    if args.rounds:
        results["per_decision"] = per_decision(args.games, args.rounds, args.ruleset, args.seed)
    if args.imports:
        results["imports"] = imports(args.imports)
    if args.matches:
        results["matches"] = matches(args.match_games, args.matches, args.raw, args.seed)
    if args.versus:
        results["versus"] = versus(args.versus, args.match_games, args.versus_matches, args.seed)
    print(json.dumps(results, indent=2) if args.json else report(results))
    faulted = any(f["faults"]["median"] for f in results.get("matches", {}).values())
    return 1 if faulted else 0


if __name__ == "__main__":
    sys.exit(main())
