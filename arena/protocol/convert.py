"""Conversions between the engine's values and the ``arena.v1`` wire messages.

The referee and the Python SDK both go through this module, so the two sides of the wire
cannot drift apart: an :class:`~arena.game.observation.Observation` survives the trip to
protobuf and back unchanged (``tests/test_protocol_convert.py`` checks it at every decision
point of random games), and a bot written with the SDK sees the same typed values as the
built-in policies.

Direction matters for trust (STYLE.md 14). The ``*_to_proto`` functions take values the
engine built and may assume they are well formed. The ``*_from_proto`` functions read what
came over the wire: they check everything they decode (card texts, enum values, seat
numbers, list lengths, which variant is set) and raise :class:`ProtocolError` with a
one-line message, which the referee records as a ``protocol`` fault. Whether a well-formed
decision is *legal* is not decided here but by the engine (an ``illegal`` fault).

This module converts only what :func:`~arena.game.observation.observe` and the other public
results already chose to reveal; it never reads hidden state, except
:func:`hand_end_from_log`, which copies the public fields of a finished hand.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, TypeVar

from arena.game.actions import CallTrump, Decision, DecisionKind, Discard, Give, Play
from arena.game.cards import Card, InvalidCardError, Trump, card_texts
from arena.game.ending import EndReason, GameResult
from arena.game.observation import (
    HandSummary,
    LegView,
    Observation,
    Request,
    ShowView,
    TrickView,
)
from arena.game.rules import (
    FirstLeader,
    GiverPriority,
    NegativeRole,
    RuleSet,
    RuleSetError,
    Step,
    TieRule,
    WinnerRule,
)
from arena.game.state import HandLog, Phase, Seat
from arena.v1 import arena_pb2 as pb

LOGGER = logging.getLogger(__name__)

PROTOCOL_VERSION: Final = 1
"""The protocol version of ``protos/arena/v1/arena.proto`` (``Hello.protocol_version``)."""

DISCARD_SIZE: Final = 4
"""Cards in a whole discard decision (RULES.md 1.5): a reply with another count is malformed."""

_E = TypeVar("_E")
_QUOTE_LIMIT: Final = 8


class ProtocolError(ValueError):
    """A message from the wire that breaks the protocol: unreadable card text, no variant
    set, an unknown enum value, a list of the wrong length. The message is one line."""


class FaultKind(Enum):
    """Kinds of bot fault, with the texts of RECORD.md ``faults[].kind``."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL = "illegal"
    PROTOCOL = "protocol"
    STARTUP = "startup"


# ---------------------------------------------------------------------------------------
# Value types for the messages that have no engine counterpart (the SDK's side).
# ---------------------------------------------------------------------------------------


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
class DecisionRequest:
    """A decision request as the SDK hands it to a bot."""

    request_id: int
    """Echo it in the reply."""
    observation: Observation
    """The seat's complete information state; ``observation.request`` holds the options."""
    decision_ms_left: int
    """Milliseconds of the per-decision allowance."""
    bank_ms_left: int
    """Milliseconds left in the game's bank."""


@dataclass(frozen=True, slots=True)
class HandEnd:
    """The public end of a hand: its summary and all 16 tricks."""

    summary: HandSummary
    """Number, dealer, contracts, trump, tricks won, deltas and cumulative scores."""
    tricks: tuple[TrickView, ...]
    """The hand's tricks in order, each with its winner."""


@dataclass(frozen=True, slots=True)
class Fault:
    """A fault recorded against a bot (RECORD.md ``faults``), as told to that bot."""

    kind: FaultKind
    """What went wrong."""
    decision: DecisionKind | None
    """The decision being asked for; ``None`` for a startup fault."""
    hand: int
    """Hand number when it happened; 0 before the first hand."""
    detail: str
    """One line for humans."""
    autopilot: bool
    """True when the autopilot plays the seat for the rest of the game."""
    seat: Seat
    """The seat the fault is recorded against."""
    request_id: int = 0
    """The request concerned; 0 when none."""


