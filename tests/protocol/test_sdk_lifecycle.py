"""What a bot author and the referee see of the SDK's connection loop and of a bot
process's end (docs/performance.md, "A bot process's own cost").

Cheaper designs of both were measured there and dropped because they changed something
pinned here: the Hello first, one reply per request in order, the loop's end at MatchEnd,
a fault notice printed, a refusal raised as :class:`BotRunError`, CANCELLED quiet; and in
a real bot process under the referee, each game's output charged to that game, code after
``run()`` run, atexit handlers run, and a file the bot never closed still flushed at exit
(``gc.freeze()`` before the match lost it). The control of the last part is a bot that
leaves with ``os._exit`` (the shortcut a cheaper exit could take): the check sees what it
loses.

The loop's tests drive a real bot, in a thread of this process, against a scripted
referee: a grpc.aio server of the real service that sends given messages and records
what the bot sends back.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.game import PRESETS, Observation, new_game, observe
from arena.game._native import PURE_ENV
from arena.protocol import convert
from arena.protocol.wire import OUTPUT_MARK
from arena.referee.manifest import BotManifest, load_manifest
from arena.referee.match import MatchConfig, play_match
from arena.referee.timecontrol import TimeControl
from arena.sandbox.config import SandboxConfig, SandboxMode
from arena.sdk import Bot, BotRunError, Clock
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc

TOKEN = "scripted-token"
BOT_LIMIT_S = 10
"""How long a bot of these tests may take to return from ``run()``."""
Script = Callable[[grpc.aio.ServicerContext[Any, Any]], Awaitable[None]]
"""What the scripted referee does with one bot's stream."""


class ScriptedReferee(arena_pb2_grpc.RefereeServicer):
    """The referee service of a test: runs *script* on the one stream a bot opens."""

    def __init__(self, script: Script) -> None:
        self.script = script

    async def Play(self, request_iterator: Any, context: Any) -> None:  # noqa: N802 - gRPC's name
        await self.script(context)


def run_against(script: Script, bot: Bot) -> BaseException | None:
    """Run ``bot.run()`` (in a thread: it starts its own event loop) against a scripted
    referee; what it raised, if anything."""

    async def main() -> BaseException | None:
        server = grpc.aio.server()
        arena_pb2_grpc.add_RefereeServicer_to_server(ScriptedReferee(script), server)  # type: ignore[no-untyped-call]
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            await asyncio.wait_for(
                asyncio.to_thread(bot.run, f"127.0.0.1:{port}", TOKEN), BOT_LIMIT_S
            )
        except Exception as exc:  # what the bot raised is the result
            return exc
        finally:
            await server.stop(0)
        return None

    return asyncio.run(main())


async def read_hello(context: Any) -> pb.Hello:
    """The bot's first message, which must be its Hello."""
    first = await context.read()
    assert first.WhichOneof("message") == "hello"
    hello: pb.Hello = first.hello
    return hello


async def hold_open() -> None:
    """Keep the call open (until the bot leaves and the server stops): a bot that returns
    from ``run()`` meanwhile ended its loop on its own, at the MatchEnd."""
    await asyncio.sleep(BOT_LIMIT_S + 5)


class CountingBot(Bot):
    """The built-in policy, counting its decisions."""

    def __init__(self) -> None:
        super().__init__()
        self.decided = 0

    def decide(self, obs: Observation) -> Any:
        self.decided += 1
        return super().decide(obs)


