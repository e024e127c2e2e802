"""One seat's observation on the wire (``arena.v1.Observation``), with its parts: exchange
legs, tricks, the request's options, and the public results of hands and of the game.

:func:`observation_to_proto` converts only what :func:`~arena.game.observation.observe`
already chose to reveal; it never reads hidden state. An observation survives the trip to
protobuf and back unchanged (``tests/protocol/test_observations.py`` checks it at every
decision point of random games), so a bot written with the SDK sees the same typed values
as the built-in policies.
"""

from __future__ import annotations

from typing import Final

from arena.game.cards import Card, Trump, card_texts
from arena.game.ending import GameResult
from arena.game.observation import (
    HandSummary,
    LegView,
    Observation,
    Request,
    ShowView,
    TrickView,
)
from arena.protocol import enums
from arena.protocol.memo import DecodeCache, EncodeCache
from arena.protocol.rules import copy_rules_into, rules_from_proto
from arena.protocol.wire import (
    ProtocolError,
    decode_cards,
    decode_seat,
    decode_triple,
)
from arena.v1 import arena_pb2 as pb


def _trump_or_none(value: int, where: str) -> Trump | None:
    return None if value == pb.TRUMP_UNSPECIFIED else enums.TRUMP.decode(value, where)


def observation_to_proto(obs: Observation, into: pb.Observation | None = None) -> pb.Observation:
    """The wire form of one seat's observation, field for field, written into *into* (an
    empty message, such as a fresh sub-message of the message being built; a new one if
    ``None``) and returned.

    Fields that are ``None`` in the observation (unknown to the seat, or not applicable)
    are left unset, which is how the wire tells "unknown" from "empty". The message is
    filled in place rather than built from keyword arguments: with protobuf's upb backend
    every message passed as an argument is copied, level by level, and the referee builds
    one observation per decision (docs/performance.md).
    """
    if (obs.previous_tricks is None) != (obs.previous_deltas is None):
        raise ValueError("previous_tricks and previous_deltas are set together or not at all")
    msg = pb.Observation() if into is None else into
    msg.seat = obs.seat
    msg.ruleset = obs.ruleset
    copy_rules_into(msg.rules, obs.rules)
    msg.hand_number = obs.hand_number
    msg.dealer = obs.dealer
    msg.contracts.extend(obs.contracts)
    msg.scores.extend(obs.scores)
    if obs.previous_tricks is not None and obs.previous_deltas is not None:
        msg.previous_hand.tricks_won.extend(obs.previous_tricks)
        msg.previous_hand.deltas.extend(obs.previous_deltas)
    _cards_and_exchange_into(msg, obs)
    if obs.trump is not None:
        msg.trump = enums.TRUMP.encode(obs.trump)
    msg.tricks.extend(TRICK_MESSAGES.each(obs.tricks))
    if obs.current_trick is not None:
        _trick_into(msg.current_trick, obs.current_trick)
    msg.tricks_won.extend(obs.tricks_won)
    msg.phase = enums.PHASE.encode(obs.phase)
    if obs.to_act is not None:
        msg.to_act = obs.to_act
    if obs.request is not None:
        _request_into(msg.request, obs.request)
    msg.history.extend(SUMMARY_MESSAGES.each(obs.history))
    if obs.result is not None:
        _game_result_into(msg.result, obs.result)
    return msg


def _cards_and_exchange_into(msg: pb.Observation, obs: Observation) -> None:
    """The seat's cards and what it knows of the exchange, kitty, shows and discards."""
    msg.dealt.extend(card_texts(obs.dealt))
    msg.hand.extend(card_texts(obs.hand))
    for leg in obs.exchange:
        _leg_into(msg.exchange.add(), leg)
    msg.kitty_taken = obs.kitty_taken
    if obs.kitty is not None:
        _cards_into(msg.kitty, obs.kitty)
    for show in obs.shown:
        msg.shown.add(to=show.to, cards=card_texts(show.cards))
    msg.discard_done = obs.discard_done
    if obs.discards is not None:
        _cards_into(msg.discards, obs.discards)
    msg.pending_give.extend(card_texts(obs.pending_give))


def _cards_into(msg: pb.CardList, cards: tuple[Card, ...]) -> None:
    msg.SetInParent()  # set even when empty: an empty list is not an unknown one
    msg.cards.extend(card_texts(cards))


