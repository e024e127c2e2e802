"""The referee's gRPC service: admits bots by one-time token and carries their streams.

Each admitted stream becomes a :class:`Session`: the referee writes to it and reads the
answer to each request itself. Everything that can go wrong on the wire — a closed stream,
an undecodable message, a cancelled call — is converted here, once, into a
:class:`~arena.referee.errors.BotError` raised by :meth:`Session.ask`; the match never
sees grpc.

Every bot process dials its own **door**: a unix socket of its seat, served by a gRPC
server of its own that keeps at most :data:`DOOR_CONNECTIONS` connections open (gRPC's
``grpc.max_allowed_incoming_connections``: more are closed as they are accepted). Only
that bot's sandbox has the door's path, so a flood of connections reaches nobody else's
door, is bounded in the referee's descriptors, and every stream refused at a door is
counted against that seat. The shared listener (:meth:`RefereeServer.start`) serves only
remote bots, under a cap of its own. The referee raises its descriptor limit and checks
it has room for a match before the first game (:func:`reserve_descriptors`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
import secrets
import shutil
import tempfile
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.protocol.convert import PROTOCOL_VERSION
from arena.referee.errors import (
    ArenaFault,
    BotCrashed,
    BotError,
    BotProtocolError,
    BotStartupError,
    BotStreamCut,
    BotTimeout,
)
from arena.v1 import arena_pb2, arena_pb2_grpc

LOGGER = logging.getLogger(__name__)

SERVICE_NAME = "arena.v1.Referee"
HELLO_TIMEOUT_S = 10.0
"""Default time an open stream has to send its Hello (the match passes its startup limit)."""
MAX_MESSAGE_BYTES = 1 << 20
"""Largest message a bot may send; a flood of bigger ones is refused by gRPC itself."""
DOOR_CONNECTIONS = 4
"""Connections a seat's door keeps open at once: the bot's stream, room for a health check
on a second channel and for a restarted process while the old connection closes."""
DOOR_STREAMS = 4
"""Concurrent streams (calls) one connection to a door may carry."""
REFUSALS_KEPT = 256
"""Lines kept of the latest refused streams."""
SHARED_CONNECTIONS = 32
"""Connections the shared listener (remote bots) keeps open at once."""
DESCRIPTORS_BASE = 96
"""Descriptors the referee needs besides its seats (gRPC's pollers and wakeups, the
listeners, the record being written, logging, the interpreter's own)."""
DESCRIPTORS_PER_SEAT = 24
"""Per bot seat: its door and its open connections, the process's pipes and pidfd, the
sandbox's memfd, cgroup and lock files."""
_Handler = Callable[
    [object, "grpc.aio.ServicerContext[arena_pb2.BotMessage, arena_pb2.RefereeMessage]"],
    Awaitable[None],
]


def descriptors_needed(bot_seats: int) -> int:
    """Descriptors a match with *bot_seats* bot seats (processes or remote) may hold."""
    return DESCRIPTORS_BASE + bot_seats * (DESCRIPTORS_PER_SEAT + DOOR_CONNECTIONS)


def open_descriptors() -> int:
    """How many descriptors this process holds now (0 where /proc is missing)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def raise_descriptor_limit() -> int:
    """Raise RLIMIT_NOFILE's soft limit to the hard limit (the kernel's ``nr_open`` when
    the hard limit is unlimited); the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard
    if hard == resource.RLIM_INFINITY:
        try:
            target = int(Path("/proc/sys/fs/nr_open").read_text())
        except (OSError, ValueError):
            target = soft
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def check_descriptors(needed: int) -> None:
    """Make sure *needed* more descriptors can be opened.

    :raises ArenaFault: if the referee's own limit leaves fewer free (no bot is to blame).
    """
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return
    free = soft - open_descriptors()
    if free < needed:
        raise ArenaFault(
            f"the referee has {free} free file descriptors of its limit {soft} "
            f"(RLIMIT_NOFILE), a match needs {needed}: raise it (ulimit -n)"
        )


