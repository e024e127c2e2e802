"""The match, game and hand events on the wire: the bot's ``Hello`` and the referee's
``Welcome``, ``GameStart``, ``HandEnd`` and ``GameEnd``, with the value types the SDK hands
to bots for them (these messages have no engine counterpart).

:func:`hand_end_from_log` is the one function here that reads the engine's own log of a
hand; it copies only the fields docs/rules.md 6 makes public.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.ending import GameResult
from arena.game.observation import HandSummary, TrickView
from arena.game.rules import RuleSet
from arena.game.state import HandLog, Seat
from arena.protocol.faults import Fault, fault_from_proto, fault_to_proto
from arena.protocol.observations import (
    RULES,
    SUMMARIES,
    TRICKS,
    game_result_from_proto,
    game_result_to_proto,
    hand_summary_to_proto,
    trick_to_proto,
)
from arena.protocol.rules import rules_to_proto
from arena.protocol.wire import PROTOCOL_VERSION, ProtocolError, decode_seat
from arena.v1 import arena_pb2 as pb


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The limits the referee enforces on every decision (``arena.v1.TimeControl``)."""

    decision_ms: int
    """Per-decision allowance in milliseconds, fresh for every request."""
    bank_ms: int
    """Time bank in milliseconds at the start of each game; 0 for none."""


@dataclass(frozen=True, slots=True)
class Welcome:
    """The referee's answer to ``Hello``."""

    seat: Seat
    """The seat the bot's token is bound to."""
    match_id: str
    """Opaque match id, for logs."""
    games_in_match: int
    """Games planned in the match."""
    time_control: TimeControl
    """The time control of every decision."""
    protocol_version: int = PROTOCOL_VERSION
    """The protocol version the referee speaks."""
    referee_version: str = ""
    """Free-form referee software version, for logs."""


@dataclass(frozen=True, slots=True)
class GameStart:
    """A game of the match begins."""

    game_id: str
    """Opaque game id (the game record's name)."""
    game_number: int
    """The game's number in the match, from 1."""
    games_in_match: int
    """Games planned in the match."""
    rules: RuleSet
    """The full rules of the game."""
    seat: Seat
    """The receiving bot's seat in this game."""
    first_dealer: Seat
    """The seat that deals hand 1."""
    players: tuple[str, str, str]
    """Per seat, ``name@version`` of the player in that seat."""
    time_control: TimeControl
    """The time control of this game; the bank is refilled at the start of each game."""


@dataclass(frozen=True, slots=True)
class HandEnd:
    """The public end of a hand: its summary and all 16 tricks."""

    summary: HandSummary
    """Number, dealer, contracts, trump, tricks won, deltas and cumulative scores."""
    tricks: tuple[TrickView, ...]
    """The hand's tricks in order, each with its winner."""


@dataclass(frozen=True, slots=True)
class GameEnd:
    """A game is over."""

    game_id: str
    """The game id of :class:`GameStart`."""
    result: GameResult
    """Winners, reason, final scores and hands played."""
    faults: tuple[Fault, ...] = ()
    """The faults recorded against the receiving bot's seat in this game."""


def hello_to_proto(token: str, bot_name: str, bot_version: str) -> pb.Hello:
    """The bot's first message, speaking :data:`~arena.protocol.wire.PROTOCOL_VERSION`."""
    return pb.Hello(
        token=token,
        bot_name=bot_name,
        bot_version=bot_version,
        protocol_version=PROTOCOL_VERSION,
    )


def time_control_to_proto(time_control: TimeControl) -> pb.TimeControl:
    """The wire form of a time control."""
    return pb.TimeControl(decision_ms=time_control.decision_ms, bank_ms=time_control.bank_ms)


def time_control_from_proto(msg: pb.TimeControl) -> TimeControl:
    """Decode a time control."""
    return TimeControl(decision_ms=msg.decision_ms, bank_ms=msg.bank_ms)


def welcome_to_proto(welcome: Welcome) -> pb.Welcome:
    """The referee's answer to an accepted Hello."""
    return pb.Welcome(
        seat=welcome.seat,
        protocol_version=welcome.protocol_version,
        match_id=welcome.match_id,
        games_in_match=welcome.games_in_match,
        time_control=time_control_to_proto(welcome.time_control),
        referee_version=welcome.referee_version,
    )