@dataclass(frozen=True, slots=True)
class GameEnd:
    """A game is over."""

    game_id: str
    """The game id of :class:`GameStart`."""
    result: GameResult
    """Winners, reason, final scores and hands played."""
    faults: tuple[Fault, ...] = ()
    """The faults recorded against the receiving bot's seat in this game."""


# ---------------------------------------------------------------------------------------
# Enum tables: engine value <-> wire value. Each reverse table rejects what it lacks, so an
# UNSPECIFIED or unknown number from the wire never turns into a value silently.
# ---------------------------------------------------------------------------------------

_TRUMP: Final[Mapping[Trump, pb.Trump]] = {
    Trump.S: pb.TRUMP_S,
    Trump.H: pb.TRUMP_H,
    Trump.D: pb.TRUMP_D,
    Trump.C: pb.TRUMP_C,
    Trump.NT: pb.TRUMP_NT,
}
_KIND: Final[Mapping[DecisionKind, pb.DecisionKind]] = {
    DecisionKind.GIVE: pb.DECISION_KIND_GIVE,
    DecisionKind.TRUMP: pb.DECISION_KIND_TRUMP,
    DecisionKind.DISCARD: pb.DECISION_KIND_DISCARD,
    DecisionKind.PLAY: pb.DECISION_KIND_PLAY,
}
_PHASE: Final[Mapping[Phase, pb.Phase]] = {
    Phase.GIVE: pb.PHASE_GIVE,
    Phase.TRUMP: pb.PHASE_TRUMP,
    Phase.DISCARD: pb.PHASE_DISCARD,
    Phase.PLAY: pb.PHASE_PLAY,
    Phase.OVER: pb.PHASE_OVER,
}
# LegView.status is a string in the engine ("planned", "given", "done").
_LEG_STATUS: Final[Mapping[str, pb.LegStatus]] = {
    "planned": pb.LEG_STATUS_PLANNED,
    "given": pb.LEG_STATUS_GIVEN,
    "done": pb.LEG_STATUS_DONE,
}
_STEP: Final[Mapping[Step, pb.Step]] = {
    Step.TRUMP: pb.STEP_TRUMP,
    Step.KITTY: pb.STEP_KITTY,
    Step.EXCHANGE: pb.STEP_EXCHANGE,
    Step.GIVE: pb.STEP_GIVE,
    Step.RETURN: pb.STEP_RETURN,
}
_FIRST_LEADER: Final[Mapping[FirstLeader, pb.FirstLeader]] = {
    FirstLeader.LEFT_OF_DEALER: pb.FIRST_LEADER_LEFT_OF_DEALER,
    FirstLeader.DEALER: pb.FIRST_LEADER_DEALER,
}
_GIVER_PRIORITY: Final[Mapping[GiverPriority, pb.GiverPriority]] = {
    GiverPriority.UPCOMING_CONTRACT: pb.GIVER_PRIORITY_UPCOMING_CONTRACT,
    GiverPriority.MOST_OVERTRICKS: pb.GIVER_PRIORITY_MOST_OVERTRICKS,
}
_NEGATIVE_ROLE: Final[Mapping[NegativeRole, pb.NegativeRole]] = {
    NegativeRole.ENDS_GAME: pb.NEGATIVE_ROLE_ENDS_GAME,
    NegativeRole.OBJECTIVE: pb.NEGATIVE_ROLE_OBJECTIVE,
}
_WINNER_RULE: Final[Mapping[WinnerRule, pb.WinnerRule]] = {
    WinnerRule.HIGHEST: pb.WINNER_RULE_HIGHEST,
    WinnerRule.LARGEST_EXCESS: pb.WINNER_RULE_LARGEST_EXCESS,
}
_TIE_RULE: Final[Mapping[TieRule, pb.TieRule]] = {
    TieRule.EXTRA_HANDS: pb.TIE_RULE_EXTRA_HANDS,
    TieRule.DRAW: pb.TIE_RULE_DRAW,
    TieRule.POSITIVE_SIDE: pb.TIE_RULE_POSITIVE_SIDE,
}
_END_REASON: Final[Mapping[EndReason, pb.EndReason]] = {
    EndReason.TARGET: pb.END_REASON_TARGET,
    EndReason.NEGATIVE: pb.END_REASON_NEGATIVE,
    EndReason.OVERTIME: pb.END_REASON_OVERTIME,
    EndReason.DRAW: pb.END_REASON_DRAW,
    EndReason.CAPPED: pb.END_REASON_CAPPED,
}
_FAULT_KIND: Final[Mapping[FaultKind, pb.FaultKind]] = {
    FaultKind.TIMEOUT: pb.FAULT_KIND_TIMEOUT,
    FaultKind.CRASH: pb.FAULT_KIND_CRASH,
    FaultKind.ILLEGAL: pb.FAULT_KIND_ILLEGAL,
    FaultKind.PROTOCOL: pb.FAULT_KIND_PROTOCOL,
    FaultKind.STARTUP: pb.FAULT_KIND_STARTUP,
}


