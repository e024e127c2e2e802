"""The arena's database: bots, tournaments, game records and ratings (sqlmodel + alembic).

Open it once per process with :func:`open_database` and pass the engine to the service
functions; see ``service.py`` for what they guarantee.
"""

from __future__ import annotations

from arena.storage.database import (
    StorageError,
    default_url,
    make_engine,
    migrate,
    open_database,
)
from arena.storage.service import (
    GameAlreadyStored,
    StandingRow,
    add_bot_version,
    bot_versions,
    create_tournament,
    entries,
    game_record,
    get_bot,
    get_bot_version,
    get_tournament,
    latest_version,
    list_bots,
    list_tournaments,
    rating_history,
    ratings,
    recompute_ratings,
    record_game,
    set_status,
    standings,
    stored_indexes,
    tournament_game_ids,
    tournament_records,
)

__all__ = [
    "GameAlreadyStored",
    "StandingRow",
    "StorageError",
    "add_bot_version",
    "bot_versions",
    "create_tournament",
    "default_url",
    "entries",
    "game_record",
    "get_bot",
    "get_bot_version",
    "get_tournament",
    "latest_version",
    "list_bots",
    "list_tournaments",
    "make_engine",
    "migrate",
    "open_database",
    "rating_history",
    "ratings",
    "recompute_ratings",
    "record_game",
    "set_status",
    "standings",
    "stored_indexes",
    "tournament_game_ids",
    "tournament_records",
]
