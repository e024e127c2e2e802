"""How a bot's fault is worded: the line in the record and the notice the bot gets.

A :class:`~arena.referee.errors.BotError` says what the referee saw at the moment of the
fault; what the bot did next (its exit code, gRPC's reason for cutting its stream, as the
bot printed it) is only known a moment later. These functions put both into the one
line a record keeps, and build the record's fault entry and the
:class:`~arena.v1.arena_pb2.Fault` notice, so that every fault reads the same wherever
it is raised.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from arena.game.actions import DecisionKind
from arena.protocol import convert
from arena.referee.errors import BotError, BotStreamCut
from arena.referee.wire.session import MAX_MESSAGE_BYTES
from arena.v1 import arena_pb2 as pb

LOGGER = logging.getLogger(__name__)

_TOO_LARGE = re.compile(r"larger than max \((\d+) vs\. (\d+)\)")
"""gRPC's own words to a bot whose message it refused for its size."""


def cut_detail(error: BotStreamCut, stderr_tail: str, exit_code: int | None) -> str:
    """The fault line of a stream cut before an answer.

    gRPC tells the bot, not the referee, why it cut the call; a bot that shows that
    status (as the SDK does) on stderr gets the size named. That line is the bot's own
    output: it only words the bot's own crash fault, it changes nothing else.
    """
    too_large = _TOO_LARGE.search(stderr_tail)
    if too_large:
        return (
            f"a message of {int(too_large[1])} bytes, over the {MAX_MESSAGE_BYTES >> 20} MiB "
            f"limit ({MAX_MESSAGE_BYTES} bytes): gRPC refused it and cut the stream"
        )
    if exit_code is not None:
        return f"the bot exited before answering (exit code {exit_code})"
    return error.detail


def fault_detail(error: BotError, stderr_tail: str, exit_code: int | None) -> str:
    """A fault's line, with what was seen after it (an exit code, gRPC's reason)."""
    if isinstance(error, BotStreamCut):
        return cut_detail(error, stderr_tail, exit_code)
    return error.detail + (f" (exit code {exit_code})" if exit_code is not None else "")


def fault_record(seat: int, hand: int, decision: str, error: BotError, tail: str) -> dict[str, Any]:
    """A record's fault entry (the seat goes to the autopilot for the rest of the game)."""
    detail = error.detail
    LOGGER.info("seat %d fault %s: %s", seat, error.kind.value, detail)
    return {
        "seat": seat,
        "hand": hand,
        "decision": decision,
        "kind": error.kind.value,
        "detail": detail,
        "autopilot": True,
        "stderr_tail": tail,
    }


def fault_notice(seat: int, hand: int, kind: DecisionKind | None, error: BotError) -> pb.Fault:
    """The Fault message a bot gets before the referee stops it."""
    return convert.fault_to_proto(
        convert.Fault(
            kind=error.kind,
            decision=kind,
            hand=hand,
            detail=error.detail,
            autopilot=True,
            seat=seat,
        )
    )