def _reverse(table: Mapping[_E, int]) -> dict[int, _E]:
    return {int(wire): value for value, wire in table.items()}


_TRUMP_BACK: Final = _reverse(_TRUMP)
_KIND_BACK: Final = _reverse(_KIND)
_PHASE_BACK: Final = _reverse(_PHASE)
_LEG_STATUS_BACK: Final = _reverse(_LEG_STATUS)
_STEP_BACK: Final = _reverse(_STEP)
_FIRST_LEADER_BACK: Final = _reverse(_FIRST_LEADER)
_GIVER_PRIORITY_BACK: Final = _reverse(_GIVER_PRIORITY)
_NEGATIVE_ROLE_BACK: Final = _reverse(_NEGATIVE_ROLE)
_WINNER_RULE_BACK: Final = _reverse(_WINNER_RULE)
_TIE_RULE_BACK: Final = _reverse(_TIE_RULE)
_END_REASON_BACK: Final = _reverse(_END_REASON)
_FAULT_KIND_BACK: Final = _reverse(_FAULT_KIND)


def _enum(table: Mapping[int, _E], value: int, where: str) -> _E:
    """Decode one wire enum value; UNSPECIFIED (0) and unknown numbers are protocol errors."""
    try:
        return table[value]
    except KeyError:
        raise ProtocolError(f"{where}: invalid enum value {value}") from None


# ---------------------------------------------------------------------------------------
# Small decoders with the checks every field needs.
# ---------------------------------------------------------------------------------------


def _card(text: str, where: str) -> Card:
    try:
        return Card.parse(text)
    except InvalidCardError:
        # Quote at most a few characters: the message becomes a one-line fault detail in
        # the game record, whatever a bot sent.
        shown = repr(text) if len(text) <= _QUOTE_LIMIT else f"{text[:_QUOTE_LIMIT]!r}..."
        raise ProtocolError(
            f"{where}: not a card: {shown} (expected rank 2-9TJQKA + suit SHDC, e.g. 'TS')"
        ) from None


def _cards(texts: Iterable[str], where: str) -> tuple[Card, ...]:
    return tuple(_card(text, f"{where}[{i}]") for i, text in enumerate(texts))


def _seat(value: int, where: str) -> Seat:
    if not 0 <= value <= 2:
        raise ProtocolError(f"{where}: seat must be 0, 1 or 2, not {value}")
    return value


def _triple(values: Sequence[int], where: str) -> tuple[int, int, int]:
    if len(values) != 3:
        raise ProtocolError(f"{where}: expected one value per seat (3), got {len(values)}")
    return (values[0], values[1], values[2])


def _trump_or_none(value: int, where: str) -> Trump | None:
    return None if value == pb.TRUMP_UNSPECIFIED else _enum(_TRUMP_BACK, value, where)


