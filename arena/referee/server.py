"""The referee's gRPC service: admits bots by one-time token and carries their streams.

Each admitted stream becomes a :class:`Session`: the referee writes to it and reads the
answer to each request itself. Everything that can go wrong on the wire — a closed stream,
an undecodable message, a cancelled call — is converted here, once, into a
:class:`~arena.referee.errors.BotError` raised by :meth:`Session.ask`; the match never
sees grpc.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.protocol.convert import PROTOCOL_VERSION
from arena.referee.errors import (
    BotCrashed,
    BotError,
    BotProtocolError,
    BotStartupError,
    BotTimeout,
)
from arena.v1 import arena_pb2, arena_pb2_grpc

LOGGER = logging.getLogger(__name__)

SERVICE_NAME = "arena.v1.Referee"
HELLO_TIMEOUT_S = 10.0
"""Default time an open stream has to send its Hello (the match passes its startup limit)."""
MAX_MESSAGE_BYTES = 1 << 20
"""Largest message a bot may send; a flood of bigger ones is refused by gRPC itself."""


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
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
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
            raise BotCrashed("the bot closed its stream")
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
        self.refused: list[str] = []
        """One line per refused connection attempt (bad token, token reused, ...)."""

    def open_session(self, seat: int, welcome: arena_pb2.Welcome) -> Session:
        """A new session for *seat* with a fresh one-time token."""
        session = Session(seat=seat, token=secrets.token_urlsafe(24), welcome=welcome)
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
        del request_iterator  # messages are read with context.read() by Session.ask
        session = await self._admit(context)
        if session is None:
            return
        session.context = context
        await context.write(arena_pb2.RefereeMessage(welcome=session.welcome))
        session.connected.set()
        await session.finished.wait()
        await session.flush()  # what was sent before close(): GameEnd, MatchEnd, a Fault

    async def _admit(
        self, context: grpc.aio.ServicerContext[arena_pb2.BotMessage, arena_pb2.RefereeMessage]
    ) -> Session | None:
        try:
            first = await asyncio.wait_for(context.read(), self.hello_timeout_s)
        except (TimeoutError, grpc.aio.AioRpcError, Exception) as exc:
            self.refused.append(f"no hello: {type(exc).__name__}")
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "expected Hello first")
            return None
        if (
            first is grpc.aio.EOF
            or not isinstance(first, arena_pb2.BotMessage)
            or (first.WhichOneof("message") != "hello")
        ):
            self.refused.append("first message was not a Hello")
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be Hello")
            return None
        hello = first.hello
        session = self._pending.pop(hello.token, None)
        if session is None:
            self.refused.append("unknown or already used token")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or already used token")
            return None
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
    """A grpc.aio server hosting the referee service and the standard health service."""

    def __init__(self, hello_timeout_s: float = HELLO_TIMEOUT_S) -> None:
        self.service = RefereeService(hello_timeout_s)
        self._server: grpc.aio.Server | None = None
        self.address = ""

    async def start(self, bind: str) -> str:
        """Listen on *bind* (``unix:/path`` or ``host:port``, port 0 = any); the address
        bots should dial.
        """
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.so_reuseport", 0),
            ]
        )
        handler = grpc.method_handlers_generic_handler(
            SERVICE_NAME,
            {
                "Play": grpc.stream_stream_rpc_method_handler(
                    self.service.Play,
                    request_deserializer=_deserialize,
                    response_serializer=arena_pb2.RefereeMessage.SerializeToString,
                )
            },
        )
        server.add_generic_rpc_handlers((handler,))
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        port = server.add_insecure_port(bind)
        if not bind.startswith("unix:") and port == 0:
            raise OSError(f"cannot listen on {bind}")
        await server.start()
        await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        if bind.startswith("unix:"):
            path = bind.removeprefix("unix:").removeprefix("//")
            self.address = f"unix://{path}" if path.startswith("/") else bind
        else:
            host = bind.rsplit(":", 1)[0]
            self.address = f"{host}:{port}"
        return self.address

    async def stop(self, grace_s: float = 1.0) -> None:
        """Stop accepting bots and end every stream after *grace_s*."""
        if self._server is not None:
            await self._server.stop(grace_s)
            self._server = None


__all__ = ["PROTOCOL_VERSION", "RefereeServer", "RefereeService", "Session"]
