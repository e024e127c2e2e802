"""The live table's reads and writes (:class:`arena.storage.models.LiveGame`).

The runner upserts one row per game in play from the live feed, deletes it once the game
is stored or replayed, and clears its tournament's rows when a run starts and ends; the
dashboard's Live page lists them. Every write is one short transaction: the runner writes
at most one per game every :data:`arena.tournament.live_feed.LIVE_INTERVAL_S`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import Engine, delete, update
from sqlmodel import col, select

from arena.storage.database import database_errors, read_session, write_session
from arena.storage.models import LiveGame, Tournament, utcnow

STALE_AFTER: Final = timedelta(minutes=30)
"""A row not updated for this long belongs to a runner that died (a decision takes
seconds at most): it is never listed, and the next run of any tournament deletes it."""


@dataclass(frozen=True)
class LiveRow:
    """A game in play as the Live page shows it."""

    tournament: str
    schedule_index: int
    table_index: int | None
    game_id: str
    players: list[str]
    state: dict[str, Any]
    decisions: int
    seconds_since_update: float
    decided_at: datetime
    """When the referee made the stored view (right after the decision it shows)."""


@database_errors
def upsert_live(
    engine: Engine,
    tournament_id: int,
    schedule_index: int,
    *,
    table_index: int | None,
    game_id: str,
    players: list[str],
    state: dict[str, Any],
    decided_at: datetime | None = None,
) -> None:
    """Store *state* (a public view, made at *decided_at*: now if not given) as game
    *schedule_index*'s live row, adding the row on its first update."""
    now = utcnow()
    decided_at = decided_at or now
    text = json.dumps(state, separators=(",", ":"))
    with write_session(engine) as session:
        changed = session.execute(
            update(LiveGame)
            .where(col(LiveGame.tournament_id) == tournament_id)
            .where(col(LiveGame.schedule_index) == schedule_index)
            .values(
                state=text,
                updated_at=now,
                decided_at=decided_at,
                decisions=LiveGame.decisions + 1,
            )
        )
        if not changed.rowcount:  # type: ignore[attr-defined]
            session.add(
                LiveGame(
                    tournament_id=tournament_id,
                    schedule_index=schedule_index,
                    table_index=table_index,
                    game_id=game_id,
                    players=json.dumps(players),
                    state=text,
                    decisions=1,
                    started_at=now,
                    updated_at=now,
                    decided_at=decided_at,
                )
            )
        session.commit()


@database_errors
def end_live(engine: Engine, tournament_id: int, schedule_index: int) -> None:
    """Delete game *schedule_index*'s live row (stored, or to be played again)."""
    with write_session(engine) as session:
        session.execute(
            delete(LiveGame)
            .where(col(LiveGame.tournament_id) == tournament_id)
            .where(col(LiveGame.schedule_index) == schedule_index)
        )
        session.commit()


@database_errors
def clear_live(engine: Engine, tournament_id: int) -> int:
    """Delete every live row of *tournament_id* (a run starts or ends); how many."""
    with write_session(engine) as session:
        gone = session.execute(delete(LiveGame).where(col(LiveGame.tournament_id) == tournament_id))
        session.commit()
    return int(gone.rowcount)  # type: ignore[attr-defined]


@database_errors
def sweep_stale_live(engine: Engine, older_than: timedelta = STALE_AFTER) -> int:
    """Delete every live row not updated for *older_than* (left by a killed runner of a
    tournament no one runs again); how many."""
    with write_session(engine) as session:
        gone = session.execute(
            delete(LiveGame).where(col(LiveGame.updated_at) < utcnow() - older_than)
        )
        session.commit()
    return int(gone.rowcount)  # type: ignore[attr-defined]


@database_errors
def live_rows(engine: Engine, tournament: str | None = None) -> list[LiveRow]:
    """The games in play of public tournaments (of *tournament* only, if named), by
    tournament and schedule index; stale rows are left out."""
    now = utcnow()
    statement = (
        select(LiveGame, Tournament.name)
        .join(Tournament, col(Tournament.id) == col(LiveGame.tournament_id))
        .where(col(Tournament.private_to).is_(None))
        .where(col(LiveGame.updated_at) >= now - STALE_AFTER)
        .order_by(col(Tournament.name), col(LiveGame.schedule_index))
    )
    if tournament is not None:
        statement = statement.where(col(Tournament.name) == tournament)
    with read_session(engine) as session:
        found = session.exec(statement).all()
    return [
        LiveRow(
            tournament=name,
            schedule_index=row.schedule_index,
            table_index=row.table_index,
            game_id=row.game_id,
            players=[str(p) for p in json.loads(row.players)],
            state=json.loads(row.state),
            decisions=row.decisions,
            seconds_since_update=(now - row.decided_at).total_seconds(),
            decided_at=row.decided_at,
        )
        for row, name in found
    ]
