"""Every enum of the wire, each declared once as engine value -> wire value.

A :class:`WireEnum` derives the reverse table itself and refuses a table that is not
one-to-one, so the two directions cannot drift apart (they used to be written out twice).
Decoding rejects what the table lacks, so an UNSPECIFIED (0) or unknown number from the
wire never turns into a value silently. ``tests/protocol/test_enums.py`` checks that each
table covers its engine enum and its wire enum completely.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from enum import Enum
from types import MappingProxyType
from typing import Final, Generic, TypeVar

from arena.game.actions import DecisionKind
from arena.game.cards import Trump
from arena.game.ending import EndReason
from arena.game.rules import FirstLeader, GiverPriority, NegativeRole, Step, TieRule, WinnerRule
from arena.game.state import Phase
from arena.protocol.wire import ProtocolError
from arena.v1 import arena_pb2 as pb

_E = TypeVar("_E", bound=Hashable)
_W = TypeVar("_W", bound=int)


class WireEnum(Generic[_E, _W]):
    """One engine enum and its ``arena.v1`` enum: encode trusts, decode checks."""

    __slots__ = ("_back", "encode", "name", "table")

    def __init__(self, name: str, table: Mapping[_E, _W]) -> None:
        """Take the forward table and derive the reverse one.

        :param name: the enum's name in ``arena.proto``, e.g. ``"Trump"``.
        :raises ValueError: if two engine values share a wire value, or one maps to the
            wire's UNSPECIFIED (0), which must stay undecodable.
        """
        forward = dict(table)
        back = {int(wire): value for value, wire in forward.items()}
        if len(back) != len(forward):
            raise ValueError(f"{name}: the table is not one-to-one: {forward}")
        if 0 in back:
            raise ValueError(f"{name}: wire value 0 is UNSPECIFIED, not {back[0]!r}")
        self.name: Final = name
        self.table: Final[Mapping[_E, _W]] = MappingProxyType(forward)
        # The bound dict lookup rather than a method: it runs for many fields of every
        # observation the referee sends, and costs what the old plain tables cost.
        self.encode: Final[Callable[[_E], _W]] = forward.__getitem__
        """The wire value of an engine value (which the engine built, so it is in the table)."""
        self._back: Final = back

    def decode(self, value: int, where: str) -> _E:
        """The engine value of a wire value.

        :raises ProtocolError: for UNSPECIFIED (0) and numbers the table lacks.
        """
        try:
            return self._back[value]
        except KeyError:
            raise ProtocolError(f"{where}: invalid enum value {value}") from None


class FaultKind(Enum):
    """Kinds of bot fault, with the texts of docs/record-format.md ``faults[].kind``."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL = "illegal"
    PROTOCOL = "protocol"
    STARTUP = "startup"


TRUMP: Final = WireEnum(
    "Trump",
    {
        Trump.S: pb.TRUMP_S,
        Trump.H: pb.TRUMP_H,
        Trump.D: pb.TRUMP_D,
        Trump.C: pb.TRUMP_C,
        Trump.NT: pb.TRUMP_NT,
    },
)
DECISION_KIND: Final = WireEnum(
    "DecisionKind",
    {
        DecisionKind.GIVE: pb.DECISION_KIND_GIVE,
        DecisionKind.TRUMP: pb.DECISION_KIND_TRUMP,
        DecisionKind.DISCARD: pb.DECISION_KIND_DISCARD,
        DecisionKind.PLAY: pb.DECISION_KIND_PLAY,
    },
)
PHASE: Final = WireEnum(
    "Phase",
    {
        Phase.GIVE: pb.PHASE_GIVE,
        Phase.TRUMP: pb.PHASE_TRUMP,
        Phase.DISCARD: pb.PHASE_DISCARD,
        Phase.PLAY: pb.PHASE_PLAY,
        Phase.OVER: pb.PHASE_OVER,
    },
)
LEG_STATUS: Final = WireEnum(
    "LegStatus",
    # LegView.status is a string in the engine.
    {
        "planned": pb.LEG_STATUS_PLANNED,
        "given": pb.LEG_STATUS_GIVEN,
        "done": pb.LEG_STATUS_DONE,
    },
)
STEP: Final = WireEnum(
    "Step",
    {
        Step.TRUMP: pb.STEP_TRUMP,
        Step.KITTY: pb.STEP_KITTY,
        Step.EXCHANGE: pb.STEP_EXCHANGE,
        Step.GIVE: pb.STEP_GIVE,
        Step.RETURN: pb.STEP_RETURN,
    },
)
FIRST_LEADER: Final = WireEnum(
    "FirstLeader",
    {
        FirstLeader.LEFT_OF_DEALER: pb.FIRST_LEADER_LEFT_OF_DEALER,
        FirstLeader.DEALER: pb.FIRST_LEADER_DEALER,
    },
)
GIVER_PRIORITY: Final = WireEnum(
    "GiverPriority",
    {
        GiverPriority.UPCOMING_CONTRACT: pb.GIVER_PRIORITY_UPCOMING_CONTRACT,
        GiverPriority.MOST_OVERTRICKS: pb.GIVER_PRIORITY_MOST_OVERTRICKS,
    },
)
NEGATIVE_ROLE: Final = WireEnum(
    "NegativeRole",
    {
        NegativeRole.ENDS_GAME: pb.NEGATIVE_ROLE_ENDS_GAME,
        NegativeRole.OBJECTIVE: pb.NEGATIVE_ROLE_OBJECTIVE,
    },
)
WINNER_RULE: Final = WireEnum(
    "WinnerRule",
    {
        WinnerRule.HIGHEST: pb.WINNER_RULE_HIGHEST,
        WinnerRule.LARGEST_EXCESS: pb.WINNER_RULE_LARGEST_EXCESS,
    },
)
TIE_RULE: Final = WireEnum(
    "TieRule",
    {
        TieRule.EXTRA_HANDS: pb.TIE_RULE_EXTRA_HANDS,
        TieRule.DRAW: pb.TIE_RULE_DRAW,
        TieRule.POSITIVE_SIDE: pb.TIE_RULE_POSITIVE_SIDE,
    },
)
END_REASON: Final = WireEnum(
    "EndReason",
    {
        EndReason.TARGET: pb.END_REASON_TARGET,
        EndReason.NEGATIVE: pb.END_REASON_NEGATIVE,
        EndReason.OVERTIME: pb.END_REASON_OVERTIME,
        EndReason.DRAW: pb.END_REASON_DRAW,
        EndReason.CAPPED: pb.END_REASON_CAPPED,
    },
)
FAULT_KIND: Final = WireEnum(
    "FaultKind",
    {
        FaultKind.TIMEOUT: pb.FAULT_KIND_TIMEOUT,
        FaultKind.CRASH: pb.FAULT_KIND_CRASH,
        FaultKind.ILLEGAL: pb.FAULT_KIND_ILLEGAL,
        FaultKind.PROTOCOL: pb.FAULT_KIND_PROTOCOL,
        FaultKind.STARTUP: pb.FAULT_KIND_STARTUP,
    },
)
