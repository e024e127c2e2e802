"""Referee speed: what the referee adds to a decision, its throughput, and bot start-up.

Why: every decision of every match crosses the referee, so its cost on top of the gRPC
transport sets how many games a tournament can play, and bots' time allowances must not
be eaten by the referee itself. One run measures three things:

a. **Per-decision round trip, referee vs bare gRPC.** Three copies of a minimal "raw" bench
   bot (written to a temp directory at run time: raw ``arena_pb2_grpc.RefereeStub``, answers
   every DecisionRequest at once with a legal reply read straight off the protobuf message,
   no SDK conversion) play matches through ``play_match``; the round trips are the ones the
   referee itself records (``record["timings"]["decision_ms"]``, timed in ``Session.ask``
   from queueing the DecisionRequest to taking the reply from the inbox: wrapping and
   serializing the request, the writer and reader tasks, reply deserialization). The
   baseline is a bare ``grpc.aio`` server in this process that ping-pongs with ONE copy of
   the very same bench bot program, started the same way (``BotProcess.start``) over the
   same kind of socket (unix domain socket in a temp dir). It passes raw bytes both ways:
   it writes pre-serialized bytes of a real DecisionRequest (in a RefereeMessage) whose
   size is the median size of the referee's requests, the bot parses it and answers as it
   answers the referee (same deserialization work, same reply size), and the server times
   each write-then-read with ``time.perf_counter``. Request and reply sizes come from an
   engine replay of the very same games (same seeds, first dealers and decisions) with
   ``GameState``, ``observe`` and ``request_to_proto``. Referee matches and bare runs are
   alternated (``--rounds``) so that a change of machine load hits both sides alike.
   Reported: p50/p99 of both and the ratios referee/bare (goal <= 1.2), and the referee's
   wall time per decision (match wall time / decisions), which also includes
   ``observe()``, conversion, bot start-up and game bookkeeping.
b. **Hands/s** of a match of three ``sample_bots/random_bot`` processes (SDK bots).
c. **Process start to first decision** for ``random_bot``: spawn to Hello accepted
   (``Session.connected``) and spawn to first reply, with a small harness over
   ``RefereeServer``, ``RefereeService.open_session`` and ``BotProcess.start``, repeated.

Figures are measured and reported, never asserted (the exit status is 1 only if a bot
faulted, which voids the figures). The default run takes well under two minutes on two
cores.

Run: ``python benchmarks/referee.py [--games 20] [--rounds 4] [--random-games 30]
[--startups 10] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from arena import __version__
from arena.game import PRESETS, GameState, RuleSet, observe
from arena.protocol import convert
from arena.referee.manifest import BotManifest, load_manifest
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.process import BotProcess, LogCapture, bot_environment
from arena.referee.server import MAX_MESSAGE_BYTES, SERVICE_NAME, RefereeServer
from arena.referee.timecontrol import TimeControl
from arena.v1 import arena_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
RATIO_GOAL = 1.2


# ---------------------------------------------------------------------------------------
# The raw bench bot
# ---------------------------------------------------------------------------------------


def raw_reply(request: pb.DecisionRequest) -> pb.ActionReply:
    """A legal reply read straight off the request: first card, first trump option, first
    ``discard_count`` cards, first cards split over ``give_legs``. Its source is copied into
    the bench bot, so the bot and this script's size measurements answer identically.
    """
    options = request.observation.request
    reply = pb.ActionReply(request_id=request.request_id)
    kind = options.kind
    if kind == pb.DECISION_KIND_PLAY:
        reply.play.card = options.cards[0]
    elif kind == pb.DECISION_KIND_TRUMP:
        reply.trump.trump = options.trump_options[0]
    elif kind == pb.DECISION_KIND_DISCARD:
        reply.discard.cards.extend(options.cards[: options.discard_count])
    else:
        start = 0
        for leg in options.give_legs:
            reply.give.legs.add(cards=options.cards[start : start + leg.count])
            start += leg.count
    return reply


BENCH_BOT_TEMPLATE = '''\
"""raw_bench: answers every DecisionRequest at once, straight from the protobuf message."""

from __future__ import annotations

import asyncio
import os

import grpc

from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc


{reply_source}

async def main() -> None:
    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        call = arena_pb2_grpc.RefereeStub(channel).Play()
        hello = pb.Hello(
            token=os.environ["ARENA_TOKEN"], bot_name="raw_bench", bot_version="1",
            protocol_version={protocol_version},
        )
        await call.write(pb.BotMessage(hello=hello))
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                break
            kind = message.WhichOneof("message")
            if kind == "decision_request":
                await call.write(pb.BotMessage(action_reply=raw_reply(message.decision_request)))
            elif kind == "match_end":
                break


asyncio.run(main())
'''

BENCH_BOT_TOML = """\
name = "raw_bench"
version = "1"
language = "python"
description = "Answers each DecisionRequest at once from the raw protobuf message (benchmark)."
run = "python bot.py"
"""


def write_bench_bot(directory: Path) -> BotManifest:
    """Write the raw bench bot (bot.toml + bot.py) into *directory*; its manifest."""
    directory.mkdir(parents=True, exist_ok=True)
    source = BENCH_BOT_TEMPLATE.format(
        reply_source=textwrap.dedent(inspect.getsource(raw_reply)),
        protocol_version=convert.PROTOCOL_VERSION,
    )
    (directory / "bot.py").write_text(source, encoding="utf-8")
    (directory / "bot.toml").write_text(BENCH_BOT_TOML, encoding="utf-8")
    return load_manifest(directory)


# ---------------------------------------------------------------------------------------
# Small statistics helpers
# ---------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (*q* in 0..100), as the referee's ``SeatStats.p99_ms``."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100), at least 1
    return ordered[min(len(ordered), int(rank)) - 1]


def summarize_ms(values: Sequence[float]) -> dict[str, float]:
    """Count, mean, p50, p90, p99 and max of times in milliseconds."""
    return {
        "n": len(values),
        "mean_ms": statistics.fmean(values) if values else float("nan"),
        "p50_ms": percentile(values, 50),
        "p90_ms": percentile(values, 90),
        "p99_ms": percentile(values, 99),
        "max_ms": max(values) if values else float("nan"),
    }


def decision_times(result: MatchResult) -> list[float]:
    """Every round trip the referee measured in a match, in ms."""
    return [
        t for record in result.records for seat in record["timings"]["decision_ms"] for t in seat
    ]


@dataclass
class TimedMatch:
    """A match result with its wall time and the time each game ended."""

    result: MatchResult
    seconds: float
    game_end_times: list[float] = field(default_factory=list)

    def steady_seconds(self) -> float:
        """Wall time from the end of game 1 to the end of the last game (no start-up)."""
        return self.game_end_times[-1] - self.game_end_times[0]


async def timed_match(seats: Sequence[BotManifest], config: MatchConfig) -> TimedMatch:
    """``play_match`` with its wall time (start of bots to their stop included)."""
    ends: list[float] = []
    start = time.perf_counter()
    result = await play_match(
        seats, config, on_game=lambda _record: ends.append(time.perf_counter())
    )
    seconds = time.perf_counter() - start
    return TimedMatch(result, seconds, [t - start for t in ends])


# ---------------------------------------------------------------------------------------
# a. Message sizes: an engine replay of the referee's games
# ---------------------------------------------------------------------------------------


@dataclass
class SizeSample:
    """What the referee sends and the bench bot answers over a replay of a match."""

    request_sizes: list[int]
    reply_sizes: list[int]
    payload: bytes
    """A real serialized RefereeMessage of the median request size."""
    payload_reply_size: int
    """Serialized size of the bench bot's BotMessage answering *payload*."""


