"""Faults on the wire (``arena.v1.Fault``): what the referee tells a bot about a fault
recorded against its seat (docs/record-format.md ``faults``)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.actions import DecisionKind
from arena.game.state import Seat
from arena.protocol import enums
from arena.protocol.enums import FaultKind
from arena.protocol.wire import decode_seat
from arena.v1 import arena_pb2 as pb


@dataclass(frozen=True, slots=True)
class Fault:
    """A fault recorded against a bot (docs/record-format.md ``faults``), as told to that bot."""

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


def fault_to_proto(fault: Fault) -> pb.Fault:
    """The wire form of a fault, as told to the bot it is recorded against."""
    return pb.Fault(
        kind=enums.FAULT_KIND.encode(fault.kind),
        decision=(
            pb.DECISION_KIND_UNSPECIFIED
            if fault.decision is None
            else enums.DECISION_KIND.encode(fault.decision)
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
        kind=enums.FAULT_KIND.decode(msg.kind, f"{where}.kind"),
        decision=(
            None
            if msg.decision == pb.DECISION_KIND_UNSPECIFIED
            else enums.DECISION_KIND.decode(msg.decision, f"{where}.decision")
        ),
        hand=msg.hand,
        detail=msg.detail,
        autopilot=msg.autopilot,
        seat=decode_seat(msg.seat, f"{where}.seat"),
        request_id=msg.request_id,
    )
