"""What every table module shares: the constraint naming convention, the column types
(UTC timestamps, 256-bit seeds as text), the constants their checks name, and
:func:`row_id`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final, Literal, Protocol

from sqlalchemy import (
    DateTime,
    Dialect,
    String,
    TypeDecorator,
)
from sqlmodel import Field, SQLModel

from arena.game.cards import Trump
from arena.storage.database import StorageError

# Named constraints, so later migrations can alter them (SQLite batch mode needs names).
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

RatingMode = Literal["game", "board"]
"""``game``: every game rated alone; ``board``: a board's games rated once, by total score."""
TournamentStatus = Literal["created", "running", "interrupted", "finished", "failed"]
"""``interrupted``: stopped before the end (Ctrl-C, a lost worker); resuming continues it."""

RATING_MODES: Final = ("game", "board")
DealScope = Literal["board", "table"]
"""Which games share a deal key: ``board``, board *n* of every table; ``table``, only one
table's board *n* (so a worker can keep one table's processes for all its boards while
another plays another table: docs/scaling.md)."""
BOARD_DEALS: Final = "board"
TABLE_DEALS: Final = "table"
STATUSES: Final = ("created", "running", "interrupted", "finished", "failed")
CONTRACTS: Final = (9, 5, 2)
"""The contracts ``game_seat`` counts hands and makes of (``hands_9`` ... ``made_2``)."""
TRUMPS: Final = tuple(trump.value for trump in Trump)
"""Trump calls in display order (``S``, ``H``, ``D``, ``C``, ``NT``)."""
ROLES: Final = ("organiser", "participant")
"""``organiser``: everything; ``participant``: submits and manages only their own bots."""
Role = Literal["organiser", "participant"]
LOCAL_ORGANISER: Final = "local"
"""The identity the host's CLI acts as unless ``--user`` names another (migration 0003 makes
it, and owns every bot submitted before accounts existed). It has no password until
``arena user reset local`` gives it one."""
SUBMITTED_VIA: Final = ("cli", "dashboard", "api", "unknown")
"""How a version was submitted; ``unknown`` for versions stored before accounts existed."""
BOARD_SIZE: Final = 6
"""Games per duplicate board: the 3! seatings of three bots over the same deals."""


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """``TIMESTAMP WITH TIME ZONE`` that always gives back aware UTC datetimes.

    PostgreSQL keeps the zone; SQLite stores the UTC wall time and we re-attach UTC on read.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class SeedText(TypeDecorator[int]):
    """An integer of up to 256 bits (a keyed deal seed) stored as decimal text: no database
    integer type holds it on both SQLite and PostgreSQL, and text is exact on both."""

    impl = String(80)
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> str | None:
        return None if value is None else str(int(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> int | None:
        return None if value is None else int(value)


class _Stored(Protocol):
    """A table row: its ``id`` is set once it has been stored."""

    @property
    def id(self) -> int | None: ...


def row_id(row: _Stored) -> int:
    """The primary key of a stored row (always set once it has been read back).

    :raises StorageError: for a row that was never stored.
    """
    if row.id is None:
        raise StorageError(f"{type(row).__name__} has not been stored")
    return row.id


def utc_field(nullable: bool = False) -> Any:
    """A UTC timestamp field, set to now on insert unless nullable."""
    if nullable:
        return Field(default=None, sa_type=UTCDateTime, nullable=True)
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