def replay_sizes(configs: Sequence[MatchConfig]) -> SizeSample:
    """Replay the games of the matches *configs* as the referee plays them with three
    bench bots.

    Same seeds and first dealers as ``Match._play_game``, the same requests
    (``observe`` + ``request_to_proto``, per-seat request ids from 1 in each match, the same
    clock fields) and the same replies (:func:`raw_reply`), so the sizes are those of the
    messages the referee and the bench bots exchange.
    """
    requests: list[bytes] = []
    replies: list[int] = []
    for config in configs:
        tc = config.time_control
        dealers = config.first_dealers or (0, 1, 2)
        next_id = [1, 1, 1]
        for index in range(config.games):
            dealer = dealers[index % len(dealers)]
            state = GameState(config.rules, config.seed + index, first_dealer=dealer)
            while not state.is_over:
                seat = state.current_seat
                request = convert.request_to_proto(
                    observe(state, seat), next_id[seat], tc.decision_ms, tc.bank_ms
                )
                next_id[seat] += 1
                requests.append(pb.RefereeMessage(decision_request=request).SerializeToString())
                reply = raw_reply(request)
                replies.append(len(pb.BotMessage(action_reply=reply).SerializeToString()))
                state.apply_decision(convert.decision_from_proto(reply))
    request_sizes = [len(r) for r in requests]
    median_request = int(percentile(request_sizes, 50))
    median_reply = int(percentile(replies, 50))
    candidates = [i for i, size in enumerate(request_sizes) if size == median_request]
    chosen = next((i for i in candidates if replies[i] == median_reply), candidates[0])
    return SizeSample(request_sizes, replies, requests[chosen], replies[chosen])