# ---------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------


def rules_to_proto(rules: RuleSet) -> pb.RuleSet:
    """Every RuleSet parameter as typed wire fields, so a bot needs no preset table."""
    msg = pb.RuleSet(
        name=rules.name,
        contracts=rules.contracts,
        allow_no_trump=rules.allow_no_trump,
        first_hand_steps=[_STEP[s] for s in rules.first_hand_steps],
        later_hand_steps=[_STEP[s] for s in rules.later_hand_steps],
        first_leader=_FIRST_LEADER[rules.first_leader],
        giver_priority=_GIVER_PRIORITY[rules.giver_priority],
        exchange_mandatory=rules.exchange_mandatory,
        dealer_show=rules.dealer_show,
        target=rules.target,
        negative_target=rules.negative_target,
        negative_role=(
            pb.NEGATIVE_ROLE_UNSPECIFIED
            if rules.negative_role is None
            else _NEGATIVE_ROLE[rules.negative_role]
        ),
        winner_rule=_WINNER_RULE[rules.winner_rule],
        tie_rule=_TIE_RULE[rules.tie_rule],
        max_hands=rules.max_hands,
        first_dealer=rules.first_dealer,
    )
    return msg


def rules_from_proto(msg: pb.RuleSet, where: str = "rules") -> RuleSet:
    """Rebuild a RuleSet through :meth:`RuleSet.from_json`, so the wire form gets exactly
    the validation a rules file gets.

    :raises ProtocolError: on an unknown enum value or a contradictory parameter set.
    """
    if not msg.name:
        raise ProtocolError(f"{where}.name is empty")
    negative_role = (
        None
        if msg.negative_role == pb.NEGATIVE_ROLE_UNSPECIFIED
        else _enum(_NEGATIVE_ROLE_BACK, msg.negative_role, f"{where}.negative_role").value
    )
    data: dict[str, Any] = {
        "contracts": list(msg.contracts),
        "allow_no_trump": msg.allow_no_trump,
        "first_hand_steps": [
            _enum(_STEP_BACK, s, f"{where}.first_hand_steps").value for s in msg.first_hand_steps
        ],
        "later_hand_steps": [
            _enum(_STEP_BACK, s, f"{where}.later_hand_steps").value for s in msg.later_hand_steps
        ],
        "first_leader": _enum(_FIRST_LEADER_BACK, msg.first_leader, f"{where}.first_leader").value,
        "giver_priority": _enum(
            _GIVER_PRIORITY_BACK, msg.giver_priority, f"{where}.giver_priority"
        ).value,
        "exchange_mandatory": msg.exchange_mandatory,
        "dealer_show": msg.dealer_show,
        "target": msg.target,
        "negative_target": msg.negative_target if msg.HasField("negative_target") else None,
        "negative_role": negative_role,
        "winner_rule": _enum(_WINNER_RULE_BACK, msg.winner_rule, f"{where}.winner_rule").value,
        "tie_rule": _enum(_TIE_RULE_BACK, msg.tie_rule, f"{where}.tie_rule").value,
        "max_hands": msg.max_hands,
        "first_dealer": msg.first_dealer if msg.HasField("first_dealer") else "random",
    }
    try:
        return RuleSet.from_json(data, name=msg.name)
    except RuleSetError as exc:
        raise ProtocolError(f"{where}: {exc}") from None


# ---------------------------------------------------------------------------------------
# Observation
# ---------------------------------------------------------------------------------------


