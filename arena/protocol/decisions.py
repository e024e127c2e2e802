"""Decision requests and the bots' replies: the referee asks the seat to act
(``arena.v1.DecisionRequest``), the bot answers with one decision (``arena.v1.ActionReply``).

Decoding a reply checks only its shape; whether a well-shaped decision is legal is the
engine's call (an ``illegal`` fault, not ``protocol``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.game.actions import CallTrump, Decision, Discard, Give, Play
from arena.game.cards import card_texts
from arena.game.observation import Observation
from arena.protocol import enums
from arena.protocol.observations import observation_from_proto, observation_to_proto
from arena.protocol.wire import ProtocolError, decode_card, decode_cards
from arena.v1 import arena_pb2 as pb

DISCARD_SIZE: Final = 4
"""Cards in a whole discard decision (docs/rules.md 1.5): a reply with another count is malformed."""


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


def request_to_proto(
    obs: Observation,
    request_id: int,
    decision_ms_left: int,
    bank_ms_left: int,
    into: pb.DecisionRequest | None = None,
) -> pb.DecisionRequest:
    """The request the referee sends to the seat to act: its observation (with the legal
    options in ``observation.request``) and its clock, written into *into* (an empty
    message; a new one if ``None``) and returned.

    :raises ValueError: if *obs* is not the observation of the seat to act.
    """
    if obs.request is None:
        raise ValueError(f"seat {obs.seat} has no decision to take in this observation")
    msg = pb.DecisionRequest() if into is None else into
    msg.request_id = request_id
    observation_to_proto(obs, into=msg.observation)
    msg.clock.decision_ms_left = decision_ms_left
    msg.clock.bank_ms_left = bank_ms_left
    return msg


def request_message(
    obs: Observation, request_id: int, decision_ms_left: int, bank_ms_left: int
) -> pb.RefereeMessage:
    """:func:`request_to_proto` already inside the ``RefereeMessage`` the referee writes:
    wrapping a finished request would copy it once more on every decision.

    :raises ValueError: if *obs* is not the observation of the seat to act.
    """
    message = pb.RefereeMessage()
    request_to_proto(obs, request_id, decision_ms_left, bank_ms_left, into=message.decision_request)
    return message


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


def decision_to_proto(
    decision: Decision, request_id: int, into: pb.ActionReply | None = None
) -> pb.ActionReply:
    """The reply carrying *decision* for request *request_id* (the SDK's side), written into
    *into* (an empty message, such as the ``action_reply`` of the ``BotMessage`` to send,
    which is then not copied; a new one if ``None``) and returned."""
    reply = pb.ActionReply() if into is None else into
    reply.request_id = request_id
    if isinstance(decision, Give):
        # SetInParent marks the variant even for a (malformed) give with no legs, so the
        # referee reports the real mistake rather than "no action".
        reply.give.SetInParent()
        for leg in decision.legs:
            reply.give.legs.add(cards=card_texts(leg))
    elif isinstance(decision, CallTrump):
        reply.trump.trump = enums.TRUMP.encode(decision.trump)
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
        cards = tuple(
            decode_cards(leg.cards, f"give.legs[{i}].cards") for i, leg in enumerate(legs)
        )
        for i, leg_cards in enumerate(cards):
            if not leg_cards:
                raise ProtocolError(f"give.legs[{i}].cards is empty")
        return Give(cards)
    if which == "trump":
        return CallTrump(enums.TRUMP.decode(reply.trump.trump, "trump.trump"))
    if which == "discard":
        discards = decode_cards(reply.discard.cards, "discard.cards")
        if len(discards) != DISCARD_SIZE:
            raise ProtocolError(
                f"discard.cards: a discard is {DISCARD_SIZE} cards, got {len(discards)}"
            )
        return Discard(discards)
    if which == "play":
        return Play(decode_card(reply.play.card, "play.card"))
    raise ProtocolError("action_reply sets no action (give, trump, discard or play)")