def test_hello_first_then_one_reply_per_request_in_order_until_match_end() -> None:
    seen: dict[str, Any] = {"replies": []}

    async def script(context: Any) -> None:
        seen["hello"] = await read_hello(context)
        await context.write(pb.RefereeMessage(welcome=pb.Welcome(seat=1)))
        state = new_game(PRESETS["classic"], 5)
        for request_id in (11, 12, 13):
            obs = observe(state, state.current_seat)
            await context.write(convert.request_message(obs, request_id, 1000, 10000))
            reply = await context.read()
            seen["replies"].append(reply.action_reply.request_id)
            state.apply_decision(convert.decision_from_proto(reply.action_reply))
        await context.write(pb.RefereeMessage(match_end=pb.MatchEnd(games_played=0)))
        await hold_open()

    bot = CountingBot()
    assert run_against(script, bot) is None
    assert seen["hello"].token == TOKEN
    assert seen["replies"] == [11, 12, 13]
    assert (bot.seat, bot.decided) == (1, 3)


class ClockReader(Bot):
    """The built-in policy, noting the clock each decision method sees."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Clock | None] = []

    def decide(self, obs: Observation) -> Any:
        self.seen.append(self.clock)
        return super().decide(obs)


def test_each_decision_sees_the_clock_of_its_own_request() -> None:
    clocks = [(1000, 10000), (950, 8000), (1000, 7321)]

    async def script(context: Any) -> None:
        await read_hello(context)
        state = new_game(PRESETS["classic"], 5)
        for request_id, (decision_ms, bank_ms) in enumerate(clocks, start=1):
            obs = observe(state, state.current_seat)
            await context.write(convert.request_message(obs, request_id, decision_ms, bank_ms))
            reply = await context.read()
            state.apply_decision(convert.decision_from_proto(reply.action_reply))
        await context.write(pb.RefereeMessage(match_end=pb.MatchEnd(games_played=0)))
        await hold_open()

    bot = ClockReader()
    assert bot.clock is None  # nothing asked yet
    assert run_against(script, bot) is None
    # Each request's own clock, not the first one's nor the time control's.
    assert bot.seen == [Clock(d, b) for d, b in clocks]


@pytest.mark.parametrize(
    "code",
    [
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
    ],
)
def test_a_refusal_raises_bot_run_error_with_the_referees_words(code: grpc.StatusCode) -> None:
    async def script(context: Any) -> None:
        await read_hello(context)
        await context.abort(code, "no such token")

    raised = run_against(script, CountingBot())
    assert isinstance(raised, BotRunError)
    assert "no such token" in str(raised)


def test_cancelled_is_quiet_and_other_codes_are_not_refusals() -> None:
    def ending_with(code: grpc.StatusCode) -> BaseException | None:
        async def script(context: Any) -> None:
            await read_hello(context)
            await context.abort(code, "ended")

        return run_against(script, CountingBot())

    assert ending_with(grpc.StatusCode.CANCELLED) is None
    internal = ending_with(grpc.StatusCode.INTERNAL)  # control: not quiet, not a refusal
    assert isinstance(internal, grpc.aio.AioRpcError)
    assert internal.code() is grpc.StatusCode.INTERNAL


def test_a_fault_notice_is_printed_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    async def script(context: Any) -> None:
        await read_hello(context)
        await context.write(pb.RefereeMessage(fault=pb.Fault(detail="answered too late")))
        await context.write(pb.RefereeMessage(match_end=pb.MatchEnd()))
        await hold_open()

    assert run_against(script, CountingBot()) is None
    assert "referee recorded a fault: answered too late" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# A real bot process under the referee
# ---------------------------------------------------------------------------------------

LIFECYCLE_BOT = '''\
"""Prints END <game_id> at each GameEnd; notes what runs after run() and at exit."""
import atexit, os, sys
from arena.sdk import Bot

notes = sys.argv[1]


def note(text):
    with open(notes, "a", encoding="utf-8") as file:
        file.write(f"{os.getpid()} {text}\\n")


class Lifecycle(Bot):
    name, version = "lifecycle", "1"

    def __init__(self):
        super().__init__()
        self.log = open(f"{notes}.{os.getpid()}", "w", encoding="utf-8")  # never closed

    def on_game_end(self, end):
        print(f"END {end.game_id}", file=sys.stderr)


atexit.register(note, "atexit")
bot = Lifecycle()
bot.run()
note("after run")
bot.log.write("written after run\\n")
if "--os-exit" in sys.argv:
    os._exit(0)
'''


def lifecycle_bot(directory: Path, notes: Path, *extra: str) -> BotManifest:
    """The lifecycle bot in *directory*, noting into *notes*."""
    directory.mkdir(parents=True)
    (directory / "bot.py").write_text(LIFECYCLE_BOT, encoding="utf-8")
    run = " ".join(["python bot.py", str(notes), *extra])
    (directory / "bot.toml").write_text(
        f'name = "lifecycle"\nversion = "1"\nlanguage = "python"\n'
        f'description = "lifecycle test bot"\nrun = "{run}"\n',
        encoding="utf-8",
    )
    return load_manifest(directory)


def exit_problems(notes: Path) -> list[str]:
    """What a process of the lifecycle bot that noted into *notes* missed at its end."""
    lines = notes.read_text(encoding="utf-8").splitlines() if notes.exists() else []
    by_pid: dict[str, list[str]] = {}
    for line in lines:
        pid, text = line.split(" ", 1)
        by_pid.setdefault(pid, []).append(text)
    if len(by_pid) != 1:
        return [f"expected one process, noted: {lines}"]
    pid, texts = next(iter(by_pid.items()))
    problems = [] if texts == ["after run", "atexit"] else [f"noted {texts}"]
    log = Path(f"{notes}.{pid}").read_text(encoding="utf-8")
    if log != "written after run\n":
        problems.append(f"the unclosed file holds {log!r}")
    return problems


def test_a_bot_process_ends_as_python_does_and_each_game_keeps_its_output(
    tmp_path: Path,
) -> None:
    notes = [tmp_path / f"notes{seat}" for seat in range(3)]
    seats = [
        lifecycle_bot(tmp_path / "seat0", notes[0]),
        lifecycle_bot(tmp_path / "seat1", notes[1]),
        lifecycle_bot(tmp_path / "seat2", notes[2], "--os-exit"),  # the control
    ]
    config = MatchConfig(
        PRESETS["classic"],
        2,
        3,
        TimeControl.parse("decision=10000,bank=60000,grace=500,startup=30000"),
        sandbox=SandboxConfig(mode=SandboxMode.OFF),
    )
    records = asyncio.run(play_match(seats, config)).records
    assert [record["faults"] for record in records] == [[], []]
    for record in records:
        for logs in record["bot_logs"]:
            assert re.findall(r"^END (\S+)$", logs["stderr"], re.MULTILINE) == [record["game_id"]]
            assert OUTPUT_MARK.decode() not in str(logs)
    assert exit_problems(notes[0]) == []
    assert exit_problems(notes[1]) == []
    control = exit_problems(notes[2])
    assert control == ["noted ['after run']", "the unclosed file holds ''"], control


# ---------------------------------------------------------------------------------------
# What a bot process imports at its start
# ---------------------------------------------------------------------------------------


def modules_after_importing_the_sdk(*, pure: bool) -> set[str]:
    """The modules a fresh interpreter holds after ``import arena.sdk`` (with the compiled
    engine switched off if *pure*)."""
    code = "import sys, arena.sdk; print(' '.join(sys.modules))"
    environ = {**os.environ, PURE_ENV: "1" if pure else ""}
    done = subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def test_the_compiled_engine_check_adds_no_imports_a_bot_does_not_need() -> None:
    """``arena.game._native`` runs in every bot process: no ``pathlib`` (and what it pulls
    in), and ``json`` only when there is a build to check."""
    pure = modules_after_importing_the_sdk(pure=True)
    assert {"arena.sdk", "arena.game._native"} <= pure  # control: the listing works
    assert not {"pathlib", "json", "urllib.parse"} & pure
    assert "pathlib" not in modules_after_importing_the_sdk(pure=False)