def observation_to_proto(obs: Observation) -> pb.Observation:
    """The wire form of one seat's observation, field for field.

    Fields that are ``None`` in the observation (unknown to the seat, or not applicable)
    are left unset, which is how the wire tells "unknown" from "empty".
    """
    if (obs.previous_tricks is None) != (obs.previous_deltas is None):
        raise ValueError("previous_tricks and previous_deltas are set together or not at all")
    msg = pb.Observation(
        seat=obs.seat,
        ruleset=obs.ruleset,
        rules=rules_to_proto(obs.rules),
        hand_number=obs.hand_number,
        dealer=obs.dealer,
        contracts=obs.contracts,
        scores=obs.scores,
        dealt=card_texts(obs.dealt),
        hand=card_texts(obs.hand),
        exchange=[_leg_to_proto(leg) for leg in obs.exchange],
        trump=pb.TRUMP_UNSPECIFIED if obs.trump is None else _TRUMP[obs.trump],
        kitty_taken=obs.kitty_taken,
        kitty=None if obs.kitty is None else pb.CardList(cards=card_texts(obs.kitty)),
        shown=[pb.Show(to=s.to, cards=card_texts(s.cards)) for s in obs.shown],
        discard_done=obs.discard_done,
        discards=None if obs.discards is None else pb.CardList(cards=card_texts(obs.discards)),
        pending_give=card_texts(obs.pending_give),
        tricks=[_trick_to_proto(t) for t in obs.tricks],
        current_trick=None if obs.current_trick is None else _trick_to_proto(obs.current_trick),
        tricks_won=obs.tricks_won,
        phase=_PHASE[obs.phase],
        to_act=obs.to_act,
        request=None if obs.request is None else _request_to_proto(obs.request),
        history=[hand_summary_to_proto(h) for h in obs.history],
        result=None if obs.result is None else game_result_to_proto(obs.result),
    )
    if obs.previous_tricks is not None and obs.previous_deltas is not None:
        msg.previous_hand.tricks_won.extend(obs.previous_tricks)
        msg.previous_hand.deltas.extend(obs.previous_deltas)
    return msg


def observation_from_proto(msg: pb.Observation) -> Observation:
    """Rebuild the typed observation from its wire form (what the Python SDK gives bots).

    :raises ProtocolError: if any field is malformed.
    """
    if not msg.HasField("rules"):
        raise ProtocolError("observation.rules is not set")
    previous_tricks: tuple[int, int, int] | None = None
    previous_deltas: tuple[int, int, int] | None = None
    if msg.HasField("previous_hand"):
        previous = msg.previous_hand
        previous_tricks = _triple(previous.tricks_won, "observation.previous_hand.tricks_won")
        previous_deltas = _triple(previous.deltas, "observation.previous_hand.deltas")
    return Observation(
        seat=_seat(msg.seat, "observation.seat"),
        ruleset=msg.ruleset,
        rules=rules_from_proto(msg.rules, "observation.rules"),
        hand_number=msg.hand_number,
        dealer=_seat(msg.dealer, "observation.dealer"),
        contracts=_triple(msg.contracts, "observation.contracts"),
        scores=_triple(msg.scores, "observation.scores"),
        previous_tricks=previous_tricks,
        previous_deltas=previous_deltas,
        dealt=_cards(msg.dealt, "observation.dealt"),
        hand=_cards(msg.hand, "observation.hand"),
        exchange=tuple(
            _leg_from_proto(leg, f"observation.exchange[{i}]") for i, leg in enumerate(msg.exchange)
        ),
        trump=_trump_or_none(msg.trump, "observation.trump"),
        kitty_taken=msg.kitty_taken,
        kitty=_cards(msg.kitty.cards, "observation.kitty") if msg.HasField("kitty") else None,
        shown=tuple(
            ShowView(
                _seat(s.to, f"observation.shown[{i}].to"),
                _cards(s.cards, f"observation.shown[{i}].cards"),
            )
            for i, s in enumerate(msg.shown)
        ),
        discard_done=msg.discard_done,
        discards=(
            _cards(msg.discards.cards, "observation.discards") if msg.HasField("discards") else None
        ),
        pending_give=_cards(msg.pending_give, "observation.pending_give"),
        tricks=tuple(
            _trick_from_proto(t, f"observation.tricks[{i}]") for i, t in enumerate(msg.tricks)
        ),
        current_trick=(
            _trick_from_proto(msg.current_trick, "observation.current_trick")
            if msg.HasField("current_trick")
            else None
        ),
        tricks_won=_triple(msg.tricks_won, "observation.tricks_won"),
        phase=_enum(_PHASE_BACK, msg.phase, "observation.phase"),
        to_act=_seat(msg.to_act, "observation.to_act") if msg.HasField("to_act") else None,
        request=(
            _request_from_proto(msg.request, "observation.request")
            if msg.HasField("request")
            else None
        ),
        history=tuple(
            hand_summary_from_proto(h, f"observation.history[{i}]")
            for i, h in enumerate(msg.history)
        ),
        result=(
            game_result_from_proto(msg.result, "observation.result")
            if msg.HasField("result")
            else None
        ),
    )