def observation_from_proto(msg: pb.Observation) -> Observation:
    """Rebuild the typed observation from its wire form (what the Python SDK gives bots).

    The rules, the completed hands of ``history``, the completed ``tricks``, the exchange
    legs and the shows come again in observation after observation, so each is decoded
    once and then taken from a small cache keyed by its bytes (:mod:`arena.protocol.memo`);
    the rest is decoded each time.

    :raises ProtocolError: if any field is malformed.
    """
    if not msg.HasField("rules"):
        raise ProtocolError("observation.rules is not set")
    previous_tricks: tuple[int, int, int] | None = None
    previous_deltas: tuple[int, int, int] | None = None
    if msg.HasField("previous_hand"):
        previous = msg.previous_hand
        previous_tricks = decode_triple(previous.tricks_won, "observation.previous_hand.tricks_won")
        previous_deltas = decode_triple(previous.deltas, "observation.previous_hand.deltas")
    return Observation(
        seat=decode_seat(msg.seat, "observation.seat"),
        ruleset=msg.ruleset,
        rules=RULES(msg.rules, "observation.rules"),
        hand_number=msg.hand_number,
        dealer=decode_seat(msg.dealer, "observation.dealer"),
        contracts=decode_triple(msg.contracts, "observation.contracts"),
        scores=decode_triple(msg.scores, "observation.scores"),
        previous_tricks=previous_tricks,
        previous_deltas=previous_deltas,
        dealt=decode_cards(msg.dealt, "observation.dealt"),
        hand=decode_cards(msg.hand, "observation.hand"),
        exchange=LEGS.each(msg.exchange, "observation.exchange"),
        trump=_trump_or_none(msg.trump, "observation.trump"),
        kitty_taken=msg.kitty_taken,
        kitty=decode_cards(msg.kitty.cards, "observation.kitty") if msg.HasField("kitty") else None,
        shown=SHOWN.each(msg.shown, "observation.shown"),
        discard_done=msg.discard_done,
        discards=(
            decode_cards(msg.discards.cards, "observation.discards")
            if msg.HasField("discards")
            else None
        ),
        pending_give=decode_cards(msg.pending_give, "observation.pending_give"),
        tricks=TRICKS.each(msg.tricks, "observation.tricks"),
        current_trick=(
            trick_from_proto(msg.current_trick, "observation.current_trick")
            if msg.HasField("current_trick")
            else None
        ),
        tricks_won=decode_triple(msg.tricks_won, "observation.tricks_won"),
        phase=enums.PHASE.decode(msg.phase, "observation.phase"),
        to_act=decode_seat(msg.to_act, "observation.to_act") if msg.HasField("to_act") else None,
        request=_request_from_proto(msg.request) if msg.HasField("request") else None,
        history=SUMMARIES.each(msg.history, "observation.history"),
        result=(
            game_result_from_proto(msg.result, "observation.result")
            if msg.HasField("result")
            else None
        ),
    )


def _leg_into(msg: pb.Leg, leg: LegView) -> None:
    msg.index = leg.index
    msg.giver = leg.giver
    msg.receiver = leg.receiver
    msg.count = leg.count
    msg.status = enums.LEG_STATUS.encode(leg.status)
    if leg.given is not None:
        _cards_into(msg.given, leg.given)
    if leg.returned is not None:
        _cards_into(msg.returned, leg.returned)


def _leg_from_proto(msg: pb.Leg, where: str) -> LegView:
    return LegView(
        index=msg.index,
        giver=decode_seat(msg.giver, f"{where}.giver"),
        receiver=decode_seat(msg.receiver, f"{where}.receiver"),
        count=msg.count,
        status=enums.LEG_STATUS.decode(msg.status, f"{where}.status"),
        given=decode_cards(msg.given.cards, f"{where}.given") if msg.HasField("given") else None,
        returned=(
            decode_cards(msg.returned.cards, f"{where}.returned")
            if msg.HasField("returned")
            else None
        ),
    )


def _show_from_proto(msg: pb.Show, where: str) -> ShowView:
    return ShowView(decode_seat(msg.to, f"{where}.to"), decode_cards(msg.cards, f"{where}.cards"))


def trick_to_proto(trick: TrickView) -> pb.Trick:
    """The wire form of a trick, completed or in progress."""
    msg = pb.Trick()
    _trick_into(msg, trick)
    return msg


def _trick_into(msg: pb.Trick, trick: TrickView) -> None:
    msg.SetInParent()  # a trick in progress with no card yet is still a trick
    msg.leader = trick.leader
    msg.cards.extend(card_texts(trick.cards))
    if trick.winner is not None:
        msg.winner = trick.winner


def trick_from_proto(msg: pb.Trick, where: str) -> TrickView:
    """Decode a trick of at most three cards.

    :raises ProtocolError: if a field is malformed.
    """
    cards = decode_cards(msg.cards, f"{where}.cards")
    if len(cards) > 3:
        raise ProtocolError(f"{where}.cards: a trick has at most 3 cards, got {len(cards)}")
    return TrickView(
        leader=decode_seat(msg.leader, f"{where}.leader"),
        cards=cards,
        winner=decode_seat(msg.winner, f"{where}.winner") if msg.HasField("winner") else None,
    )


