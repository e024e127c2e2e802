"""Every conversion between the engine's values and the ``arena.v1`` wire messages, under
the one name the referee, the SDK, the benchmarks and the test bots import.

The code lives by message group, each module with its own tests under ``tests/protocol/``:

- :mod:`arena.protocol.wire`: the protocol version, :class:`ProtocolError` and the checked
  decoders of single fields every group shares;
- :mod:`arena.protocol.enums`: every wire enum, declared once, its reverse derived;
- :mod:`arena.protocol.rules`: the rules of a game;
- :mod:`arena.protocol.observations`: one seat's observation and its parts, with the
  public results of hands and games;
- :mod:`arena.protocol.decisions`: decision requests and the bots' replies;
- :mod:`arena.protocol.faults`: faults as told to a bot;
- :mod:`arena.protocol.events`: ``Hello``, ``Welcome``, ``GameStart``, ``HandEnd`` and
  ``GameEnd``;
- :mod:`arena.protocol.memo`: the bounded, content-keyed caches through which the parts
  every observation repeats are converted once.

New code may import from the group module directly; this facade keeps the names the
existing callers use.
"""

from __future__ import annotations

from arena.protocol.decisions import (
    DISCARD_SIZE,
    DecisionRequest,
    decision_from_proto,
    decision_to_proto,
    request_from_proto,
    request_message,
    request_to_proto,
)
from arena.protocol.enums import FaultKind
from arena.protocol.events import (
    GameEnd,
    GameStart,
    HandEnd,
    TimeControl,
    Welcome,
    game_end_from_proto,
    game_end_to_proto,
    game_start_from_proto,
    game_start_to_proto,
    hand_end_from_log,
    hand_end_from_proto,
    hand_end_to_proto,
    hello_to_proto,
    time_control_from_proto,
    time_control_to_proto,
    welcome_from_proto,
    welcome_to_proto,
)
from arena.protocol.faults import (
    Fault,
    fault_from_proto,
    fault_to_proto,
)
from arena.protocol.observations import (
    game_result_from_proto,
    game_result_to_proto,
    hand_summary_from_proto,
    hand_summary_to_proto,
    observation_from_proto,
    observation_to_proto,
    trick_from_proto,
    trick_to_proto,
)
from arena.protocol.rules import rules_from_proto, rules_to_proto
from arena.protocol.wire import PROTOCOL_VERSION, ProtocolError

__all__ = [
    "DISCARD_SIZE",
    "PROTOCOL_VERSION",
    "DecisionRequest",
    "Fault",
    "FaultKind",
    "GameEnd",
    "GameStart",
    "HandEnd",
    "ProtocolError",
    "TimeControl",
    "Welcome",
    "decision_from_proto",
    "decision_to_proto",
    "fault_from_proto",
    "fault_to_proto",
    "game_end_from_proto",
    "game_end_to_proto",
    "game_result_from_proto",
    "game_result_to_proto",
    "game_start_from_proto",
    "game_start_to_proto",
    "hand_end_from_log",
    "hand_end_from_proto",
    "hand_end_to_proto",
    "hand_summary_from_proto",
    "hand_summary_to_proto",
    "hello_to_proto",
    "observation_from_proto",
    "observation_to_proto",
    "request_from_proto",
    "request_message",
    "request_to_proto",
    "rules_from_proto",
    "rules_to_proto",
    "time_control_from_proto",
    "time_control_to_proto",
    "trick_from_proto",
    "trick_to_proto",
    "welcome_from_proto",
    "welcome_to_proto",
]