def welcome_from_proto(msg: pb.Welcome) -> Welcome:
    """Decode a Welcome (the SDK's side).

    :raises ProtocolError: if the seat is not 0-2.
    """
    return Welcome(
        seat=decode_seat(msg.seat, "welcome.seat"),
        match_id=msg.match_id,
        games_in_match=msg.games_in_match,
        time_control=time_control_from_proto(msg.time_control),
        protocol_version=msg.protocol_version,
        referee_version=msg.referee_version,
    )


def game_start_to_proto(start: GameStart) -> pb.GameStart:
    """The message that opens a game for one seat."""
    return pb.GameStart(
        game_id=start.game_id,
        game_number=start.game_number,
        games_in_match=start.games_in_match,
        rules=rules_to_proto(start.rules),
        seat=start.seat,
        first_dealer=start.first_dealer,
        players=start.players,
        time_control=time_control_to_proto(start.time_control),
    )


def game_start_from_proto(msg: pb.GameStart) -> GameStart:
    """Decode a GameStart (the SDK's side).

    :raises ProtocolError: if a field is malformed.
    """
    if not msg.HasField("rules"):
        raise ProtocolError("game_start.rules is not set")
    if len(msg.players) != 3:
        raise ProtocolError(f"game_start.players: expected 3 names, got {len(msg.players)}")
    return GameStart(
        game_id=msg.game_id,
        game_number=msg.game_number,
        games_in_match=msg.games_in_match,
        rules=RULES(msg.rules, "game_start.rules"),  # the observations' rules, decoded once
        seat=decode_seat(msg.seat, "game_start.seat"),
        first_dealer=decode_seat(msg.first_dealer, "game_start.first_dealer"),
        players=(msg.players[0], msg.players[1], msg.players[2]),
        time_control=time_control_from_proto(msg.time_control),
    )


def hand_end_from_log(hand: HandLog) -> HandEnd:
    """The public end of a scored hand, from the engine's log of it.

    It copies only fields docs/rules.md 6 makes public (dealer, contracts, trump, every trick,
    tricks won, deltas, scores) and never the deal, kitty, exchange cards or discards, so
    the same message may go to all three seats.

    :raises ValueError: if the hand is not finished and scored.
    """
    if hand.trump is None or hand.deltas is None or hand.scores is None:
        raise ValueError(f"hand {hand.number} is not finished and scored")
    summary = HandSummary(
        number=hand.number,
        dealer=hand.dealer,
        contracts=hand.contracts,
        trump=hand.trump,
        tricks_won=(hand.tricks_won[0], hand.tricks_won[1], hand.tricks_won[2]),
        deltas=hand.deltas,
        scores=hand.scores,
    )
    tricks = tuple(TrickView(t.leader, t.cards, t.winner) for t in hand.tricks)
    return HandEnd(summary, tricks)


def hand_end_to_proto(end: HandEnd) -> pb.HandEnd:
    """The wire form of a hand's end."""
    return pb.HandEnd(
        summary=hand_summary_to_proto(end.summary),
        tricks=[trick_to_proto(t) for t in end.tricks],
    )


def hand_end_from_proto(msg: pb.HandEnd) -> HandEnd:
    """Decode a HandEnd (the SDK's side).

    :raises ProtocolError: if a field is malformed.
    """
    if not msg.HasField("summary"):
        raise ProtocolError("hand_end.summary is not set")
    # The tricks are the ones the seat's observations carried, the summary the next
    # observations' history: the same caches decode each once.
    return HandEnd(
        summary=SUMMARIES(msg.summary, "hand_end.summary"),
        tricks=TRICKS.each(msg.tricks, "hand_end.tricks"),
    )


def game_end_to_proto(end: GameEnd) -> pb.GameEnd:
    """The message that closes a game for one seat (with that seat's faults only)."""
    return pb.GameEnd(
        game_id=end.game_id,
        result=game_result_to_proto(end.result),
        faults=[fault_to_proto(f) for f in end.faults],
    )


def game_end_from_proto(msg: pb.GameEnd) -> GameEnd:
    """Decode a GameEnd (the SDK's side).

    :raises ProtocolError: if a field is malformed.
    """
    if not msg.HasField("result"):
        raise ProtocolError("game_end.result is not set")
    return GameEnd(
        game_id=msg.game_id,
        result=game_result_from_proto(msg.result, "game_end.result"),
        faults=tuple(
            fault_from_proto(f, f"game_end.faults[{i}]") for i, f in enumerate(msg.faults)
        ),
    )
