"""The game and rating tables: each played game with its record, its seats' numbers,
and every rating update with the current value."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Double,
    Index,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from arena.storage.models.columns import (
    SeedText,
    utc_field,
)

# ------------------------------------------------------------------------------ games


class GameBase(SQLModel):
    schedule_index: int
    """Position in the tournament's schedule; unique per tournament."""
    table_index: int
    board_index: int
    seating_index: int
    seed: int = Field(sa_type=SeedText)
    """The board's deal key (up to 256 bits, so stored as decimal text)."""
    seats: str = Field(sa_type=Text)
    """JSON list of the 3 bot_version ids, by seat."""
    winners: str = Field(sa_type=Text)
    """JSON list of winning seats (more than one on a shared first place)."""
    reason: str = Field(max_length=16)
    """``target``, ``negative``, ``overtime``, ``draw`` or ``capped``."""
    scores: str = Field(sa_type=Text)
    """JSON list of final scores, by seat."""
    hands_played: int
    fault_count: int


class Game(GameBase, table=True):
    """One played game and its whole record."""

    __tablename__ = "game"
    __table_args__ = (UniqueConstraint("tournament_id", "schedule_index"),)

    id: int | None = Field(default=None, primary_key=True)
    # No separate index: the unique constraint's index starts with tournament_id.
    tournament_id: int = Field(foreign_key="tournament.id")
    record: str = Field(sa_type=Text)
    """The whole ``arena952.game/1`` record as JSON."""
    created_at: datetime = utc_field()


class GamePublic(GameBase):
    """A game without its (large) record."""

    id: int
    tournament_id: int
    created_at: datetime


class GameSeat(SQLModel, table=True):
    """One seat of one game: who sat there and how it went."""

    __tablename__ = "game_seat"
    __table_args__ = (Index("ix_game_seat_bot_version_id", "bot_version_id"),)

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_version_id: int = Field(foreign_key="bot_version.id")
    score: int
    rank: int
    """0 = first; ties share a rank; a faulted seat ranks below every clean one."""
    won: bool
    """In ``result.winners`` (outright or shared first place)."""
    faulted: bool
    """The seat has at least one entry in the record's ``faults``."""
    hands_9: int
    made_9: int
    """Hands played with contract 9, and those where tricks won >= 9."""
    hands_5: int
    made_5: int
    hands_2: int
    made_2: int


# ---------------------------------------------------------------------------- ratings


class RatingSnapshot(SQLModel, table=True):
    """A bot version's rating after one rating update; every snapshot is kept."""

    __tablename__ = "rating_snapshot"
    __table_args__ = (
        # Also the index for "snapshots of a bot in a tournament", and it enforces
        # one snapshot per rated game (or board) per bot.
        UniqueConstraint("tournament_id", "bot_version_id", "schedule_index"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    bot_version_id: int = Field(foreign_key="bot_version.id")
    schedule_index: int
    """The game (or the last game of the board) after which this rating holds."""
    mu: float = Field(sa_type=Double)
    sigma: float = Field(sa_type=Double)
    games: int
    """Rated games of this bot in this tournament so far."""


class Rating(SQLModel, table=True):
    """A bot version's current rating in a tournament (the last snapshot)."""

    __tablename__ = "rating"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    bot_version_id: int = Field(foreign_key="bot_version.id", primary_key=True)
    mu: float = Field(sa_type=Double)
    sigma: float = Field(sa_type=Double)
    games: int
    rated_through: int
    """Schedule index of the last update that included this bot."""