def _leg_to_proto(leg: LegView) -> pb.Leg:
    return pb.Leg(
        index=leg.index,
        giver=leg.giver,
        receiver=leg.receiver,
        count=leg.count,
        status=_LEG_STATUS[leg.status],
        given=None if leg.given is None else pb.CardList(cards=card_texts(leg.given)),
        returned=None if leg.returned is None else pb.CardList(cards=card_texts(leg.returned)),
    )


def _leg_from_proto(msg: pb.Leg, where: str) -> LegView:
    return LegView(
        index=msg.index,
        giver=_seat(msg.giver, f"{where}.giver"),
        receiver=_seat(msg.receiver, f"{where}.receiver"),
        count=msg.count,
        status=_enum(_LEG_STATUS_BACK, msg.status, f"{where}.status"),
        given=_cards(msg.given.cards, f"{where}.given") if msg.HasField("given") else None,
        returned=(
            _cards(msg.returned.cards, f"{where}.returned") if msg.HasField("returned") else None
        ),
    )


def _trick_to_proto(trick: TrickView) -> pb.Trick:
    return pb.Trick(leader=trick.leader, cards=card_texts(trick.cards), winner=trick.winner)


def _trick_from_proto(msg: pb.Trick, where: str) -> TrickView:
    cards = _cards(msg.cards, f"{where}.cards")
    if len(cards) > 3:
        raise ProtocolError(f"{where}.cards: a trick has at most 3 cards, got {len(cards)}")
    return TrickView(
        leader=_seat(msg.leader, f"{where}.leader"),
        cards=cards,
        winner=_seat(msg.winner, f"{where}.winner") if msg.HasField("winner") else None,
    )


def _request_to_proto(request: Request) -> pb.Request:
    return pb.Request(
        kind=_KIND[request.kind],
        cards=card_texts(request.cards),
        trump_options=[_TRUMP[t] for t in request.trump_options],
        give_legs=[pb.GiveLeg(receiver=r, count=n) for r, n in request.give_legs],
        discard_count=request.discard_count,
    )


def _request_from_proto(msg: pb.Request, where: str) -> Request:
    return Request(
        kind=_enum(_KIND_BACK, msg.kind, f"{where}.kind"),
        cards=_cards(msg.cards, f"{where}.cards"),
        trump_options=tuple(
            _enum(_TRUMP_BACK, t, f"{where}.trump_options[{i}]")
            for i, t in enumerate(msg.trump_options)
        ),
        give_legs=tuple(
            (_seat(leg.receiver, f"{where}.give_legs[{i}].receiver"), leg.count)
            for i, leg in enumerate(msg.give_legs)
        ),
        discard_count=msg.discard_count,
    )


def hand_summary_to_proto(summary: HandSummary) -> pb.HandSummary:
    """The public result of one completed hand."""
    return pb.HandSummary(
        number=summary.number,
        dealer=summary.dealer,
        contracts=summary.contracts,
        trump=_TRUMP[summary.trump],
        tricks_won=summary.tricks_won,
        deltas=summary.deltas,
        scores=summary.scores,
    )


