"""Token admission: the ``arena.v1.Referee`` service that lets a bot's stream in.

The referee hands each bot a one-time token (:meth:`RefereeService.open_session`); a
stream is admitted only if its first message is a Hello carrying a token still pending
for the door the stream arrived at, and speaking this referee's protocol version. Every
other stream is refused with a gRPC status and counted against its door, so a flood is
visible in the records. Kept apart from the servers (:mod:`arena.referee.wire.doors`), which
decide where and how many connections arrive, and from the admitted stream itself
(:mod:`arena.referee.wire.session`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from typing import TypeAlias

import grpc

from arena.protocol.convert import PROTOCOL_VERSION
from arena.referee.errors import BotStartupError
from arena.referee.wire.session import Session
from arena.v1 import arena_pb2, arena_pb2_grpc

HELLO_TIMEOUT_S = 10.0
"""Default time an open stream has to send its Hello (the match passes its startup limit)."""
REFUSALS_KEPT = 256
"""Lines kept of the latest refused streams."""
Handler: TypeAlias = Callable[
    [object, "grpc.aio.ServicerContext[arena_pb2.BotMessage, arena_pb2.RefereeMessage]"],
    Awaitable[None],
]
"""A ``Play`` method as a gRPC server calls it (the shared one or a door's)."""


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

    def door_handler(self, door: int) -> Handler:
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
