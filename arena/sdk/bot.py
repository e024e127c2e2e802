"""The :class:`Bot` base class and its connection loop.

:meth:`Bot.run` reads ``ARENA_ADDRESS`` and ``ARENA_TOKEN`` (set by the referee), opens
the one bidirectional stream of the protocol (docs/protocol.md), and turns each decision
request into a call of :meth:`give`, :meth:`trump`, :meth:`discard` or :meth:`play` with
a typed :class:`~arena.sdk.turn.Turn` (the seat's observation, its ``request`` always
set). Decisions a bot does not override are taken by the built-in greedy policy, so a
bot can start with one method. Greedy is a baseline, not advice: it plays low once its
contract is made, yet a hand scores tricks won minus contract, so every trick over the
contract is a point it gives away. A bot is also an :class:`arena.game.policies.Policy`
(:meth:`Bot.act`), so it plays in process too (:func:`arena.sdk.play_locally`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc

from arena.game import CallTrump, Card, DecisionKind, Discard, Give, Observation, Play, Trump
from arena.game.actions import Decision
from arena.game.policies import GreedyPolicy
from arena.protocol import convert
from arena.protocol.wire import OUTPUT_MARK
from arena.sdk.turn import Turn
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc

LOGGER = logging.getLogger(__name__)


class BotRunError(RuntimeError):
    """The bot could not connect or the referee refused it."""


@dataclass(frozen=True)
class Clock:
    """The time left for the decision being asked, as the referee sent it with the request
    (``DecisionRequest.clock``). A bot that searches plans within it: the referee's limit
    is ``decision_ms`` plus ``bank_ms`` plus a small transport grace, measured from when
    it sent the request (docs/protocol.md)."""

    decision_ms: int
    """Milliseconds of this decision's own allowance (the time control's ``decision``)."""
    bank_ms: int
    """Milliseconds left in the game's bank, spent only once ``decision_ms`` runs out."""