def hand_summary_from_proto(msg: pb.HandSummary, where: str = "summary") -> HandSummary:
    """Decode a completed hand's summary.

    :raises ProtocolError: if a field is malformed (a completed hand always has a trump).
    """
    return HandSummary(
        number=msg.number,
        dealer=_seat(msg.dealer, f"{where}.dealer"),
        contracts=_triple(msg.contracts, f"{where}.contracts"),
        trump=_enum(_TRUMP_BACK, msg.trump, f"{where}.trump"),
        tricks_won=_triple(msg.tricks_won, f"{where}.tricks_won"),
        deltas=_triple(msg.deltas, f"{where}.deltas"),
        scores=_triple(msg.scores, f"{where}.scores"),
    )


def game_result_to_proto(result: GameResult) -> pb.GameResult:
    """The outcome of a finished game."""
    return pb.GameResult(
        winners=result.winners,
        reason=_END_REASON[result.reason],
        scores=result.scores,
        hands_played=result.hands_played,
    )


def game_result_from_proto(msg: pb.GameResult, where: str = "result") -> GameResult:
    """Decode a game's outcome.

    :raises ProtocolError: if a field is malformed.
    """
    if not msg.winners:
        raise ProtocolError(f"{where}.winners is empty")
    return GameResult(
        winners=tuple(_seat(w, f"{where}.winners[{i}]") for i, w in enumerate(msg.winners)),
        reason=_enum(_END_REASON_BACK, msg.reason, f"{where}.reason"),
        scores=_triple(msg.scores, f"{where}.scores"),
        hands_played=msg.hands_played,
    )


# ---------------------------------------------------------------------------------------
# Decision requests and replies
# ---------------------------------------------------------------------------------------


def request_to_proto(
    obs: Observation, request_id: int, decision_ms_left: int, bank_ms_left: int
) -> pb.DecisionRequest:
    """The request the referee sends to the seat to act: its observation (with the legal
    options in ``observation.request``) and its clock.

    :raises ValueError: if *obs* is not the observation of the seat to act.
    """
    if obs.request is None:
        raise ValueError(f"seat {obs.seat} has no decision to take in this observation")
    return pb.DecisionRequest(
        request_id=request_id,
        observation=observation_to_proto(obs),
        clock=pb.Clock(decision_ms_left=decision_ms_left, bank_ms_left=bank_ms_left),
    )


def request_from_proto(msg: pb.DecisionRequest) -> DecisionRequest:
    """Decode a decision request (the SDK's side).

    :raises ProtocolError: if the observation is malformed or carries no request.
    """
    if not msg.HasField("observation"):
        raise ProtocolError("decision_request.observation is not set")
    observation = observation_from_proto(msg.observation)
    if observation.request is None:
        raise ProtocolError("decision_request.observation.request is not set")
    return DecisionRequest(
        request_id=msg.request_id,
        observation=observation,
        decision_ms_left=msg.clock.decision_ms_left,
        bank_ms_left=msg.clock.bank_ms_left,
    )


def decision_to_proto(decision: Decision, request_id: int) -> pb.ActionReply:
    """The reply carrying *decision* for request *request_id* (the SDK's side)."""
    reply = pb.ActionReply(request_id=request_id)
    if isinstance(decision, Give):
        # SetInParent marks the variant even for a (malformed) give with no legs, so the
        # referee reports the real mistake rather than "no action".
        reply.give.SetInParent()
        for leg in decision.legs:
            reply.give.legs.add(cards=card_texts(leg))
    elif isinstance(decision, CallTrump):
        reply.trump.trump = _TRUMP[decision.trump]
    elif isinstance(decision, Discard):
        reply.discard.SetInParent()
        reply.discard.cards.extend(card_texts(decision.cards))
    else:
        reply.play.card = str(decision.card)
    return reply