# ---------------------------------------------------------------------------------------
# a. The bare gRPC baseline
# ---------------------------------------------------------------------------------------


async def bare_ping_pong(
    manifest: BotManifest, payload: bytes, exchanges: int, socket_dir: Path
) -> tuple[list[float], list[int]]:
    """Ping-pong *payload* with one bench bot process over a bare grpc.aio stream.

    The server serves the method name of the real service (``arena.v1.Referee/Play``) with
    pass-through bytes, so the bench bot runs unchanged; it reads the Hello, then times
    *exchanges* write-then-read round trips and ends the stream. Returns the round trips
    in ms and the sizes of the replies received.
    """
    times: list[float] = []
    reply_sizes: list[int] = []
    done = asyncio.get_running_loop().create_future()

    async def play(_request_iterator: object, context: Any) -> None:
        try:
            await context.read()  # the bot's Hello
            for _ in range(exchanges):
                start = time.perf_counter()
                await context.write(payload)
                reply = await context.read()
                times.append((time.perf_counter() - start) * 1000)
                if reply is grpc.aio.EOF:
                    raise RuntimeError("the bench bot closed its stream early")
                reply_sizes.append(len(reply))
        except Exception as exc:
            if not done.done():
                done.set_exception(exc)
            raise
        if not done.done():
            done.set_result(None)

    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ]
    )
    handler = grpc.method_handlers_generic_handler(
        SERVICE_NAME, {"Play": grpc.stream_stream_rpc_method_handler(play)}
    )
    server.add_generic_rpc_handlers((handler,))
    path = socket_dir / "bare.sock"
    server.add_insecure_port(f"unix:{path}")
    await server.start()
    logs = LogCapture()
    process = await BotProcess.start(manifest, bot_environment(f"unix://{path}", "bare"), logs)
    try:
        exited = asyncio.ensure_future(process.wait_exit())
        await asyncio.wait([done, exited], return_when=asyncio.FIRST_COMPLETED)
        if not done.done():
            raise RuntimeError(f"the bench bot exited during the bare ping-pong: {logs.tail()}")
        done.result()
    finally:
        await server.stop(0.5)
        await process.stop(2.0)
    return times, reply_sizes


