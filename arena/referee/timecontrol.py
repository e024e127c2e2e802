"""Time control: limits the referee measures and enforces (STYLE.md 16).

A decision may take ``decision_ms``; time beyond that is drawn from the game's bank;
``grace_ms`` absorbs transport jitter and is never charged. A reply later than
``decision_ms + bank + grace`` is a timeout.
"""

from __future__ import annotations

from dataclasses import dataclass


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
        for name in ("decision_ms", "bank_ms", "grace_ms", "startup_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer of milliseconds")
        if self.decision_ms == 0:
            raise ValueError("decision_ms must be positive")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Parse ``decision=1000,bank=10000,grace=50,startup=10000`` (any subset, in ms).

        :raises ValueError: on an unknown key or a bad number.
        """
        values: dict[str, int] = {}
        keys = {"decision": "decision_ms", "bank": "bank_ms", "grace": "grace_ms",
                "startup": "startup_ms"}  # fmt: skip
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, raw = part.partition("=")
            if not sep or key.strip() not in keys:
                raise ValueError(
                    f"bad time control {part!r}: use decision=MS,bank=MS,grace=MS,startup=MS"
                )
            try:
                values[keys[key.strip()]] = int(raw)
            except ValueError:
                raise ValueError(
                    f"bad time control {part!r}: {raw!r} is not milliseconds"
                ) from None
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
