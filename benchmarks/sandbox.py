"""Sandbox start-up cost: process start to first decision, with each layer on and off.

Why: every game of a tournament starts three bot processes, and the startup limit
(10 s by default) and the first decision's clock both run while the sandbox is being set
up. Each configuration below starts ``sample_bots/random_bot`` (Python, SDK, grpcio)
``--starts`` times against one referee server, the way ``arena.referee.seat.SeatRunner.ensure_started``
does (``BotProcess.start`` with the match's ``SandboxConfig``), and asks it the first
decision of a game. Reported per configuration: the median and the maximum of
spawn -> Hello accepted and spawn -> first reply, and the median's cost over ``off``.
The layer probe (once per referee process) is run before timing and reported apart.
Configurations whose layers this machine lacks are reported as such, not timed.

Run: ``python benchmarks/sandbox.py [--starts 10] [--bot sample_bots/js_random_bot]
[--json]``. Figures are measured and reported, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.protocol.grpc_env import configure_grpc

configure_grpc(os.environ)  # a script is an entry point: before anything imports grpc

from arena import __version__  # noqa: E402
from arena.game import PRESETS, GameState, observe  # noqa: E402
from arena.protocol import convert  # noqa: E402
from arena.referee.manifest import load_manifest  # noqa: E402
from arena.referee.process import BotProcess, LogCapture, bot_environment  # noqa: E402
from arena.referee.timecontrol import TimeControl  # noqa: E402
from arena.referee.wire import RefereeServer  # noqa: E402
from arena.sandbox.config import Layer, SandboxConfig, SandboxMode  # noqa: E402
from arena.sandbox.probe import plan, probe  # noqa: E402
from arena.v1 import arena_pb2 as pb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ALL = frozenset(Layer)


def only(*layers: Layer) -> SandboxConfig:
    """Best-effort with every layer disabled but *layers*."""
    return SandboxConfig(disable=ALL - set(layers))


CONFIGS: list[tuple[str, SandboxConfig, frozenset[Layer]]] = [
    ("off", SandboxConfig(SandboxMode.OFF), frozenset()),
    ("rlimits", only(Layer.RLIMITS), frozenset({Layer.RLIMITS})),
    ("workdir", only(Layer.WORKDIR), frozenset({Layer.WORKDIR})),
    ("cgroup", only(Layer.CGROUP), frozenset({Layer.CGROUP})),
    ("seccomp (exec wrapper)", only(Layer.SECCOMP), frozenset({Layer.SECCOMP})),
    ("landlock (exec wrapper)", only(Layer.LANDLOCK), frozenset({Layer.LANDLOCK})),
    ("bwrap", only(Layer.BWRAP, Layer.WORKDIR), frozenset({Layer.BWRAP})),
    ("bwrap + uid", only(Layer.BWRAP, Layer.WORKDIR, Layer.UID), frozenset({Layer.BWRAP, Layer.UID})),
    ("bwrap + seccomp", only(Layer.BWRAP, Layer.WORKDIR, Layer.SECCOMP), frozenset({Layer.BWRAP, Layer.SECCOMP})),
    ("container-like (all but bwrap)", SandboxConfig(disable=frozenset({Layer.BWRAP})), frozenset({Layer.LANDLOCK, Layer.SECCOMP})),
    ("best-effort (all that works here)", SandboxConfig(), frozenset()),
]  # fmt: skip
"""(name, config, layers it must get to be meaningful)."""


async def one_start(
    server: RefereeServer, bot: Path, sandbox: SandboxConfig, seed: int
) -> dict[str, float]:
    """Start the bot once under *sandbox*; ms from just before the start to Hello
    accepted and to the first reply."""
    manifest = load_manifest(bot)
    tc = TimeControl()
    state = GameState(PRESETS["classic"], seed, first_dealer=0)
    seat = state.current_seat
    wire_tc = convert.TimeControl(tc.decision_ms, tc.bank_ms)
    welcome = convert.welcome_to_proto(convert.Welcome(
        seat=seat, match_id=f"bench-{seed}", games_in_match=1, time_control=wire_tc,
        referee_version=__version__))  # fmt: skip
    session = server.service.open_session(seat, welcome)
    logs = LogCapture()
    env = bot_environment(server.address, session.token)
    start = time.perf_counter()
    process = await BotProcess.start(manifest, env, logs, sandbox=sandbox)
    try:
        connected = asyncio.ensure_future(session.connected.wait())
        exited = asyncio.ensure_future(process.wait_exit())
        await asyncio.wait([connected, exited], timeout=10, return_when=asyncio.FIRST_COMPLETED)
        for waiter in (connected, exited):
            waiter.cancel()
        if not session.connected.is_set() or session.closed:
            server.service.forget(session)
            raise RuntimeError(f"{manifest.label} did not connect: {logs.tail()}")
        hello = time.perf_counter()
        start_msg = convert.GameStart(
            game_id=f"bench-{seed}", game_number=1, games_in_match=1, rules=state.rules,
            seat=seat, first_dealer=0, players=(manifest.label,) * 3, time_control=wire_tc)  # fmt: skip
        session.send(pb.RefereeMessage(game_start=convert.game_start_to_proto(start_msg)))
        request = convert.request_to_proto(observe(state, seat), 0, tc.decision_ms, tc.bank_ms)
        reply, _ = await session.ask(request, 10.0)
        replied = time.perf_counter()
        state.apply_decision(convert.decision_from_proto(reply))
        session.send(pb.RefereeMessage(match_end=pb.MatchEnd(games_played=1, reason="completed")))
        session.close()
    finally:
        await process.stop(1.0)
    return {"hello_ms": (hello - start) * 1000, "first_reply_ms": (replied - start) * 1000}


async def run(bot: Path, starts: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    caps = probe()
    results: dict[str, Any] = {
        "bot": str(bot),
        "starts": starts,
        "probe_ms": (time.perf_counter() - t0) * 1000,
        "layers": {k.value: {"available": v.available, "detail": v.detail} for k, v in caps.layers.items()},
        "configs": {},
    }  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        server = RefereeServer()
        await server.start(f"unix:{tmp}/referee.sock")
        try:
            for name, sandbox, needs in CONFIGS:
                active = plan(sandbox, caps).layers
                if needs - active:
                    missing = ", ".join(sorted(x.value for x in needs - active))
                    results["configs"][name] = {"skipped": f"not available here: {missing}"}
                    continue
                await one_start(server, bot, sandbox, 0)  # warm the page cache
                runs = [await one_start(server, bot, sandbox, i) for i in range(starts)]
                results["configs"][name] = {
                    "layers": sorted(x.value for x in active),
                    **{key: {"median": statistics.median(r[key] for r in runs),
                             "max": max(r[key] for r in runs)}
                       for key in ("hello_ms", "first_reply_ms")},
                }  # fmt: skip
        finally:
            await server.stop(0.5)
    return results


def report(results: dict[str, Any]) -> None:
    print(f"bot: {results['bot']}, {results['starts']} starts per configuration")
    print(f"layer probe (once per referee process): {results['probe_ms']:.0f} ms")
    base = results["configs"]["off"]["first_reply_ms"]["median"]
    print(f"{'configuration':58} {'hello p50':>10} {'reply p50':>10} {'reply max':>10} {'cost':>8}")
    for name, row in results["configs"].items():
        if "skipped" in row:
            print(f"{name:58} {row['skipped']}")
            continue
        reply = row["first_reply_ms"]
        print(f"{name:58} {row['hello_ms']['median']:10.1f} {reply['median']:10.1f} "
              f"{reply['max']:10.1f} {reply['median'] - base:+8.1f}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10, help="starts per configuration")
    parser.add_argument("--bot", type=Path, default=ROOT / "sample_bots" / "random_bot")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    results = asyncio.run(run(args.bot.resolve(), args.starts))
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
    else:
        report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
