"""Referee speed: what the referee adds to a decision, its throughput, and bot start-up.

Why: every decision of every match crosses the referee, so its cost on top of the gRPC
transport sets how many games a tournament can play, and bots' time allowances must not
be eaten by the referee itself. One run measures three things:

a. **Per-decision round trip, referee vs bare gRPC.** Three copies of a minimal "raw" bench
   bot (written to a temp directory at run time: raw ``arena_pb2_grpc.RefereeStub``, answers
   every DecisionRequest at once with a legal reply read straight off the protobuf message,
   no SDK conversion) play matches through ``play_match``; the round trips are the ones the
   referee itself records (``record["timings"]["decision_ms"]``), timed in
   ``GameLoop._ask`` around ``Session.ask``: from handing over the request message, built
   already, to having the checked reply: writing any GameStart/HandEnd still in flight
   before it, setting the request id, the gRPC write (serializing, the send and its
   completion), the gRPC read (its completion, parsing the reply), the check that it is
   the answer to this request. Not in it: ``observe()``, building the request, decoding
   the decision, the legality check, the clocks. Two bare ``grpc.aio`` baselines in this
   process, pass-through bytes both ways, each write-then-read timed with
   ``time.perf_counter``, the very same bench bot program started the same way
   (``BotProcess.start``, in the same sandbox as the referee's bots) over the same kind of
   socket (a unix domain socket in a temp dir):

   - **bare ping-pong** (the goal's reference): ONE bot process, the serialized bytes of
     a real request (in a RefereeMessage) of the median size of the referee's requests,
     repeated; the bot parses it and answers as it answers the referee.
   - **bare replay**: the match's very requests (an engine replay of the same games: same
     seeds, first dealers and decisions, ``observe`` + ``request_message``), in the
     match's order of seats, to THREE bot processes, each behind a server of its own like
     the referee's doors. What the referee adds over it is its own cost; what the replay
     adds over the ping-pong is the game's shape (three processes taking turns, the spread
     of request sizes), which any referee has.

   Referee matches and bare runs are alternated (``--rounds``) so that a change of machine
   load hits every side alike. Reported: p50/p99 of the three, the ratios referee/bare
   (goal <= 1.2) and referee/replay, and the referee's wall time per decision (match wall
   time / decisions), which also includes ``observe()``, conversion, bot start-up and game
   bookkeeping. With ``--profile GAMES``, a cProfile of the referee's thread over one more
   match (docs/performance.md reads it).
b. **Hands/s** of a match of three ``sample_bots/random_bot`` processes (SDK bots).
c. **Process start to first decision** for ``random_bot``: spawn to Hello accepted
   (``Session.connected``) and spawn to first reply, with a small harness over
   ``RefereeServer``, ``RefereeService.open_session`` and ``BotProcess.start``, repeated.

d. **CPU per decision** (``--cpu GAMES``): the CPU time of this whole process (every
   thread: the event loop's and gRPC's) per decision over games 2..N of a match of three
   bench bots (in the default sandbox, as in part a), against the bare replay of the same
   decisions, alternated ``--cpu-rounds`` times (medians). CPU time, unlike wall time, is
   not inflated by other processes waiting for the cores. gRPC reads its settings once,
   at import: run this with ``GRPC_EXPERIMENTS=event_engine_listener`` to measure gRPC's
   default listener instead of the referee's (``arena.protocol.grpc_env``).

Figures are measured and reported, never asserted (the exit status is 1 only if a bot
faulted, which voids the figures). The default run takes well under two minutes on two
cores.

Run: ``python benchmarks/referee.py [--games 20] [--rounds 4] [--random-games 30]
[--startups 10] [--profile GAMES] [--cpu GAMES] [--cpu-rounds 3] [--json]``.
"""

from __future__ import annotations

import os

# isort: off
from arena.protocol.grpc_env import configure_grpc

configure_grpc(os.environ)  # a script is an entry point: before anything imports grpc

