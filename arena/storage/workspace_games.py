"""The games of an author's bot version, as My bots and ``arena bot logs`` show them: a page of
them with each game's faults and time per decision, a game's record redacted for the
viewer, all of a version's records, and which tournaments (a private one is a test
match's) the viewer may see."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import ColumnElement, Engine, func, or_
from sqlalchemy import select as sa_select
from sqlmodel import col

from arena.storage.database import StorageError, database_errors, read_rows
from arena.storage.models import (
    Game,
    GameSeat,
    Tournament,
)
from arena.storage.privacy import Viewer, owners_of_seats, redact_record

MAX_PAGE: Final = 200
"""The most games one page lists."""


@dataclass(frozen=True, slots=True)
class GameTiming:
    """The time one version took per decision in one game (all its seats together)."""

    decisions: int
    mean_ms: float
    p99_ms: float
    max_ms: float

    def percent_of(self, limit_ms: int | None) -> float | None:
        """The slowest decision as a percentage of the per-decision limit (above 100: it
        drew on the bank); ``None`` without a limit."""
        if not limit_ms or not self.decisions:
            return None
        return 100.0 * self.max_ms / limit_ms


@dataclass(frozen=True, slots=True)
class VersionGame:
    """A game a version played, with what its author looks at first."""

    game_id: int
    tournament_id: int
    tournament: str
    private: bool
    """A private tournament's game (a test match)."""
    schedule_index: int
    created_at: datetime
    seats: tuple[int, ...]
    """The seats the version sat in."""
    faults: int
    """Faults of the version's seats."""
    timing: GameTiming
    time_control: str
    """The game's time control text (``decision=1000,bank=...``)."""


def _visible(viewer: Viewer) -> ColumnElement[bool]:
    """Tournaments *viewer* may see: public ones, and private ones that are theirs."""
    if viewer.organiser:
        return col(Tournament.id).is_not(None)
    mine = col(Tournament.private_to) == viewer.user_id if viewer.user_id is not None else None
    public = col(Tournament.private_to).is_(None)
    return public if mine is None else or_(public, mine)


@database_errors
# ----------------------------------------------------------------------------- games


def _version_games(version_id: int, viewer: Viewer) -> Any:
    return (
        sa_select(col(Game.id))
        .join(GameSeat, col(GameSeat.game_id) == col(Game.id))
        .join(Tournament, col(Tournament.id) == col(Game.tournament_id))
        .where(col(GameSeat.bot_version_id) == version_id)
        .where(_visible(viewer))
        .distinct()
    )


@database_errors
def version_game_count(engine: Engine, version_id: int, viewer: Viewer) -> int:
    """Stored games of version *version_id* that *viewer* may see."""
    inner = _version_games(version_id, viewer).subquery()
    ((count,),) = read_rows(engine, sa_select(func.count()).select_from(inner))
    return int(count)


