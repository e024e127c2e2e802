"""The referee's gRPC side, as one import: servers, admission, sessions, descriptors.

The code lives in four modules, one job each, in the order a bot meets them:

- :mod:`arena.referee.wire.doors`: the gRPC servers (a door per bot process, a shared
  listener for remote bots) and the caps on their connections;
- :mod:`arena.referee.wire.admission`: the service that admits a stream by its Hello and
  one-time token, and counts the streams it refuses;
- :mod:`arena.referee.wire.session`: one admitted stream, where every wire failure becomes a
  :class:`~arena.referee.errors.BotError`;
- :mod:`arena.referee.wire.descriptors`: the referee's descriptor limit and what a match needs.

This module only re-exports their public names, so that callers outside the referee
(the CLI, benchmarks, tests) keep one stable import.
"""

from __future__ import annotations

from arena.protocol.convert import PROTOCOL_VERSION
from arena.referee.wire.admission import HELLO_TIMEOUT_S, REFUSALS_KEPT, RefereeService
from arena.referee.wire.descriptors import (
    DESCRIPTORS_BASE,
    DESCRIPTORS_PER_SEAT,
    check_descriptors,
    describe_limits,
    descriptors_needed,
    open_descriptors,
    raise_descriptor_limit,
    reserve_descriptors,
)
from arena.referee.wire.doors import (
    DOOR_CONNECTIONS,
    DOOR_STREAMS,
    SERVICE_NAME,
    SHARED_CONNECTIONS,
    RefereeServer,
)
from arena.referee.wire.session import MAX_MESSAGE_BYTES, Session

__all__ = [
    "DESCRIPTORS_BASE",
    "DESCRIPTORS_PER_SEAT",
    "DOOR_CONNECTIONS",
    "DOOR_STREAMS",
    "HELLO_TIMEOUT_S",
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_VERSION",
    "REFUSALS_KEPT",
    "SERVICE_NAME",
    "SHARED_CONNECTIONS",
    "RefereeServer",
    "RefereeService",
    "Session",
    "check_descriptors",
    "describe_limits",
    "descriptors_needed",
    "open_descriptors",
    "raise_descriptor_limit",
    "reserve_descriptors",
]