def describe_limits() -> str:
    """One line for ``arena doctor``: the descriptors a referee gets here, what a match
    needs, and the caps at each bot's door."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = descriptors_needed(3)
    usable = soft if hard == resource.RLIM_INFINITY else max(soft, hard)
    verdict = "enough" if usable == resource.RLIM_INFINITY or usable >= needed else "TOO FEW"

    def shown(value: int) -> str:
        return "unlimited" if value == resource.RLIM_INFINITY else str(value)

    return (
        f"referee: file descriptors soft {shown(soft)}, hard {shown(hard)} (raised to the "
        f"hard limit at start; a match of 3 bots needs {needed}: {verdict}); a door per "
        f"bot with at most {DOOR_CONNECTIONS} connections of {DOOR_STREAMS} streams; "
        f"messages up to {MAX_MESSAGE_BYTES} bytes"
    )


def reserve_descriptors(needed: int) -> None:
    """Raise the descriptor limit to the hard limit and check *needed* are free.

    :raises ArenaFault: if even the hard limit leaves too few.
    """
    raise_descriptor_limit()
    check_descriptors(needed)


@dataclass(eq=False)
class Session:
    """One seat's stream: created with a token before the bot starts, attached on Hello.

    The referee writes to the stream directly and reads the answer to a request in the
    same coroutine, like a bare ping-pong: no queue or pump task sits on the hot path.
    Messages that are not requests keep their order through a chain of writes.
    """

    seat: int
    token: str
    welcome: arena_pb2.Welcome
    door: int | None = None
    """The seat whose door the token is valid at (``None``: the shared listener)."""
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the call is over for gRPC (cancelled, cut or finished)."""
    inbox: asyncio.Queue[BotError] = field(default_factory=asyncio.Queue)
    """Errors found at admission (e.g. a refused protocol version)."""
    hello: arena_pb2.Hello | None = None
    closed: bool = False
    last_request_id: int = 0
    """The id of the latest request sent (0 before the first)."""
    context: grpc.aio.ServicerContext[arena_pb2.BotMessage, arena_pb2.RefereeMessage] | None = None
    _next_request: int = 1
    _writes: asyncio.Future[None] | None = None
    _broken: BotError | None = None

    def send(self, message: arena_pb2.RefereeMessage) -> None:
        """Write a message to the bot after every earlier one (dropped once the stream is gone)."""
        if self.closed:
            return
        self._writes = asyncio.ensure_future(self._write_after(self._writes, message))

    async def _write_after(
        self, previous: asyncio.Future[None] | None, message: arena_pb2.RefereeMessage
    ) -> None:
        if previous is not None:
            await previous
        await self._write(message)

    async def _write(self, message: arena_pb2.RefereeMessage) -> None:
        # Messages sent before close() are still written; only a broken stream drops them.
        if self._broken is not None or self.context is None:
            return
        try:
            await self.context.write(message)
        except Exception as exc:  # the stream is gone; the next request reports it
            self._broken = BotCrashed(f"the stream broke ({type(exc).__name__})")
            self.closed = True

    async def flush(self) -> None:
        """Wait until every message sent so far is written."""
        if self._writes is not None:
            with contextlib.suppress(Exception):
                await self._writes

    def close(self) -> None:
        """End the stream from the referee's side once pending messages are written."""
        self.closed = True
        self.finished.set()

    async def ask(
        self, request: arena_pb2.DecisionRequest, deadline_s: float
    ) -> tuple[arena_pb2.ActionReply, float]:
        """Send a decision request and wait for its answer; ``(reply, seconds taken)``.

        The first message read must be the answer: anything else, including a late or
        duplicate answer to an earlier request, is a protocol fault.

        :raises BotError: timeout, closed stream, or a reply that is not the answer.
        """
        request.request_id = self._next_request
        self.last_request_id = self._next_request
        self._next_request += 1
        await self.flush()
        if self._broken is not None:
            raise self._broken
        if self.closed or self.context is None:
            raise BotCrashed("the stream to the bot is closed")
        context = self.context
        start = time.perf_counter()
        await self._write(arena_pb2.RefereeMessage(decision_request=request))
        try:
            # asyncio.timeout, unlike wait_for, adds no task switch to the round trip.
            async with asyncio.timeout(deadline_s):
                item = await context.read()
        except TimeoutError:
            raise BotTimeout(f"no answer in {deadline_s * 1000:.0f} ms") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # every wire failure becomes one fault, here
            raise _wire_error(exc) from None
        elapsed = time.perf_counter() - start
        if item is grpc.aio.EOF:
            raise await self._end_of_stream()
        if isinstance(item, BotError):
            raise item
        if not isinstance(item, arena_pb2.BotMessage) or item.WhichOneof("message") is None:
            raise BotProtocolError("an empty or unreadable message")
        kind = item.WhichOneof("message")
        if kind == "hello":
            raise BotProtocolError("a second Hello on the stream instead of an answer")
        if kind != "action_reply":
            raise BotProtocolError(f"expected an action_reply, got {_describe(item)}")
        reply = item.action_reply
        if reply.request_id != request.request_id:
            raise BotProtocolError(
                f"answer names request {reply.request_id}, the pending request is "
                f"{request.request_id} (a duplicate, late or misaddressed answer)"
            )
        return reply, elapsed

    async def _end_of_stream(self) -> BotCrashed:
        """What an end of stream before the answer was.

        A bot that half-closes its side leaves the call open; a message over
        :data:`MAX_MESSAGE_BYTES` makes gRPC cut the call (RESOURCE_EXHAUSTED to the bot,
        only an end of stream to the referee), as a cancelled call or a lost connection
        does: gRPC's server API does not tell these apart, so the match words the fault
        (:func:`arena.referee.match.cut_detail`).
        """
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ended.wait(), 0.2)
        self.closed = True
        if not self.ended.is_set():
            return BotCrashed("the bot closed its stream instead of answering")
        return BotStreamCut(
            f"the stream was cut before an answer (a message over the "
            f"{MAX_MESSAGE_BYTES >> 20} MiB limit, or the bot cancelled its call)"
        )