class Bot:
    """Base class of a bot. Override the decisions; each receives the seat's observation."""

    name: str = "bot"
    """Shown as ``name@version`` in records; the referee's manifest name wins in records."""
    version: str = "0"

    def __init__(self) -> None:
        self.seat: int | None = None
        self.clock: Clock | None = None
        """The :class:`Clock` of the request being decided (``None`` before the first):
        set before each call of :meth:`decide`, so any decision method may read it."""
        self._fallback = GreedyPolicy()

    # -- decisions ------------------------------------------------------------------------

    def give(self, obs: Turn) -> Give:
        """Cards to give, one tuple per leg of ``obs.request.give_legs``."""
        decision = self._fallback.act(obs)
        assert isinstance(decision, Give)
        return decision

    def trump(self, obs: Turn) -> CallTrump | Trump:
        """The trump call, one of ``obs.request.trump_options``."""
        decision = self._fallback.act(obs)
        assert isinstance(decision, CallTrump)
        return decision

    def discard(self, obs: Turn) -> Discard:
        """Four of the 20 cards in ``obs.request.cards``."""
        decision = self._fallback.act(obs)
        assert isinstance(decision, Discard)
        return decision

    def play(self, obs: Turn) -> Play | Card:
        """One of the legal cards in ``obs.request.cards``.

        Not overridden: the greedy policy's card, which chases tricks until the contract
        is made and then ducks. Every trick over the contract is worth a point (a hand
        scores tricks won minus contract, docs/rules.md 1.7), so a bot that overrides this
        should keep winning tricks once its contract is made.
        """
        decision = self._fallback.act(obs)
        assert isinstance(decision, Play)
        return decision

    # -- events (optional) ----------------------------------------------------------------

    def on_game_start(self, start: convert.GameStart) -> None:
        """A game begins (rules, seat, players)."""

    def on_hand_end(self, end: convert.HandEnd) -> None:
        """A hand ended (public summary and tricks)."""

    def on_game_end(self, end: convert.GameEnd) -> None:
        """A game ended."""

    # -- running --------------------------------------------------------------------------

    def decide(self, obs: Observation) -> Decision:
        """Dispatch a request to the matching decision method, with *obs* as a :class:`Turn`.

        :raises ValueError: if *obs* has no request (its seat is not to act).
        """
        turn = Turn.of(obs)
        kind = turn.request.kind
        if kind is DecisionKind.PLAY:
            played = self.play(turn)
            return played if isinstance(played, Play) else Play(played)
        if kind is DecisionKind.TRUMP:
            called = self.trump(turn)
            return called if isinstance(called, CallTrump) else CallTrump(called)
        if kind is DecisionKind.DISCARD:
            return self.discard(turn)
        return self.give(turn)

    def act(self, observation: Observation) -> Decision:
        """:meth:`decide` under the name of :class:`arena.game.policies.Policy`: a bot is a
        policy, so ``arena.simulate.play_game`` and any loop over ``observe`` can seat it."""
        return self.decide(observation)

    def run(self, address: str | None = None, token: str | None = None) -> None:
        """Connect to the referee and play until the match ends.

        :raises BotRunError: if the address or token is missing or the referee refuses.
        """
        address = address or os.environ.get("ARENA_ADDRESS")
        token = token or os.environ.get("ARENA_TOKEN")
        if not address or not token:
            raise BotRunError("ARENA_ADDRESS and ARENA_TOKEN must be set (the referee sets them)")
        asyncio.run(self._run(address, token))

    async def _run(self, address: str, token: str) -> None:
        _mark_output()  # tells the referee this bot marks the end of each game's output
        outbox: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
        outbox.put_nowait(
            pb.BotMessage(hello=convert.hello_to_proto(token, self.name, self.version))
        )

        async def outgoing() -> AsyncIterator[pb.BotMessage]:
            while (message := await outbox.get()) is not None:
                yield message

        async with grpc.aio.insecure_channel(address) as channel:
            stub = arena_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            call = stub.Play(outgoing())
            try:
                async for message in call:
                    if not self._handle(message, outbox):
                        break
            except grpc.aio.AioRpcError as exc:
                if exc.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.INVALID_ARGUMENT,
                                  grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAVAILABLE):  # fmt: skip
                    raise BotRunError(f"the referee refused the bot: {exc.details()}") from None
                if exc.code() is not grpc.StatusCode.CANCELLED:
                    raise
            finally:
                outbox.put_nowait(None)

    def _handle(
        self, message: pb.RefereeMessage, outbox: asyncio.Queue[pb.BotMessage | None]
    ) -> bool:
        kind = message.WhichOneof("message")
        if kind == "welcome":
            self.seat = message.welcome.seat
        elif kind == "game_start":
            self.on_game_start(convert.game_start_from_proto(message.game_start))
        elif kind == "decision_request":
            request = convert.request_from_proto(message.decision_request)
            self.clock = Clock(request.decision_ms_left, request.bank_ms_left)
            decision = self.decide(request.observation)
            reply = pb.BotMessage()
            convert.decision_to_proto(decision, request.request_id, into=reply.action_reply)
            outbox.put_nowait(reply)
        elif kind == "hand_end":
            self.on_hand_end(convert.hand_end_from_proto(message.hand_end))
        elif kind == "game_end":
            self.on_game_end(convert.game_end_from_proto(message.game_end))
            _mark_output()
        elif kind == "match_end":
            return False
        elif kind == "fault":
            print(f"referee recorded a fault: {message.fault.detail}", file=sys.stderr)
        return True


def _mark_output() -> None:
    """Write :data:`OUTPUT_MARK` after everything written so far, on stdout and on stderr:
    all the bot printed for a game (its ``on_game_end`` included) is then charged to that
    game, at once, without the referee guessing from a quiet time."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
            stream.buffer.write(OUTPUT_MARK)
            stream.buffer.flush()
        except (AttributeError, OSError, ValueError):  # replaced or closed by the bot
            continue