def _request_into(msg: pb.Request, request: Request) -> None:
    msg.SetInParent()
    msg.kind = enums.DECISION_KIND.encode(request.kind)
    msg.cards.extend(card_texts(request.cards))
    msg.trump_options.extend([enums.TRUMP.encode(t) for t in request.trump_options])
    for receiver, count in request.give_legs:
        msg.give_legs.add(receiver=receiver, count=count)
    msg.discard_count = request.discard_count


def _request_from_proto(msg: pb.Request) -> Request:
    # Only the observation's request is decoded, so its field names are constants.
    where = "observation.request"
    return Request(
        kind=enums.DECISION_KIND.decode(msg.kind, "observation.request.kind"),
        cards=decode_cards(msg.cards, "observation.request.cards"),
        trump_options=tuple(
            enums.TRUMP.decode(t, f"{where}.trump_options[{i}]")
            for i, t in enumerate(msg.trump_options)
        ),
        give_legs=tuple(
            (decode_seat(leg.receiver, f"{where}.give_legs[{i}].receiver"), leg.count)
            for i, leg in enumerate(msg.give_legs)
        ),
        discard_count=msg.discard_count,
    )


def hand_summary_to_proto(summary: HandSummary) -> pb.HandSummary:
    """The public result of one completed hand."""
    msg = pb.HandSummary()
    _hand_summary_into(msg, summary)
    return msg


def _hand_summary_into(msg: pb.HandSummary, summary: HandSummary) -> None:
    msg.number = summary.number
    msg.dealer = summary.dealer
    msg.contracts.extend(summary.contracts)
    msg.trump = enums.TRUMP.encode(summary.trump)
    msg.tricks_won.extend(summary.tricks_won)
    msg.deltas.extend(summary.deltas)
    msg.scores.extend(summary.scores)


def hand_summary_from_proto(msg: pb.HandSummary, where: str = "summary") -> HandSummary:
    """Decode a completed hand's summary.

    :raises ProtocolError: if a field is malformed (a completed hand always has a trump).
    """
    return HandSummary(
        number=msg.number,
        dealer=decode_seat(msg.dealer, f"{where}.dealer"),
        contracts=decode_triple(msg.contracts, f"{where}.contracts"),
        trump=enums.TRUMP.decode(msg.trump, f"{where}.trump"),
        tricks_won=decode_triple(msg.tricks_won, f"{where}.tricks_won"),
        deltas=decode_triple(msg.deltas, f"{where}.deltas"),
        scores=decode_triple(msg.scores, f"{where}.scores"),
    )


def game_result_to_proto(result: GameResult) -> pb.GameResult:
    """The outcome of a finished game."""
    msg = pb.GameResult()
    _game_result_into(msg, result)
    return msg


def _game_result_into(msg: pb.GameResult, result: GameResult) -> None:
    msg.SetInParent()
    msg.winners.extend(result.winners)
    msg.reason = enums.END_REASON.encode(result.reason)
    msg.scores.extend(result.scores)
    msg.hands_played = result.hands_played


def game_result_from_proto(msg: pb.GameResult, where: str = "result") -> GameResult:
    """Decode a game's outcome.

    :raises ProtocolError: if a field is malformed.
    """
    if not msg.winners:
        raise ProtocolError(f"{where}.winners is empty")
    return GameResult(
        winners=tuple(decode_seat(w, f"{where}.winners[{i}]") for i, w in enumerate(msg.winners)),
        reason=enums.END_REASON.decode(msg.reason, f"{where}.reason"),
        scores=decode_triple(msg.scores, f"{where}.scores"),
        hands_played=msg.hands_played,
    )


# The caches of the parts every observation repeats (arena.protocol.memo). Their limits
# are far above what one game repeats, and memory stays small: a process playing several
# games at once (a tournament's referee, a bot in many matches) keeps hitting.

RULES: Final = DecodeCache(rules_from_proto, limit=8)
"""Decoded rules: a process meets one rule set per match, a few at most."""
LEGS: Final = DecodeCache(_leg_from_proto, limit=64)
"""Decoded exchange legs: at most two a hand, the same once the exchange is over."""
SHOWN: Final = DecodeCache(_show_from_proto, limit=64)
"""Decoded dealer shows: at most two a hand, the same for the rest of it."""
TRICKS: Final = DecodeCache(trick_from_proto, limit=256)
"""Decoded completed tricks: up to 16 a hand, again at every decision of the hand."""
SUMMARIES: Final = DecodeCache(hand_summary_from_proto, limit=256)
"""Decoded hand summaries: every completed hand, again at every decision of the game (the
limit is well above the default cap of 99 hands; a longer game stays correct, only slower)."""
TRICK_MESSAGES: Final = EncodeCache(trick_to_proto, limit=256)
"""Encoded completed tricks (the referee's side)."""
SUMMARY_MESSAGES: Final = EncodeCache(hand_summary_to_proto, limit=256)
"""Encoded hand summaries (the referee's side)."""
