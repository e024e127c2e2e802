"""The one exception family for bot misbehaviour (STYLE.md 15).

Transport errors (grpc status codes, closed streams, process exits) are turned into these
at the edge, in :mod:`arena.referee.server` and :mod:`arena.referee.process`; the match
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


class BotProtocolError(BotError):
    """Garbage, a wrong message, a wrong request id or an unsolicited answer."""

    kind = FaultKind.PROTOCOL


class BotIllegalAction(BotError):
    """A well-formed answer that the rules do not allow."""

    kind = FaultKind.ILLEGAL


class BotStartupError(BotError):
    """The bot did not start, connect and say hello in time."""

    kind = FaultKind.STARTUP


__all__ = [
    "BotCrashed",
    "BotError",
    "BotIllegalAction",
    "BotProtocolError",
    "BotStartupError",
    "BotTimeout",
    "FaultKind",
]