# isort: on
import argparse  # noqa: E402
import asyncio  # noqa: E402
import cProfile  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from dataclasses import dataclass, field, replace  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, cast  # noqa: E402

import grpc  # noqa: E402

from arena import __version__  # noqa: E402
from arena.game import PRESETS, GameState, RuleSet, observe  # noqa: E402
from arena.protocol import convert  # noqa: E402
from arena.referee.manifest import BotManifest, load_manifest  # noqa: E402
from arena.referee.match import MatchConfig, MatchResult, play_match  # noqa: E402
from arena.referee.process import BotProcess, LogCapture, bot_environment  # noqa: E402
from arena.referee.timecontrol import TimeControl  # noqa: E402
from arena.referee.wire import MAX_MESSAGE_BYTES, SERVICE_NAME, RefereeServer, Session  # noqa: E402
from arena.referee.wire.session import deserialize  # noqa: E402
from arena.sandbox.config import SandboxConfig  # noqa: E402
from arena.v1 import arena_pb2 as pb  # noqa: E402

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


@dataclass(frozen=True)
class Exchange:
    """One decision of a referee match as the wire carries it."""

    seat: int
    request: bytes
    """The serialized RefereeMessage holding the DecisionRequest."""
    reply_size: int
    """Serialized size of the bench bot's BotMessage answering it."""


@dataclass
class SizeSample:
    """What the referee sends and the bench bot answers over a replay of a match."""

    request_sizes: list[int]
    reply_sizes: list[int]
    payload: bytes
    """A real serialized RefereeMessage of the median request size."""
    payload_reply_size: int
    """Serialized size of the bench bot's BotMessage answering *payload*."""


def replay_match(config: MatchConfig) -> list[Exchange]:
    """Replay the games of the match *config* as the referee plays them with three bench
    bots: every decision in order, with its seat, request bytes and reply size.

    Same seeds and first dealers as the referee (``MatchConfig.game_setup``), the same
    requests (``observe`` + ``request_message``, per-seat request ids from 1 in each match,
    the same clock fields) and the same replies (:func:`raw_reply`), so these are the
    messages the referee and the bench bots exchange.
    """
    tc = config.time_control
    next_id = [1, 1, 1]
    exchanges: list[Exchange] = []
    for index in range(config.games):
        setup = config.game_setup(index, "replay")
        state = GameState(config.rules, setup.seed, first_dealer=setup.first_dealer)
        while not state.is_over:
            seat = state.current_seat
            message = convert.request_message(
                observe(state, seat), next_id[seat], tc.decision_ms, tc.bank_ms
            )
            next_id[seat] += 1
            reply = raw_reply(message.decision_request)
            size = len(pb.BotMessage(action_reply=reply).SerializeToString())
            exchanges.append(Exchange(seat, message.SerializeToString(), size))
            state.apply_decision(convert.decision_from_proto(reply))
    return exchanges


def size_sample(exchanges: Sequence[Exchange]) -> SizeSample:
    """Request and reply sizes of *exchanges*, and the one of median size for the bare run."""
    request_sizes = [len(e.request) for e in exchanges]
    replies = [e.reply_size for e in exchanges]
    median_request = int(percentile(request_sizes, 50))
    median_reply = int(percentile(replies, 50))
    candidates = [i for i, size in enumerate(request_sizes) if size == median_request]
    chosen = next((i for i in candidates if replies[i] == median_reply), candidates[0])
    return SizeSample(request_sizes, replies, exchanges[chosen].request, replies[chosen])


# ---------------------------------------------------------------------------------------
# a. The bare gRPC baseline
# ---------------------------------------------------------------------------------------


def bare_server(path: Path, play: Any) -> grpc.aio.Server:
    """A bare grpc.aio server of ``arena.v1.Referee/Play`` with pass-through bytes (no
    serializer, no deserializer), so the bench bot runs unchanged; on unix socket *path*
    and with the referee's own message limit."""
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
    server.add_insecure_port(f"unix:{path}")
    return server


