"""The one exception family for bot misbehaviour (docs/style.md 15).

Transport errors (grpc status codes, closed streams, process exits) are turned into these
at the edge, in :mod:`arena.referee.wire.session` and :mod:`arena.referee.process`; the match
logic only ever sees a :class:`BotError` and records it as a fault.
"""

from __future__ import annotations

from arena.protocol.convert import FaultKind


class BotError(Exception):
    """A bot did something the referee cannot accept; ``str()`` is one line."""

    kind: FaultKind = FaultKind.PROTOCOL

    @property
    def detail(self) -> str:
        """The one line a record and a Fault notice carry."""
        text = str(self)
        return text.splitlines()[0] if text else self.kind.value


class BotTimeout(BotError):
    """No answer within the decision allowance, the bank and the grace margin."""

    kind = FaultKind.TIMEOUT


class BotCrashed(BotError):
    """The process exited or the stream closed."""

    kind = FaultKind.CRASH


class BotStreamCut(BotCrashed):
    """The call ended under the referee before an answer: gRPC cut it (a message over the
    size limit), the bot cancelled it, or the bot's connection went away. gRPC shows all
    of these to the server as the same end of stream; the match words the fault from
    what it sees next (an exit, the bot's own error line)."""


class BotProtocolError(BotError):
    """Garbage, a wrong message, a wrong request id or an unsolicited answer."""

    kind = FaultKind.PROTOCOL


class BotIllegalAction(BotError):
    """A well-formed answer that the rules do not allow."""

    kind = FaultKind.ILLEGAL


class BotStartupError(BotError):
    """The bot did not start, connect and say hello in time."""

    kind = FaultKind.STARTUP


class ArenaFault(Exception):
    """The arena itself failed during a game (its own resources, a failed spawn, a
    sandbox that could not be set up): no bot is to blame.

    Deliberately not a :class:`BotError`: such a game is never charged to a bot or rated.
    A tournament replays it and counts it as an arena fault (fastchess and fishtest count
    these as harness losses); ``str()`` is one line.
    """


__all__ = [
    "ArenaFault",
    "BotCrashed",
    "BotError",
    "BotIllegalAction",
    "BotProtocolError",
    "BotStartupError",
    "BotStreamCut",
    "BotTimeout",
    "FaultKind",
]