@database_errors
def version_games(
    engine: Engine, version_id: int, viewer: Viewer, *, start: int = 0, limit: int = 20
) -> list[VersionGame]:
    """A page of version *version_id*'s games that *viewer* may see, newest first, each
    with the version's faults and time per decision (from the records of this page only).
    """
    ids = [
        row[0]
        for row in read_rows(
            engine,
            _version_games(version_id, viewer)
            .order_by(col(Game.id).desc())
            .offset(max(0, start))
            .limit(max(0, min(limit, MAX_PAGE))),
        )
    ]
    if not ids:
        return []
    out = []
    for game in stored_games(engine, ids):
        seats = tuple(s for s, v in enumerate(game.seats) if v == version_id)
        out.append(
            VersionGame(
                game_id=game.game_id,
                tournament_id=game.tournament_id,
                tournament=game.tournament,
                private=game.private,
                schedule_index=game.schedule_index,
                created_at=game.created_at,
                seats=seats,
                faults=seat_faults(game.record, seats),
                timing=timing(game.record, seats),
                time_control=str(game.record.get("time_control") or game.time_control),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A stored game with its tournament's facts and its parsed record, as a page of an
    author's games needs it (:func:`version_games`, :mod:`arena.storage.bot_games`)."""

    game_id: int
    tournament_id: int
    tournament: str
    private: bool
    schedule_index: int
    created_at: datetime
    seats: tuple[int, ...]
    """Each seat's bot version id."""
    record: dict[str, Any]
    time_control: str
    """The tournament's time control text."""


def stored_games(engine: Engine, ids: Sequence[int]) -> list[StoredGame]:
    """The stored games *ids*, newest first, in one query."""
    rows = read_rows(
        engine,
        sa_select(
            col(Game.id),
            col(Game.tournament_id),
            col(Tournament.name),
            col(Tournament.private_to),
            col(Game.schedule_index),
            col(Game.created_at),
            col(Game.seats),
            col(Game.record),
            col(Tournament.time_control),
        )
        .join(Tournament, col(Tournament.id) == col(Game.tournament_id))
        .where(col(Game.id).in_(ids))
        .order_by(col(Game.id).desc()),
    )
    return [
        StoredGame(
            game_id=int(game_id),
            tournament_id=int(tournament_id),
            tournament=str(name),
            private=private_to is not None,
            schedule_index=int(index),
            created_at=created,
            seats=tuple(int(v) for v in json.loads(seats_text)),
            record=json.loads(text),
            time_control=str(tc),
        )
        for game_id, tournament_id, name, private_to, index, created, seats_text, text, tc in rows
    ]


def seat_faults(record: dict[str, Any], seats: Sequence[int]) -> int:
    """The faults of *seats* in *record*."""
    return sum(
        1 for f in record.get("faults") or [] if isinstance(f, dict) and f.get("seat") in seats
    )


def timing(record: dict[str, Any], seats: Sequence[int]) -> GameTiming:
    """The time per decision of *seats* in *record* (``timings.decision_ms``): mean, 99th
    percentile (nearest rank, as the referee's match statistics) and maximum."""
    timings = record.get("timings")
    per_seat = timings.get("decision_ms") if isinstance(timings, dict) else None
    times: list[float] = []
    if isinstance(per_seat, list):
        for seat in seats:
            if 0 <= seat < len(per_seat) and isinstance(per_seat[seat], list):
                times += [float(t) for t in per_seat[seat] if isinstance(t, int | float)]
    if not times:
        return GameTiming(0, 0.0, 0.0, 0.0)
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return GameTiming(len(times), sum(times) / len(times), p99, ordered[-1])


@database_errors
def viewable_record(engine: Engine, game_id: int, viewer: Viewer) -> dict[str, Any]:
    """Stored game *game_id*'s record as *viewer* may read it (:func:`redact_record`).

    :raises StorageError: if there is no such game, or it belongs to a private tournament
        that is not the viewer's (the same words: its existence is private too).
    """
    rows = read_rows(
        engine,
        sa_select(col(Game.seats), col(Game.record))
        .join(Tournament, col(Tournament.id) == col(Game.tournament_id))
        .where(col(Game.id) == game_id)
        .where(_visible(viewer)),
    )
    if not rows:
        raise StorageError(f"no game with id {game_id}")
    seats_text, text = rows[0]
    seats = [int(s) for s in json.loads(seats_text)]
    return redact_record(json.loads(text), viewer, owners_of_seats(engine, seats))


@database_errors
def version_records(
    engine: Engine, version_id: int, viewer: Viewer, *, limit: int
) -> list[tuple[VersionGame, dict[str, Any]]]:
    """The newest *limit* games of version *version_id* that *viewer* may see, each with
    its record as the viewer may read it (for an archive of a version's games)."""
    games = []
    for start in range(0, max(0, limit), MAX_PAGE):
        page = version_games(
            engine, version_id, viewer, start=start, limit=min(MAX_PAGE, limit - start)
        )
        games += page
        if len(page) < MAX_PAGE:
            break
    return [(game, viewable_record(engine, game.game_id, viewer)) for game in games]


@database_errors
def may_see_tournament(engine: Engine, tournament_id: int, viewer: Viewer) -> bool:
    """Whether *viewer* may see tournament *tournament_id* at all (a private one is its
    requester's and the organisers')."""
    rows = read_rows(
        engine,
        sa_select(col(Tournament.id))
        .where(col(Tournament.id) == tournament_id)
        .where(_visible(viewer)),
    )
    return bool(rows)