async def measure_round_trips(
    games: int, rounds: int, seed: int, socket_root: Path
) -> dict[str, Any]:
    """Part a: referee round trips with three bench bots and the bare baseline, alternated.

    The games are split into *rounds* matches (consecutive seeds); after each match the
    bare baseline makes as many exchanges as that match had decisions. Alternating keeps
    a drift in machine load (other processes, CPU frequency) from favouring either side.
    """
    manifest = write_bench_bot(socket_root / "raw_bench")
    counts = [games // rounds + (1 if i < games % rounds else 0) for i in range(rounds)]
    configs = [
        MatchConfig(PRESETS["classic"], count, seed + sum(counts[:i]), time_control=TimeControl())
        for i, count in enumerate(counts)
        if count > 0
    ]
    sizes = replay_sizes(configs)
    referee_ms: list[float] = []
    bare_ms: list[float] = []
    bare_replies: list[int] = []
    per_round: list[dict[str, float]] = []
    faults = 0
    match_seconds = steady_seconds = 0.0
    steady_decisions = 0
    for config in configs:
        timed = await timed_match([manifest] * 3, config)
        round_referee = decision_times(timed.result)
        faults += sum(len(r["faults"]) for r in timed.result.records)
        first_game = sum(len(s) for s in timed.result.records[0]["timings"]["decision_ms"])
        match_seconds += timed.seconds
        if config.games > 1:
            steady_seconds += timed.steady_seconds()
            steady_decisions += len(round_referee) - first_game
        round_bare, replies = await bare_ping_pong(
            manifest, sizes.payload, len(round_referee), socket_root
        )
        referee_ms.extend(round_referee)
        bare_ms.extend(round_bare)
        bare_replies.extend(replies)
        per_round.append(
            {
                "games": config.games,
                "decisions": len(round_referee),
                "referee_p50_ms": percentile(round_referee, 50),
                "bare_p50_ms": percentile(round_bare, 50),
                "referee_p99_ms": percentile(round_referee, 99),
                "bare_p99_ms": percentile(round_bare, 99),
            }
        )
    decisions = len(referee_ms)
    referee = summarize_ms(referee_ms)
    bare = summarize_ms(bare_ms)
    return {
        "ruleset": "classic",
        "games": games,
        "rounds": per_round,
        "decisions": decisions,
        "faults": faults,
        "replayed_requests": len(sizes.request_sizes),
        "request_bytes": {
            "median": percentile(sizes.request_sizes, 50),
            "min": min(sizes.request_sizes),
            "max": max(sizes.request_sizes),
            "payload": len(sizes.payload),
        },
        "reply_bytes": {
            "median": percentile(sizes.reply_sizes, 50),
            "min": min(sizes.reply_sizes),
            "max": max(sizes.reply_sizes),
            "payload_reply": sizes.payload_reply_size,
            "bare_received_median": percentile(bare_replies, 50),
        },
        "referee": referee,
        "bare": bare,
        "ratio_p50": referee["p50_ms"] / bare["p50_ms"],
        "ratio_p99": referee["p99_ms"] / bare["p99_ms"],
        "ratio_goal": RATIO_GOAL,
        "match_seconds": match_seconds,
        "wall_ms_per_decision": match_seconds * 1000 / decisions,
        "steady_wall_ms_per_decision": steady_seconds * 1000 / steady_decisions
        if steady_decisions
        else float("nan"),
    }


# ---------------------------------------------------------------------------------------
# b. Hands per second with SDK random bots
# ---------------------------------------------------------------------------------------


async def measure_hands_per_second(
    bot: Path, ruleset: str, games: int, seed: int
) -> dict[str, Any]:
    """Part b: a match of three copies of *bot*; hands over wall time."""
    manifest = load_manifest(bot)
    timed = await timed_match(
        [manifest] * 3, MatchConfig(PRESETS[ruleset], games, seed, time_control=TimeControl())
    )
    records = timed.result.records
    hands = sum(r["result"]["hands_played"] for r in records)
    first_hands = records[0]["result"]["hands_played"]
    times = decision_times(timed.result)
    return {
        "bot": manifest.label,
        "ruleset": ruleset,
        "games": games,
        "hands": hands,
        "decisions": len(times),
        "faults": sum(len(r["faults"]) for r in records),
        "seconds": timed.seconds,
        "hands_per_s": hands / timed.seconds,
        "decisions_per_s": len(times) / timed.seconds,
        "steady_hands_per_s": (hands - first_hands) / timed.steady_seconds()
        if games > 1
        else float("nan"),
        "round_trip": summarize_ms(times),
    }


# ---------------------------------------------------------------------------------------
# c. Process start to first decision
# ---------------------------------------------------------------------------------------


async def one_startup(
    server: RefereeServer, manifest: BotManifest, rules: RuleSet, seed: int
) -> dict[str, float]:
    """Spawn *manifest* once, as ``arena.referee.seat.SeatRunner.ensure_started`` does, and ask it the first
    decision of a fresh game. Times in ms from just before the spawn.
    """
    tc = TimeControl()
    state = GameState(rules, seed, first_dealer=0)
    seat = state.current_seat
    wire_tc = convert.TimeControl(tc.decision_ms, tc.bank_ms)
    welcome = convert.welcome_to_proto(
        convert.Welcome(
            seat=seat,
            match_id=f"startup-{seed}",
            games_in_match=1,
            time_control=wire_tc,
            referee_version=__version__,
        )
    )
    session = server.service.open_session(seat, welcome)
    logs = LogCapture()
    start = time.perf_counter()
    process = await BotProcess.start(manifest, bot_environment(server.address, session.token), logs)
    spawned = time.perf_counter()
    try:
        connected = asyncio.ensure_future(session.connected.wait())
        exited = asyncio.ensure_future(process.wait_exit())
        await asyncio.wait(
            [connected, exited], timeout=tc.startup_ms / 1000, return_when=asyncio.FIRST_COMPLETED
        )
        for waiter in (connected, exited):
            waiter.cancel()
        if not session.connected.is_set() or session.closed:
            server.service.forget(session)
            raise RuntimeError(f"{manifest.label} did not connect: {logs.tail()}")
        hello = time.perf_counter()
        start_msg = convert.GameStart(
            game_id=f"startup-{seed}",
            game_number=1,
            games_in_match=1,
            rules=rules,
            seat=seat,
            first_dealer=state.first_dealer,
            players=(manifest.label, manifest.label, manifest.label),
            time_control=wire_tc,
        )
        session.send(pb.RefereeMessage(game_start=convert.game_start_to_proto(start_msg)))
        request = convert.request_to_proto(observe(state, seat), 0, tc.decision_ms, tc.bank_ms)
        reply, _ = await session.ask(request, (tc.decision_ms + tc.bank_ms + tc.grace_ms) / 1000)
        replied = time.perf_counter()
        state.apply_decision(convert.decision_from_proto(reply))  # the reply must be legal
        session.send(pb.RefereeMessage(match_end=pb.MatchEnd(games_played=1, reason="completed")))
        session.close()
    finally:
        await process.stop(1.0)
    return {
        "spawn_ms": (spawned - start) * 1000,
        "hello_ms": (hello - start) * 1000,
        "first_reply_ms": (replied - start) * 1000,
        "first_round_trip_ms": (replied - hello) * 1000,
    }


async def measure_startup(bot: Path, repeats: int, seed: int, socket_root: Path) -> dict[str, Any]:
    """Part c: *repeats* cold starts of *bot* against one referee server."""
    manifest = load_manifest(bot)
    server = RefereeServer()
    await server.start(f"unix:{socket_root}/startup.sock")
    try:
        runs = [
            await one_startup(server, manifest, PRESETS["classic"], seed + i)
            for i in range(repeats)
        ]
    finally:
        await server.stop(0.5)
    keys = ("spawn_ms", "hello_ms", "first_reply_ms", "first_round_trip_ms")
    return {
        "bot": manifest.label,
        "repeats": repeats,
        **{
            key: {
                "median": statistics.median(r[key] for r in runs),
                "max": max(r[key] for r in runs),
            }
            for key in keys
        },
        "runs": runs,
    }


# ---------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------


def print_report(results: dict[str, Any], out: Callable[[str], None] = print) -> None:
    """The human-readable report."""
    a = results["round_trip"]
    out(
        f"952 Arena referee benchmark (arena {__version__}, Python {sys.version.split()[0]}, grpcio {grpc.__version__})"
    )
    out("")
    out(
        f"a. Per-decision round trip, {a['ruleset']}, {a['games']} games, {a['decisions']} decisions, faults {a['faults']}"
    )
    req, rep = a["request_bytes"], a["reply_bytes"]
    out(
        f"   request (RefereeMessage) bytes: median {req['median']}, range {req['min']}-{req['max']}"
        f" (engine replay of the same games: {a['replayed_requests']} requests,"
        f" {'the same count as' if a['replayed_requests'] == a['decisions'] else 'NOT equal to'}"
        " the referee's decisions)"
    )
    out(f"   reply (BotMessage) bytes: median {rep['median']}, range {rep['min']}-{rep['max']}")
    out(
        f"   bare payload: {req['payload']} B request, {rep['payload_reply']} B reply"
        f" (received median {rep['bare_received_median']} B)"
    )
    out(f"   {'':34s} {'p50 ms':>8s} {'p90 ms':>8s} {'p99 ms':>8s} {'mean ms':>8s} {'max ms':>8s}")
    for label, s in (
        ("referee (3 raw bench bots)", a["referee"]),
        ("bare grpc.aio ping-pong (1 bot)", a["bare"]),
    ):
        out(
            f"   {label:34s} {s['p50_ms']:8.3f} {s['p90_ms']:8.3f} {s['p99_ms']:8.3f} {s['mean_ms']:8.3f} {s['max_ms']:8.3f}"
        )
    per_round = ", ".join(f"{r['referee_p50_ms'] / r['bare_p50_ms']:.2f}" for r in a["rounds"])
    out(f"   p50 ratio per round ({len(a['rounds'])} alternated referee/bare rounds): {per_round}")
    for name in ("p50", "p99"):
        ratio = a[f"ratio_{name}"]
        verdict = "met" if ratio <= a["ratio_goal"] else "NOT met"
        out(f"   ratio referee/bare {name}: {ratio:5.2f}  (goal <= {a['ratio_goal']}: {verdict})")
    out(
        f"   referee wall time per decision: {a['wall_ms_per_decision']:.3f} ms over whole matches"
        f" ({a['match_seconds']:.2f} s in {len(a['rounds'])} matches, bot start/stop included);"
    )
    out(
        f"   {a['steady_wall_ms_per_decision']:.3f} ms in games 2..N of each match"
        " (round trip + observe(), conversion, game bookkeeping)"
    )
    out("")
    b = results["hands_per_second"]
    out(
        f"b. Throughput: 3 x {b['bot']}, {b['ruleset']}, {b['games']} games, {b['hands']} hands, {b['decisions']} decisions, faults {b['faults']}"
    )
    out(
        f"   {b['hands_per_s']:.1f} hands/s, {b['decisions_per_s']:.0f} decisions/s over {b['seconds']:.2f} s"
        f" (whole match); {b['steady_hands_per_s']:.1f} hands/s in games 2..N"
    )
    rt = b["round_trip"]
    out(
        f"   SDK bot round trip: p50 {rt['p50_ms']:.3f} ms, p99 {rt['p99_ms']:.3f} ms, mean {rt['mean_ms']:.3f} ms"
    )
    out("")
    c = results["startup"]
    out(f"c. Process start to first decision: {c['bot']}, {c['repeats']} cold starts")
    labels = {
        "spawn_ms": "spawn call returned",
        "hello_ms": "Hello accepted (session connected)",
        "first_reply_ms": "first reply received",
        "first_round_trip_ms": "first decision round trip alone",
    }
    out(f"   {'from spawn to':40s} {'median ms':>10s} {'max ms':>10s}")
    for key, label in labels.items():
        out(f"   {label:40s} {c[key]['median']:10.1f} {c[key]['max']:10.1f}")
    out("")
    out(f"total benchmark time: {results['seconds']:.1f} s")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """All three measurements, in order."""
    root = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    started = time.perf_counter()
    try:
        results: dict[str, Any] = {"arena_version": __version__, "grpcio": grpc.__version__}
        print("a. referee vs bare round trips ...", file=sys.stderr, flush=True)
        results["round_trip"] = await measure_round_trips(args.games, args.rounds, args.seed, root)
        print("b. hands/s with SDK random bots ...", file=sys.stderr, flush=True)
        results["hands_per_second"] = await measure_hands_per_second(
            args.random_bot, args.ruleset, args.random_games, args.seed
        )
        print("c. process start to first decision ...", file=sys.stderr, flush=True)
        results["startup"] = await measure_startup(args.random_bot, args.startups, args.seed, root)
        results["seconds"] = time.perf_counter() - started
        return results
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Parse options, measure, print the report (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        default=20,
        help="games of raw bench bots for part a (default 20, ~6000 decisions)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="part a alternates this many referee matches with bare runs (default 4)",
    )
    parser.add_argument(
        "--random-games",
        type=int,
        default=30,
        help="games of the random_bot match for part b (default 30)",
    )
    parser.add_argument(
        "--ruleset",
        default="classic",
        choices=sorted(PRESETS),
        help="preset for part b (default classic)",
    )
    parser.add_argument(
        "--startups", type=int, default=10, help="cold starts for part c (default 10)"
    )
    parser.add_argument(
        "--random-bot",
        type=Path,
        default=ROOT / "sample_bots" / "random_bot",
        help="bot directory for parts b and c",
    )
    parser.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the report"
    )
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.games < 2 * args.rounds:
        parser.error("part a needs --rounds >= 1 and --games >= 2 * --rounds")
    if args.random_games < 2 or args.startups < 1:
        parser.error("--random-games must be >= 2 and --startups >= 1")
    results = asyncio.run(run(args))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    # Goals are reported, not enforced; a fault, however, voids the figures.
    return 1 if results["round_trip"]["faults"] or results["hands_per_second"]["faults"] else 0


if __name__ == "__main__":
    sys.exit(main())
