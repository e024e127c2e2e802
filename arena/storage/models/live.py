"""The live table: one row per game being played now, holding only its public view.

A row is written by the runner from the live feed (docs/live.md) while its game is played
and deleted once the game's record is stored, the game is replayed, or the run ends; a run
that starts clears its tournament's rows, so a killed run leaves none for long. The state is
:func:`arena.game.public.public_view` as JSON: nothing any single seat alone knows is ever
stored here, so the table needs no privacy rule of its own.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Text
from sqlmodel import Field, SQLModel

from arena.storage.models.columns import utc_field


class LiveGame(SQLModel, table=True):
    """A game in play, as every onlooker may see it."""

    __tablename__ = "live_game"

    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    schedule_index: int = Field(primary_key=True)
    table_index: int | None = Field(default=None, nullable=True)
    """The schedule's table, when the format has tables (``None`` otherwise)."""
    game_id: str = Field(max_length=200)
    """The game id its record will carry."""
    players: str = Field(sa_type=Text)
    """JSON list of the three seats' labels (bot names: hostile text, escape it)."""
    state: str = Field(sa_type=Text)
    """JSON of the game's latest public view (``arena952.public/1``)."""
    decisions: int = 0
    """Updates received for this game so far (each is a decision, or the start)."""
    started_at: datetime = utc_field()
    updated_at: datetime = utc_field()
    """When the row was last written (by the runner)."""
    decided_at: datetime = utc_field()
    """When the referee made the stored view, right after the decision it shows: the
    feed's delay is ``updated_at - decided_at`` (worker and runner share a clock)."""
