"""The arena's database: bots, tournaments, game records and ratings (sqlmodel + alembic).

Open it once per process with :func:`open_database` and pass the engine to the functions
of the domain modules, each of which runs one short session:

* ``database`` -- the engine, migrations, :class:`StorageError` and the one decorator that
  turns database failures into it;
* ``models`` -- the tables, and the constants they imply (``CONTRACTS``, ``BOARD_SIZE``);
* ``users`` -- accounts and roles (:class:`Actor`, :func:`require_role`); ``logins`` --
  login attempts, open sessions and trusted devices;
* ``bots`` -- submitted bots and versions, each bot owned by a user; ``tournaments`` -- tournaments, entrants,
  status and progress; ``games`` -- storing and reading game records; ``ratings`` --
  the rating updates;
* ``standings`` -- the read models the CLI and the dashboard share (standings, rating
  history); ``statistics`` -- the dashboard's other statistics.

The names below are the ones the rest of the arena uses. ``standings`` and ``ratings``
here are the functions; import from those modules by name
(``from arena.storage.standings import StandingRow``).
"""

from __future__ import annotations

from arena.storage.bots import (
    BotInfo,
    VersionInfo,
    add_bot_version,
    bot_overview,
    bot_owner,
    bot_versions,
    get_bot,
    get_bot_version,
    latest_version,
    list_bots,
)
from arena.storage.database import (
    StorageError,
    default_url,
    make_engine,
    migrate,
    open_database,
)
from arena.storage.games import (
    GameAlreadyStored,
    GameRow,
    game_count,
    game_page,
    game_record,
    game_row,
    games_in_range,
    record_game,
    stored_indexes,
    tournament_game_ids,
    tournament_records,
)
from arena.storage.ladder import (
    LADDER_FORMAT,
    EntrantLeft,
    LadderEntrant,
    ScheduledMatch,
    enter_new_versions,
    enter_open_ladders,
    enter_version,
    ladder_entrants,
    ladder_matches,
    ladder_settings,
    schedule_match,
    set_ladder_open,
    unfinished_matches,
    version_quota_refusal,
    withdraw_entry,
)
from arena.storage.models import BOARD_SIZE, CONTRACTS, TRUMPS, row_id
from arena.storage.ratings import ratings, recompute_ratings
from arena.storage.standings import RatingPoint, StandingRow, rating_history, standings
from arena.storage.statistics import (
    ContractStats,
    FaultCount,
    FaultRow,
    HeadToHead,
    RecordStats,
    contract_stats,
    fault_counts,
    faults,
    head_to_head,
    record_stats,
    t_quantile,
)
from arena.storage.tournaments import (
    Progress,
    TournamentInfo,
    count_arena_fault,
    create_tournament,
    entries,
    get_tournament,
    list_tournaments,
    progress,
    set_status,
    tournament_overview,
)
from arena.storage.users import (
    Actor,
    PermissionDenied,
    UserInfo,
    actor,
    list_user_rows,
    require_role,
)

__all__ = [
    "BOARD_SIZE",
    "CONTRACTS",
    "LADDER_FORMAT",
    "TRUMPS",
    "Actor",
    "BotInfo",
    "ContractStats",
    "EntrantLeft",
    "FaultCount",
    "FaultRow",
    "GameAlreadyStored",
    "GameRow",
    "HeadToHead",
    "LadderEntrant",
    "PermissionDenied",
    "Progress",
    "RatingPoint",
    "RecordStats",
    "ScheduledMatch",
    "StandingRow",
    "StorageError",
    "TournamentInfo",
    "UserInfo",
    "VersionInfo",
    "actor",
    "add_bot_version",
    "bot_overview",
    "bot_owner",
    "bot_versions",
    "contract_stats",
    "count_arena_fault",
    "create_tournament",
    "default_url",
    "enter_new_versions",
    "enter_open_ladders",
    "enter_version",
    "entries",
    "fault_counts",
    "faults",
    "game_count",
    "game_page",
    "game_record",
    "game_row",
    "games_in_range",
    "get_bot",
    "get_bot_version",
    "get_tournament",
    "head_to_head",
    "ladder_entrants",
    "ladder_matches",
    "ladder_settings",
    "latest_version",
    "list_bots",
    "list_tournaments",
    "list_user_rows",
    "make_engine",
    "migrate",
    "open_database",
    "progress",
    "rating_history",
    "ratings",
    "recompute_ratings",
    "record_game",
    "record_stats",
    "require_role",
    "row_id",
    "schedule_match",
    "set_ladder_open",
    "set_status",
    "standings",
    "stored_indexes",
    "t_quantile",
    "tournament_game_ids",
    "tournament_overview",
    "tournament_records",
    "unfinished_matches",
    "version_quota_refusal",
    "withdraw_entry",
]
