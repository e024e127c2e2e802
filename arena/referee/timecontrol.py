"""Time control: limits the referee measures and enforces (docs/style.md 16).

A decision may take ``decision_ms``; time beyond that is drawn from the game's bank;
``grace_ms`` absorbs transport jitter and is never charged. A reply later than
``decision_ms + bank + grace`` is a timeout.

Every limit is at most :data:`MAX_MS`, one day. The layers below carry less than Python's
unbounded ints: the wire's ``arena.v1.TimeControl`` and ``Clock`` send ``decision`` and
``bank`` as ``uint32`` (protobuf raises mid-match above 2**32 - 1), and ``startup`` becomes
gRPC's ``grpc.server_handshake_timeout_ms``, a C ``int`` (2**31 - 1, or the server cannot
even be made). One sane bound for every field, far inside all of them (and their sum,
the decision deadline), is simpler to state and to keep than one per sink, and no card
game needs more than a day per decision, bank, grace or startup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

MAX_MS: Final = 24 * 60 * 60 * 1000
"""The largest limit, in milliseconds: one day, below the ``uint32`` of the wire
(protos/arena/v1/arena.proto) and the C ``int`` of gRPC's handshake timeout."""

_KEYS: Final = {"decision": "decision_ms", "bank": "bank_ms", "grace": "grace_ms",
                "startup": "startup_ms"}  # fmt: skip
"""The text form's keys and the fields they set."""


@dataclass(frozen=True)
class TimeControl:
    """The limits of one match, in milliseconds."""

    decision_ms: int = 1000
    """Allowance for every decision."""
    bank_ms: int = 10_000
    """Extra time per game that slow decisions draw from."""
    grace_ms: int = 50
    """Transport margin added to every deadline, never charged to the bot."""
    startup_ms: int = 10_000
    """Time a bot process has to connect and say hello."""

    def __post_init__(self) -> None:
        for name in _KEYS.values():
            value = getattr(self, name)
            # bool is an int to Python, but True is no number of milliseconds.
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer of milliseconds")
            if value > MAX_MS:
                raise ValueError(f"{name} must be at most {MAX_MS} ms (one day), got {value}")
        if self.decision_ms == 0:
            raise ValueError("decision_ms must be positive")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Parse ``decision=1000,bank=10000,grace=50,startup=10000`` (any subset, in ms).

        This is the one parser of every ``--time-control`` and of stored tournaments, so
        it refuses here what the referee could not honour later: a value above
        :data:`MAX_MS`, and a key given twice (which of ``decision=1000,decision=5`` was
        meant cannot be known, so neither silently wins).

        :raises ValueError: on an unknown or repeated key, a bad number, or a value out of
            range.
        """
        values: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, raw = (piece.strip() for piece in part.partition("="))
            if not sep or key not in _KEYS:
                raise ValueError(
                    f"bad time control {part!r}: use decision=MS,bank=MS,grace=MS,startup=MS"
                )
            if _KEYS[key] in values:
                raise ValueError(f"bad time control {text!r}: {key!r} is given twice")
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(
                    f"bad time control {part!r}: {raw!r} is not milliseconds"
                ) from None
            if not 0 <= value <= MAX_MS:
                raise ValueError(
                    f"bad time control {part!r}: {key} must be 0 to {MAX_MS} ms (one day)"
                )
            values[_KEYS[key]] = value
        return cls(**values)

    def __str__(self) -> str:
        return (
            f"decision={self.decision_ms},bank={self.bank_ms},"
            f"grace={self.grace_ms},startup={self.startup_ms}"
        )


class Clock:
    """One seat's clock for one game: a fresh allowance per decision and a shrinking bank."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank_ms = float(control.bank_ms)

    @property
    def deadline_ms(self) -> float:
        """How long the next decision may take before it is a timeout."""
        return self.control.decision_ms + self.bank_ms + self.control.grace_ms

    def charge(self, elapsed_ms: float) -> None:
        """Draw the time a decision took beyond its allowance from the bank."""
        over = elapsed_ms - self.control.decision_ms
        if over > 0:
            self.bank_ms = max(0.0, self.bank_ms - over)