def decision_from_proto(reply: pb.ActionReply) -> Decision:
    """Decode a bot's reply into a decision; legality is left to the engine.

    Only the shape is checked here: one variant set, readable cards, a trump call, a give
    with non-empty legs, a discard of exactly 4 cards. A well-shaped decision that does not
    fit the request (wrong kind, cards not held, wrong counts) is the engine's ``illegal``.

    :raises ProtocolError: if the reply is malformed.
    """
    which = reply.WhichOneof("action")
    if which == "give":
        legs = reply.give.legs
        if not legs:
            raise ProtocolError("give.legs is empty")
        cards = tuple(_cards(leg.cards, f"give.legs[{i}].cards") for i, leg in enumerate(legs))
        for i, leg_cards in enumerate(cards):
            if not leg_cards:
                raise ProtocolError(f"give.legs[{i}].cards is empty")
        return Give(cards)
    if which == "trump":
        return CallTrump(_enum(_TRUMP_BACK, reply.trump.trump, "trump.trump"))
    if which == "discard":
        discards = _cards(reply.discard.cards, "discard.cards")
        if len(discards) != DISCARD_SIZE:
            raise ProtocolError(
                f"discard.cards: a discard is {DISCARD_SIZE} cards, got {len(discards)}"
            )
        return Discard(discards)
    if which == "play":
        return Play(_card(reply.play.card, "play.card"))
    raise ProtocolError("action_reply sets no action (give, trump, discard or play)")


# ---------------------------------------------------------------------------------------
# Match, game and hand messages
# ---------------------------------------------------------------------------------------


def hello_to_proto(token: str, bot_name: str, bot_version: str) -> pb.Hello:
    """The bot's first message, speaking this module's protocol version."""
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
        seat=_seat(msg.seat, "welcome.seat"),
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
        rules=rules_from_proto(msg.rules, "game_start.rules"),
        seat=_seat(msg.seat, "game_start.seat"),
        first_dealer=_seat(msg.first_dealer, "game_start.first_dealer"),
        players=(msg.players[0], msg.players[1], msg.players[2]),
        time_control=time_control_from_proto(msg.time_control),
    )


def hand_end_from_log(hand: HandLog) -> HandEnd:
    """The public end of a scored hand, from the engine's log of it.

    It copies only fields RULES.md 6 makes public (dealer, contracts, trump, every trick,
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
        tricks=[_trick_to_proto(t) for t in end.tricks],
    )


def hand_end_from_proto(msg: pb.HandEnd) -> HandEnd:
    """Decode a HandEnd (the SDK's side).

    :raises ProtocolError: if a field is malformed.
    """
    if not msg.HasField("summary"):
        raise ProtocolError("hand_end.summary is not set")
    return HandEnd(
        summary=hand_summary_from_proto(msg.summary, "hand_end.summary"),
        tricks=tuple(
            _trick_from_proto(t, f"hand_end.tricks[{i}]") for i, t in enumerate(msg.tricks)
        ),
    )


def fault_to_proto(fault: Fault) -> pb.Fault:
    """The wire form of a fault, as told to the bot it is recorded against."""
    return pb.Fault(
        kind=_FAULT_KIND[fault.kind],
        decision=(
            pb.DECISION_KIND_UNSPECIFIED if fault.decision is None else _KIND[fault.decision]
        ),
        hand=fault.hand,
        detail=fault.detail,
        autopilot=fault.autopilot,
        seat=fault.seat,
        request_id=fault.request_id,
    )


def fault_from_proto(msg: pb.Fault, where: str = "fault") -> Fault:
    """Decode a fault notice (the SDK's side).

    :raises ProtocolError: if a field is malformed.
    """
    return Fault(
        kind=_enum(_FAULT_KIND_BACK, msg.kind, f"{where}.kind"),
        decision=(
            None
            if msg.decision == pb.DECISION_KIND_UNSPECIFIED
            else _enum(_KIND_BACK, msg.decision, f"{where}.decision")
        ),
        hand=msg.hand,
        detail=msg.detail,
        autopilot=msg.autopilot,
        seat=_seat(msg.seat, f"{where}.seat"),
        request_id=msg.request_id,
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
