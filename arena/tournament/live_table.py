"""The runner's side of the live feed: each game's public view into the live table.

The run loop (:mod:`arena.tournament.loop`) opens a :class:`LiveTable` for a run: it clears
the rows a killed run of the tournament left (and any other tournament's stale ones), gives
the executor its callback, deletes a game's row once the game is stored or replayed, and
clears the tournament's rows when the run ends, however it ends. A failed live write is
logged and forgotten: the feed never stops a run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Engine

from arena.storage import live
from arena.storage.database import StorageError
from arena.tournament.jobs import GameJob

LOGGER = logging.getLogger(__name__)


class LiveTable:
    """The live rows of one run of tournament *tournament_id*; *table_of* names a job's
    table (``None`` for a format without tables)."""

    def __init__(
        self,
        engine: Engine,
        tournament_id: int,
        table_of: Callable[[GameJob], int | None],
    ) -> None:
        self.engine = engine
        self.tournament_id = tournament_id
        self.table_of = table_of
        self.failed = False
        """A write failed once (logged once; the feed goes on trying)."""

    def open(self) -> None:
        """Clear what a killed run left: this tournament's rows, and stale ones anywhere."""
        live.clear_live(self.engine, self.tournament_id)
        live.sweep_stale_live(self.engine)

    def update(self, job: GameJob, view: dict[str, Any], at: float) -> None:
        """Store *job*'s newest public view, made at *at* (the executor's live callback)."""
        self._quietly(
            live.upsert_live,
            self.engine,
            self.tournament_id,
            job.schedule_index,
            table_index=self.table_of(job),
            game_id=job.game_id,
            players=list(job.labels),
            state=view,
            decided_at=datetime.fromtimestamp(at, UTC),
        )

    def end(self, job: GameJob) -> None:
        """*job*'s game is stored, or will be played again: its row goes."""
        self._quietly(live.end_live, self.engine, self.tournament_id, job.schedule_index)

    def close(self) -> None:
        """The run ends: no row of it stays."""
        self._quietly(live.clear_live, self.engine, self.tournament_id)

    def _quietly(self, write: Callable[..., object], *args: Any, **kwargs: Any) -> None:
        try:
            write(*args, **kwargs)
        except StorageError as exc:
            if not self.failed:
                LOGGER.warning("the live table could not be written (the run goes on): %s", exc)
            self.failed = True
