"""A bot's games across its versions, newest first, a page at a time by game id: what the
HTTP API's ``GET /api/v1/bots/{name}/games?after=...`` lists.

Keyset pagination (games with an id below the last one seen) rather than an offset, so a
page stays right while new games are stored and costs one index range whatever its depth.
Which games a viewer may see is :mod:`arena.storage.workspace`'s rule (private tournaments
only for the user they are private to and organisers); who may list a bot's games at all
is :func:`arena.storage.workspace.check_may_read_bot`'s, which the caller asks first.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import Engine
from sqlalchemy import select as sa_select
from sqlmodel import col

from arena.storage.database import database_errors, read_rows
from arena.storage.models import BotVersion, Game, GameSeat, Tournament
from arena.storage.privacy import Viewer
from arena.storage.workspace_games import (
    GameTiming,
    _visible,
    seat_faults,
    stored_games,
    timing,
)

MAX_PAGE: Final = 200
"""The most games one page lists."""


@dataclass(frozen=True, slots=True)
class BotGame:
    """One game of a bot, with what its author looks at first."""

    game_id: int
    tournament: str
    private: bool
    """A private tournament's game (a test match)."""
    schedule_index: int
    created_at: datetime
    version: str
    """The label of the bot's version that played (the newest one, if several did)."""
    seats: tuple[int, ...]
    """The seats the bot's versions (the chosen one only, if one was chosen) sat in."""
    faults: int
    """Faults of those seats."""
    timing: GameTiming


@database_errors
def bot_version_labels(engine: Engine, bot_id: int) -> dict[int, str]:
    """Version id -> label of every version of bot *bot_id*."""
    rows = read_rows(
        engine,
        sa_select(col(BotVersion.id), col(BotVersion.label)).where(
            col(BotVersion.bot_id) == bot_id
        ),
    )
    return {int(version_id): str(label) for version_id, label in rows}


@database_errors
def bot_games(
    engine: Engine,
    version_ids: Collection[int],
    viewer: Viewer,
    labels: dict[int, str],
    *,
    after: int | None = None,
    limit: int = 50,
) -> list[BotGame]:
    """Games of the versions *version_ids* (one bot's, labelled by *labels*) that *viewer*
    may see, with an id below *after* (all, if ``None``), newest first, at most *limit*
    (capped at :data:`MAX_PAGE` and one more, which tells a caller that a page follows)."""
    if not version_ids or limit <= 0:
        return []
    chosen = sorted(set(version_ids))
    ids = sa_select(col(Game.id)).join(GameSeat, col(GameSeat.game_id) == col(Game.id))
    ids = ids.join(Tournament, col(Tournament.id) == col(Game.tournament_id))
    ids = ids.where(col(GameSeat.bot_version_id).in_(chosen)).where(_visible(viewer))
    if after is not None:
        ids = ids.where(col(Game.id) < after)
    page = [
        int(row[0])
        for row in read_rows(
            engine, ids.distinct().order_by(col(Game.id).desc()).limit(min(limit, MAX_PAGE + 1))
        )
    ]
    if not page:
        return []
    out = []
    for game in stored_games(engine, page):
        seats = tuple(s for s, v in enumerate(game.seats) if v in chosen)
        newest = max(game.seats[s] for s in seats)
        out.append(
            BotGame(
                game_id=game.game_id,
                tournament=game.tournament,
                private=game.private,
                schedule_index=game.schedule_index,
                created_at=game.created_at,
                version=labels.get(newest, "?"),
                seats=seats,
                faults=seat_faults(game.record, seats),
                timing=timing(game.record, seats),
            )
        )
    return out


__all__ = ["MAX_PAGE", "BotGame", "bot_games", "bot_version_labels"]
