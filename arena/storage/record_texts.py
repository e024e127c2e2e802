"""Stored game records as the text the database holds, before anything parses it.

``arena replay`` and ``arena export`` read records through here rather than through
:func:`arena.storage.games.game_record` / :func:`~arena.storage.games.tournament_records`,
which parse every record as they read: one record damaged in the database (cut short,
edited by hand, restored badly) then ends the whole read in a bare ``JSONDecodeError``
that names no game. Here each record comes with its game id and schedule index, so the
caller parses and checks it (:func:`arena.recordfiles.load_record`) and names the game
that is wrong.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import col, select

from arena.storage.database import StorageError, database_errors, read_session
from arena.storage.models import Game


@dataclass(frozen=True, slots=True)
class RecordText:
    """One stored game's record, unparsed."""

    game_id: int
    """The game's row id (what ``arena replay`` takes)."""
    schedule_index: int
    """Its place in the tournament's schedule (what ``arena export`` names files by)."""
    text: str
    """The ``record`` column as stored: meant to be an ``arena952.game/1`` JSON object."""


@database_errors
def game_record_text(engine: Engine, game_id: int) -> RecordText:
    """The stored record of game *game_id*, unparsed.

    :raises StorageError: if there is no such game.
    """
    with read_session(engine) as session:
        row = session.exec(
            select(Game.schedule_index, Game.record).where(Game.id == game_id)
        ).first()
    if row is None:
        raise StorageError(f"no game with id {game_id}")
    index, text = row
    return RecordText(game_id, index, text)


@database_errors
def tournament_record_texts(engine: Engine, tournament_id: int) -> list[RecordText]:
    """Every stored record of a tournament, unparsed, in schedule order."""
    with read_session(engine) as session:
        rows = session.exec(
            select(Game.id, Game.schedule_index, Game.record)
            .where(Game.tournament_id == tournament_id)
            .order_by(col(Game.schedule_index))
        ).all()
    return [
        RecordText(game_id, index, text) for game_id, index, text in rows if game_id is not None
    ]