def _describe(message: arena_pb2.BotMessage) -> str:
    kind = message.WhichOneof("message")
    if kind == "action_reply":
        return f"action_reply for request {message.action_reply.request_id}"
    return kind or "empty message"


class RefereeService(arena_pb2_grpc.RefereeServicer):
    """The ``arena.v1.Referee`` service."""

    def __init__(self, hello_timeout_s: float = HELLO_TIMEOUT_S) -> None:
        self.hello_timeout_s = hello_timeout_s
        self._pending: dict[str, Session] = {}
        self.refused: deque[str] = deque(maxlen=REFUSALS_KEPT)
        """The latest refused streams, one line each (bad token, token reused, ...); a
        flood of streams keeps this bounded, the counts go on."""
        self.refused_at: Counter[int | None] = Counter()
        """Refused streams per door (a seat; ``None``: the shared listener)."""

    def open_session(
        self, seat: int, welcome: arena_pb2.Welcome, door: int | None = None
    ) -> Session:
        """A new session for *seat* with a fresh one-time token, valid only at *door*
        (the seat's own door; ``None``: the shared listener)."""
        session = Session(seat=seat, token=secrets.token_urlsafe(24), welcome=welcome, door=door)
        self._pending[session.token] = session
        return session

    def forget(self, session: Session) -> None:
        """Withdraw a token that was never used."""
        self._pending.pop(session.token, None)

    async def Play(  # noqa: N802 - the gRPC method name
        self,
        request_iterator: object,
        context: grpc.aio.ServicerContext[arena_pb2.BotMessage, arena_pb2.RefereeMessage],
    ) -> None:
        """Admit a bot on its Hello, then keep the call open until the referee closes it."""
        await self.play(request_iterator, context, None)

    def door_handler(self, door: int) -> _Handler:
        """``Play`` as served at the door of seat *door*."""

        async def play(
            request_iterator: object,
            context: grpc.aio.ServicerContext[arena_pb2.BotMessage, arena_pb2.RefereeMessage],
        ) -> None:
            await self.play(request_iterator, context, door)

        return play

    async def play(
        self,
        request_iterator: object,
        context: grpc.aio.ServicerContext[arena_pb2.BotMessage, arena_pb2.RefereeMessage],
        door: int | None,
    ) -> None:
        """Admit a bot at *door* on its Hello, then keep the call open until the referee
        closes it."""
        del request_iterator  # messages are read with context.read() by Session.ask
        session = await self._admit(context, door)
        if session is None:
            return
        session.context = context
        context.add_done_callback(lambda _context: session.ended.set())
        await context.write(arena_pb2.RefereeMessage(welcome=session.welcome))
        session.connected.set()
        await session.finished.wait()
        await session.flush()  # what was sent before close(): GameEnd, MatchEnd, a Fault

    def _refuse(self, door: int | None, why: str) -> None:
        self.refused.append(why if door is None else f"seat {door}: {why}")
        self.refused_at[door] += 1

    async def _admit(
        self,
        context: grpc.aio.ServicerContext[arena_pb2.BotMessage, arena_pb2.RefereeMessage],
        door: int | None = None,
    ) -> Session | None:
        try:
            first = await asyncio.wait_for(context.read(), self.hello_timeout_s)
        except (TimeoutError, grpc.aio.AioRpcError, Exception) as exc:
            self._refuse(door, f"no hello: {type(exc).__name__}")
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "expected Hello first")
            return None
        if (
            first is grpc.aio.EOF
            or not isinstance(first, arena_pb2.BotMessage)
            or (first.WhichOneof("message") != "hello")
        ):
            self._refuse(door, "first message was not a Hello")
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be Hello")
            return None
        hello = first.hello
        session = self._pending.get(hello.token)
        # A token is good once, and only at its own door: a token shown anywhere else
        # stays valid for its bot.
        if session is None or session.door != door:
            self._refuse(door, "unknown or already used token")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or already used token")
            return None
        del self._pending[hello.token]
        if hello.protocol_version != PROTOCOL_VERSION:
            session.inbox.put_nowait(
                BotStartupError(f"speaks protocol {hello.protocol_version}, not {PROTOCOL_VERSION}")
            )
            session.closed = True
            session.connected.set()
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"this referee speaks protocol {PROTOCOL_VERSION}",
            )
            return None
        session.hello = hello
        return session


