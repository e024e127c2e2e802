"""One admitted bot stream, and the one place wire failures become bot faults.

A :class:`Session` is created with a one-time token before its bot starts
(:meth:`arena.referee.wire.admission.RefereeService.open_session`) and attached to the gRPC
call when the bot's Hello is admitted. The referee writes to the stream and reads the
answer to each request itself. Everything that can go wrong on the wire — a closed
stream, an undecodable message, a cancelled call — is converted here, once, into a
:class:`~arena.referee.errors.BotError` raised by :meth:`Session.ask`; the match never
sees grpc (docs/style.md 15). Kept apart from admission and the servers because this is the
referee's hot path: every decision of every game goes through :meth:`Session.ask`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

import grpc

from arena.referee.errors import BotCrashed, BotError, BotProtocolError, BotStreamCut, BotTimeout
from arena.v1 import arena_pb2

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
        self,
        request: arena_pb2.DecisionRequest | arena_pb2.RefereeMessage,
        deadline_s: float,
    ) -> tuple[arena_pb2.ActionReply, float]:
        """Send a decision request and wait for its answer; ``(reply, seconds taken)``.

        *request* is a DecisionRequest, or the RefereeMessage that already holds it
        (:func:`arena.protocol.decisions.request_message`), which spares a copy of the whole
        observation on every decision. Its ``request_id`` is set here. The first message
        read must be the answer: anything else, including a late or duplicate answer to an
        earlier request, is a protocol fault.

        :raises BotError: timeout, closed stream, or a reply that is not the answer.
        """
        if isinstance(request, arena_pb2.RefereeMessage):
            message = request
        else:
            message = arena_pb2.RefereeMessage(decision_request=request)
        request_id = self._next_request
        message.decision_request.request_id = request_id
        self.last_request_id = request_id
        self._next_request += 1
        if self._writes is not None and not self._writes.done():
            await self.flush()  # GameStart, HandEnd: written before the request, in order
        if self._broken is not None:
            raise self._broken
        context = self.context
        if self.closed or context is None:
            raise BotCrashed("the stream to the bot is closed")
        start = time.perf_counter()
        try:
            # Written here and read in the same coroutine, like a bare ping-pong: no queue
            # or task between the referee and gRPC. asyncio.timeout, unlike wait_for, adds
            # no task switch to the round trip.
            async with asyncio.timeout(deadline_s):
                await context.write(message)
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
        return _answer(item, request_id), elapsed

    async def _end_of_stream(self) -> BotCrashed:
        """What an end of stream before the answer was.

        A bot that half-closes its side leaves the call open; a message over
        :data:`MAX_MESSAGE_BYTES` makes gRPC cut the call (RESOURCE_EXHAUSTED to the bot,
        only an end of stream to the referee), as a cancelled call or a lost connection
        does: gRPC's server API does not tell these apart, so the match words the fault
        (:func:`arena.referee.faults.cut_detail`).
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


def _answer(item: object, request_id: int) -> arena_pb2.ActionReply:
    """The reply in *item*, read off the stream while request *request_id* was pending.

    :raises BotError: the reader's own error, or anything but the answer to that request.
    """
    if isinstance(item, BotError):
        raise item
    if not isinstance(item, arena_pb2.BotMessage):
        raise BotProtocolError("an empty or unreadable message")
    kind = item.WhichOneof("message")
    if kind == "action_reply":
        reply = item.action_reply
        if reply.request_id != request_id:
            raise BotProtocolError(
                f"answer names request {reply.request_id}, the pending request is "
                f"{request_id} (a duplicate, late or misaddressed answer)"
            )
        return reply
    if kind is None:
        raise BotProtocolError("an empty or unreadable message")
    if kind == "hello":
        raise BotProtocolError("a second Hello on the stream instead of an answer")
    raise BotProtocolError(f"expected an action_reply, got {_describe(item)}")


def _describe(message: arena_pb2.BotMessage) -> str:
    kind = message.WhichOneof("message")
    if kind == "action_reply":
        return f"action_reply for request {message.action_reply.request_id}"
    return kind or "empty message"


def _wire_error(exc: Exception) -> BotError:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "deserializ" in text.lower() or "parse" in text.lower():
        return BotProtocolError(f"sent bytes that are not a BotMessage ({text[:120]})")
    return BotCrashed(f"the stream broke ({text[:120]})")


def deserialize(data: bytes) -> arena_pb2.BotMessage | BotProtocolError:
    """Decode a bot message; garbage becomes a value the reader reports, not a crash."""
    try:
        return arena_pb2.BotMessage.FromString(data)
    except Exception as exc:  # protobuf raises DecodeError and friends
        return BotProtocolError(f"sent bytes that are not a BotMessage ({type(exc).__name__})")