async def bare_ping_pong(
    manifest: BotManifest,
    payload: bytes,
    exchanges: int,
    socket_dir: Path,
    sandbox: SandboxConfig | None = None,
) -> tuple[list[float], list[int]]:
    """Ping-pong *payload* with one bench bot process over a bare grpc.aio stream.

    The bot runs inside *sandbox*, as the referee's bots do. The server reads the Hello,
    then times *exchanges* write-then-read round trips and ends the stream. Returns the
    round trips in ms and the sizes of the replies received.
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

    path = socket_dir / "bare.sock"
    server = bare_server(path, play)
    await server.start()
    logs = LogCapture()
    process = await BotProcess.start(
        manifest, bot_environment(f"unix://{path}", "bare"), logs, sandbox=sandbox
    )
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


async def bare_replay(
    manifest: BotManifest,
    exchanges: Sequence[Exchange],
    socket_dir: Path,
    sandbox: SandboxConfig | None = None,
    cpu: list[CpuTimes] | None = None,
) -> list[float]:
    """The very decisions of a referee match through bare grpc.aio: three bench bot
    processes, each behind a server of its own (as the referee's doors), receive the
    match's request bytes in the match's order of seats; each write-then-read is timed.

    What the referee adds is then all that differs: building each observation, the
    messages that are not requests (GameStart, HandEnd, GameEnd), serializing and parsing,
    its checks and its clocks. Round trips in ms. If *cpu* is given, the process's CPU
    times just before the first exchange and just after the last are appended to it.
    """
    contexts: list[asyncio.Future[Any]] = [
        asyncio.get_running_loop().create_future() for _ in range(3)
    ]
    finished = asyncio.Event()

    def door(seat: int) -> Any:
        async def play(_request_iterator: object, context: Any) -> None:
            await context.read()  # the bot's Hello
            contexts[seat].set_result(context)
            await finished.wait()

        return play

    servers: list[grpc.aio.Server] = []
    processes: list[BotProcess] = []
    times: list[float] = []
    try:
        for seat in range(3):
            path = socket_dir / f"replay{seat}.sock"
            servers.append(bare_server(path, door(seat)))
            await servers[-1].start()
            env = bot_environment(f"unix://{path}", f"replay{seat}")
            processes.append(await BotProcess.start(manifest, env, LogCapture(), sandbox=sandbox))
        streams = await asyncio.wait_for(asyncio.gather(*contexts), 30.0)
        if cpu is not None:
            cpu.append(CpuTimes.now())
        for exchange in exchanges:
            context = streams[exchange.seat]
            start = time.perf_counter()
            await context.write(exchange.request)
            reply = await context.read()
            times.append((time.perf_counter() - start) * 1000)
            if reply is grpc.aio.EOF:
                raise RuntimeError("a bench bot closed its stream during the replay")
        if cpu is not None:
            cpu.append(CpuTimes.now())
    finally:
        finished.set()
        await asyncio.gather(*(server.stop(0.5) for server in servers))
        for process in processes:
            await process.stop(2.0)
    return times


async def measure_round_trips(
    games: int, rounds: int, seed: int, socket_root: Path
) -> dict[str, Any]:
    """Part a: referee round trips with three bench bots and the two bare baselines,
    alternated.

    The games are split into *rounds* matches (consecutive seeds); after each match the
    bare ping-pong makes as many exchanges as that match had decisions, and the bare
    replay sends that match's very requests to three bots. Alternating keeps a drift in
    machine load (other processes, CPU frequency) from favouring any side.
    """
    manifest = write_bench_bot(socket_root / "raw_bench")
    counts = [games // rounds + (1 if i < games % rounds else 0) for i in range(rounds)]
    configs = [
        MatchConfig(PRESETS["classic"], count, seed + sum(counts[:i]), time_control=TimeControl())
        for i, count in enumerate(counts)
        if count > 0
    ]
    replays = [replay_match(config) for config in configs]
    sizes = size_sample([exchange for replay in replays for exchange in replay])
    referee_ms: list[float] = []
    bare_ms: list[float] = []
    replay_ms: list[float] = []
    bare_replies: list[int] = []
    per_round: list[dict[str, float]] = []
    faults = 0
    match_seconds = steady_seconds = 0.0
    steady_decisions = 0
    for config, replay in zip(configs, replays, strict=True):
        timed = await timed_match([manifest] * 3, config)
        round_referee = decision_times(timed.result)
        faults += sum(len(r["faults"]) for r in timed.result.records)
        first_game = sum(len(s) for s in timed.result.records[0]["timings"]["decision_ms"])
        match_seconds += timed.seconds
        if config.games > 1:
            steady_seconds += timed.steady_seconds()
            steady_decisions += len(round_referee) - first_game
        round_bare, replies = await bare_ping_pong(
            manifest, sizes.payload, len(round_referee), socket_root, config.sandbox
        )
        round_replay = await bare_replay(manifest, replay, socket_root, config.sandbox)
        referee_ms.extend(round_referee)
        bare_ms.extend(round_bare)
        replay_ms.extend(round_replay)
        bare_replies.extend(replies)
        per_round.append(
            {
                "games": config.games,
                "decisions": len(round_referee),
                **{
                    f"{name}_{q}_ms": percentile(times, int(q[1:]))
                    for name, times in (
                        ("referee", round_referee),
                        ("bare", round_bare),
                        ("replay", round_replay),
                    )
                    for q in ("p50", "p99")
                },
            }
        )
    decisions = len(referee_ms)
    referee = summarize_ms(referee_ms)
    bare = summarize_ms(bare_ms)
    replay_summary = summarize_ms(replay_ms)
    return {
        "ruleset": "classic",
        "games": games,
        "sandbox": str(configs[0].sandbox.mode),
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
        "replay": replay_summary,
        "ratio_p50": referee["p50_ms"] / bare["p50_ms"],
        "ratio_p99": referee["p99_ms"] / bare["p99_ms"],
        "replay_ratio_p50": referee["p50_ms"] / replay_summary["p50_ms"],
        "replay_ratio_p99": referee["p99_ms"] / replay_summary["p99_ms"],
        "ratio_goal": RATIO_GOAL,
        "match_seconds": match_seconds,
        "wall_ms_per_decision": match_seconds * 1000 / decisions,
        "steady_wall_ms_per_decision": steady_seconds * 1000 / steady_decisions
        if steady_decisions
        else float("nan"),
    }


class LoopbackContext:
    """Stands in for a gRPC call in :func:`span_cpu`: ``write`` serializes what it is given
    as gRPC's serializer does (nothing for bytes), ``read`` hands back the next prepared
    reply through the referee's deserializer (or as bytes). Neither suspends."""

    def __init__(self, replies: Sequence[bytes], parse: bool) -> None:
        self.replies = replies
        self.parse = parse
        self.index = 0

    async def write(self, message: pb.RefereeMessage | bytes) -> None:
        if not isinstance(message, bytes):
            message.SerializeToString()

    async def read(self) -> object:
        reply = self.replies[self.index]
        self.index += 1
        return deserialize(reply) if self.parse else reply


async def span_cpu(exchange: Exchange, asks: int) -> dict[str, float]:
    """The CPU the referee's own code spends inside the timed span, without any I/O.

    ``Session.ask`` against a :class:`LoopbackContext`, and the bare loop's two awaits on
    the same context with bytes; each followed by one turn of the event loop, as between
    real decisions (the loop drops cancelled deadline timers, which would otherwise pile
    up). Timed in CPU time of this thread, so other processes' load does not count. In us
    per ask: the referee, the bare loop, what the referee adds, and the serialize and
    parse steps alone (the bare baseline passes bytes).
    """
    message = pb.RefereeMessage.FromString(exchange.request)
    replies = [
        pb.BotMessage(
            action_reply=pb.ActionReply(request_id=i, play=pb.PlayAction(card="TS"))
        ).SerializeToString()
        for i in range(1, asks + 1)
    ]
    session = Session(seat=0, token="", welcome=pb.Welcome())
    session.context = cast(Any, LoopbackContext(replies, parse=True))
    start = time.thread_time()
    for _ in range(asks):
        await session.ask(message, 10.0)
        await asyncio.sleep(0)
    referee = time.thread_time() - start
    context = LoopbackContext(replies, parse=False)
    start = time.thread_time()
    for _ in range(asks):
        await context.write(exchange.request)
        await context.read()
        await asyncio.sleep(0)
    bare = time.thread_time() - start
    start = time.thread_time()
    for _ in range(asks):
        message.SerializeToString()
    serialize = time.thread_time() - start
    start = time.thread_time()
    for reply in replies:
        deserialize(reply)
    parse = time.thread_time() - start
    return {
        "asks": asks,
        "referee_us": referee * 1e6 / asks,
        "bare_us": bare * 1e6 / asks,
        "added_us": (referee - bare) * 1e6 / asks,
        "serialize_us": serialize * 1e6 / asks,
        "parse_us": parse * 1e6 / asks,
    }


async def profile_referee(games: int, seed: int, socket_root: Path, top: int) -> dict[str, Any]:
    """Optional: a CPU profile of the referee's thread over games 2..N of a match of three
    bench bots (game 1, with the bots' start-up, is left out), after the timed rounds.

    cProfile with the thread's CPU clock, so other processes' load does not count and the
    wait for a bot is not time. gRPC's Cython code is invisible to cProfile: the CPU of a
    ``context.write``/``context.read`` call (serializing, the C-core batch, parsing the
    reply) counts as its caller's own time. cProfile slows Python code, not C, so Python's
    shares are upper bounds. With it, :func:`span_cpu`: what the referee's code adds to
    the timed span, measured without the profiler.
    """
    manifest = write_bench_bot(socket_root / "raw_bench")
    config = MatchConfig(PRESETS["classic"], games, seed, time_control=TimeControl())
    profiler = cProfile.Profile(time.thread_time)
    ended = 0

    def on_game(_record: dict[str, Any]) -> None:
        nonlocal ended
        ended += 1
        if ended == 1:
            profiler.enable()
        elif ended == games:
            profiler.disable()

    result = await play_match([manifest] * 3, config, on_game=on_game)
    profiler.disable()
    decisions = sum(
        len(seat) for record in result.records[1:] for seat in record["timings"]["decision_ms"]
    )
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, Any]]
    raw = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    rows = sorted(
        (
            (f"{Path(file).name}:{line}({name})" if line else name, calls, own)
            for (file, line, name), (_, calls, own, _, _) in raw.items()
        ),
        key=lambda row: row[2],
        reverse=True,
    )
    total = sum(own for _, _, own in rows)
    exchanges = replay_match(config)
    median = sorted(exchanges, key=lambda e: len(e.request))[len(exchanges) // 2]
    return {
        "span_cpu": await span_cpu(median, 20_000),
        "games_profiled": games - 1,
        "decisions": decisions,
        "cpu_us_per_decision": total * 1e6 / decisions,
        "top": [
            {
                "function": name,
                "calls_per_decision": calls / decisions,
                "us_per_decision": own * 1e6 / decisions,
                "share": own / total,
            }
            for name, calls, own in rows[:top]
        ],
    }


# ---------------------------------------------------------------------------------------
# d. CPU per decision of the whole process
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuTimes:
    """This process's CPU seconds so far: all its threads, and the calling thread alone
    (the event loop's, when called from a coroutine)."""

    process: float
    loop: float
    switches: int
    """Voluntary context switches of the process (a thread waking another counts)."""

    @classmethod
    def now(cls) -> CpuTimes:
        own = resource.getrusage(resource.RUSAGE_SELF)
        loop = resource.getrusage(resource.RUSAGE_THREAD)
        return cls(own.ru_utime + own.ru_stime, loop.ru_utime + loop.ru_stime, own.ru_nvcsw)

    def per(self, start: CpuTimes, count: int) -> dict[str, float]:
        """What was spent since *start*, per one of *count* decisions (us, switches)."""
        return {
            "process_us": (self.process - start.process) * 1e6 / count,
            "loop_us": (self.loop - start.loop) * 1e6 / count,
            "grpc_threads_us": (self.process - start.process - self.loop + start.loop)
            * 1e6
            / count,
            "switches": (self.switches - start.switches) / count,
        }


async def measure_cpu(games: int, rounds: int, seed: int, socket_root: Path) -> dict[str, Any]:
    """Part d: CPU per decision of this process, referee against bare replay, alternated.

    The referee: from the end of game 1 (bot start-up left out) to the end of game
    *games* of a match of three bench bots. The bare replay: the same games' decisions
    after game 1 (engine replay), from the first exchange to the last. Medians over
    *rounds* of each, per decision: the whole process, the event loop's thread, and the
    rest (gRPC's own threads).
    """
    manifest = write_bench_bot(socket_root / "raw_bench")
    config = MatchConfig(PRESETS["classic"], games, seed, time_control=TimeControl())
    exchanges = replay_match(config)[len(replay_match(replace(config, games=1))) :]
    referee: list[dict[str, float]] = []
    bare: list[dict[str, float]] = []
    faults = 0
    game_ends: list[CpuTimes] = []
    for _ in range(rounds):
        game_ends.clear()
        result = await play_match(
            [manifest] * 3, config, on_game=lambda _record: game_ends.append(CpuTimes.now())
        )
        faults += sum(len(r["faults"]) for r in result.records)
        decisions = sum(len(s) for r in result.records[1:] for s in r["timings"]["decision_ms"])
        referee.append(game_ends[-1].per(game_ends[0], decisions))
        marks: list[CpuTimes] = []
        await bare_replay(manifest, exchanges, socket_root, config.sandbox, cpu=marks)
        bare.append(marks[1].per(marks[0], len(exchanges)))
    return {
        "games": games,
        "rounds": rounds,
        "decisions": len(exchanges),
        "faults": faults,
        "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS", ""),
        "referee": {key: statistics.median(r[key] for r in referee) for key in referee[0]},
        "bare_replay": {key: statistics.median(b[key] for b in bare) for key in bare[0]},
        "referee_process_us_per_round": [r["process_us"] for r in referee],
        "bare_process_us_per_round": [b["process_us"] for b in bare],
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
        ("bare replay of the games (3 bots)", a["replay"]),
    ):
        out(
            f"   {label:34s} {s['p50_ms']:8.3f} {s['p90_ms']:8.3f} {s['p99_ms']:8.3f} {s['mean_ms']:8.3f} {s['max_ms']:8.3f}"
        )
    out(f"   every bot in sandbox mode {a['sandbox']}")
    for base in ("bare", "replay"):
        per_round = ", ".join(
            f"{r['referee_p50_ms'] / r[f'{base}_p50_ms']:.2f}" for r in a["rounds"]
        )
        out(f"   p50 referee/{base} per round ({len(a['rounds'])} alternated rounds): {per_round}")
    for name in ("p50", "p99"):
        ratio = a[f"ratio_{name}"]
        verdict = "met" if ratio <= a["ratio_goal"] else "NOT met"
        out(
            f"   ratio referee/bare {name}: {ratio:5.2f}  (goal <= {a['ratio_goal']}: {verdict});"
            f" referee/replay {name}: {a[f'replay_ratio_{name}']:5.2f}"
        )
    out(
        f"   referee wall time per decision: {a['wall_ms_per_decision']:.3f} ms over whole matches"
        f" ({a['match_seconds']:.2f} s in {len(a['rounds'])} matches, bot start/stop included);"
    )
    out(
        f"   {a['steady_wall_ms_per_decision']:.3f} ms in games 2..N of each match"
        " (round trip + observe(), conversion, game bookkeeping)"
    )
    out("")
    if "profile" in results:
        prof = results["profile"]
        cpu = prof["span_cpu"]
        out(
            f"a'. CPU of the referee's thread, games 2..{prof['games_profiled'] + 1} of a match"
            f" ({prof['decisions']} decisions): {prof['cpu_us_per_decision']:.0f} us per decision"
            " under cProfile (CPU clock)"
        )
        out(
            f"   what the referee's code adds to the timed span ({cpu['asks']} asks on a loopback"
            f" context, no I/O, no profiler): {cpu['added_us']:.1f} us per decision"
        )
        out(
            f"   (serializing the request {cpu['serialize_us']:.1f} us, parsing the reply"
            f" {cpu['parse_us']:.1f} us; the rest is Session.ask and its deadline timer)"
        )
        out(
            f"   {'own CPU (grpc Cython counts as its caller)':62s} {'calls':>6s} {'us':>7s} {'share':>6s}"
        )
        for row in prof["top"]:
            out(
                f"   {row['function'][:62]:62s} {row['calls_per_decision']:6.2f}"
                f" {row['us_per_decision']:7.1f} {row['share']:6.1%}"
            )
        out("")
    if "cpu" in results:
        d = results["cpu"]
        out(
            f"d. CPU per decision of this process (all threads), games 2..{d['games']} of a match"
            f" ({d['decisions']} decisions), medians of {d['rounds']} alternated rounds;"
            f" GRPC_EXPERIMENTS={d['grpc_experiments'] or '(unset)'}"
        )
        out(
            f"   {'':34s} {'process us':>10s} {'loop us':>8s} {'gRPC threads us':>16s}"
            f" {'switches':>9s}"
        )
        for label, c in (
            ("referee (3 raw bench bots)", d["referee"]),
            ("bare replay of the games (3 bots)", d["bare_replay"]),
        ):
            out(
                f"   {label:34s} {c['process_us']:10.0f} {c['loop_us']:8.0f}"
                f" {c['grpc_threads_us']:16.0f} {c['switches']:9.2f}"
            )
        rounds = ", ".join(
            f"{r:.0f}/{b:.0f}"
            for r, b in zip(
                d["referee_process_us_per_round"], d["bare_process_us_per_round"], strict=True
            )
        )
        out(f"   process us per round, referee/bare: {rounds}")
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
        if args.profile:
            print("a'. profile of the referee ...", file=sys.stderr, flush=True)
            results["profile"] = await profile_referee(args.profile, args.seed, root, args.top)
        if args.cpu:
            print("d. CPU per decision ...", file=sys.stderr, flush=True)
            results["cpu"] = await measure_cpu(args.cpu, args.cpu_rounds, args.seed, root)
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
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="GAMES",
        help="after part a, profile the referee (cProfile) over a match of GAMES games"
        " of bench bots, game 1 left out (default 0: no profile)",
    )
    parser.add_argument(
        "--top", type=int, default=15, help="entries of the profile shown (default 15)"
    )
    parser.add_argument(
        "--cpu",
        type=int,
        default=0,
        metavar="GAMES",
        help="part d: CPU per decision of this process over games 2..GAMES of bench bot"
        " matches, against the bare replay (default 0: not measured)",
    )
    parser.add_argument(
        "--cpu-rounds", type=int, default=3, help="alternated rounds of part d (default 3)"
    )
    parser.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the report"
    )
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.games < 2 * args.rounds:
        parser.error("part a needs --rounds >= 1 and --games >= 2 * --rounds")
    if args.profile == 1 or args.profile < 0:
        parser.error("--profile needs at least 2 games (game 1 is left out)")
    if args.cpu == 1 or args.cpu < 0 or args.cpu_rounds < 1:
        parser.error("--cpu needs at least 2 games (game 1 is left out), --cpu-rounds >= 1")
    if args.random_games < 2 or args.startups < 1:
        parser.error("--random-games must be >= 2 and --startups >= 1")
    results = asyncio.run(run(args))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    # Goals are reported, not enforced; a fault, however, voids the figures.
    faults = results["round_trip"]["faults"] + results["hands_per_second"]["faults"]
    return 1 if faults or results.get("cpu", {}).get("faults") else 0


if __name__ == "__main__":
    sys.exit(main())