def _wire_error(exc: Exception) -> BotError:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "deserializ" in text.lower() or "parse" in text.lower():
        return BotProtocolError(f"sent bytes that are not a BotMessage ({text[:120]})")
    return BotCrashed(f"the stream broke ({text[:120]})")


def _deserialize(data: bytes) -> arena_pb2.BotMessage | BotProtocolError:
    """Decode a bot message; garbage becomes a value the reader reports, not a crash."""
    try:
        return arena_pb2.BotMessage.FromString(data)
    except Exception as exc:  # protobuf raises DecodeError and friends
        return BotProtocolError(f"sent bytes that are not a BotMessage ({type(exc).__name__})")


class RefereeServer:
    """The referee's gRPC servers: a shared listener (remote bots, callers that dial one
    address) and a door per seat for bot processes, each with the standard health service.
    """

    def __init__(self, hello_timeout_s: float = HELLO_TIMEOUT_S) -> None:
        self.service = RefereeService(hello_timeout_s)
        self._server: grpc.aio.Server | None = None
        self._doors: dict[int, tuple[grpc.aio.Server, str]] = {}
        self._directory: Path | None = None
        self.address = ""

    @property
    def directory(self) -> Path:
        """A private directory for the unix sockets (made on first use, removed by stop)."""
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="arena-"))
        return self._directory

    def _grpc_server(self, connections: int, play: _Handler) -> grpc.aio.Server:
        handshake_ms = max(1000, int(self.service.hello_timeout_s * 1000))
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.so_reuseport", 0),
                ("grpc.max_allowed_incoming_connections", connections),
                ("grpc.max_concurrent_streams", DOOR_STREAMS),
                ("grpc.server_handshake_timeout_ms", handshake_ms),
            ]
        )
        handler = grpc.method_handlers_generic_handler(
            SERVICE_NAME,
            {
                "Play": grpc.stream_stream_rpc_method_handler(
                    play,
                    request_deserializer=_deserialize,
                    response_serializer=arena_pb2.RefereeMessage.SerializeToString,
                )
            },
        )
        server.add_generic_rpc_handlers((handler,))
        return server

    @staticmethod
    async def _serve(server: grpc.aio.Server) -> None:
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        await server.start()
        await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)

    async def start(self, bind: str) -> str:
        """Listen on *bind* (``unix:/path`` or ``host:port``, port 0 = any); the address
        bots should dial.
        """
        server = self._grpc_server(SHARED_CONNECTIONS, self.service.Play)
        port = server.add_insecure_port(bind)
        if not bind.startswith("unix:") and port == 0:
            raise OSError(f"cannot listen on {bind}")
        await self._serve(server)
        self._server = server
        if bind.startswith("unix:"):
            path = bind.removeprefix("unix:").removeprefix("//")
            self.address = f"unix://{path}" if path.startswith("/") else bind
        else:
            host = bind.rsplit(":", 1)[0]
            self.address = f"{host}:{port}"
        return self.address

    async def door(self, seat: int) -> str:
        """The address of *seat*'s own door (opened on first use): a unix socket with an
        unguessable name, at most :data:`DOOR_CONNECTIONS` connections at once."""
        if seat not in self._doors:
            path = self.directory / f"seat{seat}-{secrets.token_hex(8)}.sock"
            server = self._grpc_server(DOOR_CONNECTIONS, self.service.door_handler(seat))
            server.add_insecure_port(f"unix:{path}")
            await self._serve(server)
            self._doors[seat] = (server, f"unix://{path}")
        return self._doors[seat][1]

    def refused(self, seat: int) -> int:
        """Streams refused so far at *seat*'s door."""
        return self.service.refused_at[seat]

    async def stop(self, grace_s: float = 1.0) -> None:
        """Stop accepting bots and end every stream after *grace_s*."""
        servers = [door for door, _ in self._doors.values()]
        if self._server is not None:
            servers.append(self._server)
        self._server = None
        self._doors.clear()
        await asyncio.gather(*(server.stop(grace_s) for server in servers))
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None


__all__ = [
    "PROTOCOL_VERSION",
    "RefereeServer",
    "RefereeService",
    "Session",
    "check_descriptors",
    "describe_limits",
    "descriptors_needed",
    "reserve_descriptors",
]
