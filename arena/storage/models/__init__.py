"""The arena's tables (sqlmodel), plus the Create/Public variants callers pass around.

What is stored and why:

* ``User``: the arena's accounts (organisers and participants; spectators need none), and
  ``LoginAttempt`` / ``LoginSession`` / ``LoginDevice``: every dashboard login tried (the
  throttle counts them), the sessions that are open, by the hash of their token, and the
  browsers that have logged in before (their device cookies, by hash).
* ``Bot`` / ``BotVersion``: every distinct set of bot files ever submitted, so a game always
  names the exact program that played it; a bot belongs to the user who first submitted it,
  and every version says who submitted it and how.
* ``Tournament`` / ``Entry``: what was scheduled (rules, time control, seed, entrants in order).
* ``Game``: one row per played game with the whole ``arena952.game/1`` record as JSON text,
  the record being the fact everything else is computed from (docs/style.md 19).
  ``(tournament_id, schedule_index)`` is unique, so no scheduled game is stored twice.
* ``LiveGame``: the public view of each game being played now (:mod:`~arena.storage.models.live`).
* ``PlayGame``: a person's game against two bots on the Play page: their seat's own view,
  the decision asked and their answer, the finished record (:mod:`~arena.storage.models.play`).
* ``GameSeat``: the per-seat numbers of a game (score, rank, contracts made), denormalised
  from the record for fast standings and dashboards.
* ``BotTally``: the sums of a bot version's ``game_seat`` rows in a tournament, kept in the
  transaction that stores each game, so standings read one row per entrant;
  ``PairBoardTally`` / ``PairTally``: the same for the head-to-head of each pair of bots.
* ``RatingSnapshot`` / ``Rating``: every rating update ever made, never overwritten, and the
  current value per bot version and tournament (docs/style.md 6).

The tables live by domain: :mod:`~arena.storage.models.columns` (the naming convention,
column types and constants every table shares), :mod:`~arena.storage.models.accounts`,
:mod:`~arena.storage.models.bots`, :mod:`~arena.storage.models.tournaments` and
:mod:`~arena.storage.models.games`. Importing this package registers every table on
``SQLModel.metadata``, which the migrations are compared with (``migrations/env.py``).

JSON columns are ``TEXT`` holding JSON, identical on SQLite and PostgreSQL. Timestamps are
timezone-aware UTC on both (SQLite has no time zones, so :class:`UTCDateTime` restores it).
"""

from __future__ import annotations

from arena.storage.models.accounts import (
    ApiToken,
    ArenaSetting,
    Invite,
    LoginAttempt,
    LoginDevice,
    LoginSession,
    SignUpAttempt,
    User,
)
from arena.storage.models.bots import (
    Bot,
    BotBase,
    BotPublic,
    BotVersion,
    BotVersionBase,
    BotVersionPublic,
    Submission,
)
from arena.storage.models.columns import (
    BOARD_DEALS,
    BOARD_SIZE,
    CONTRACTS,
    LOCAL_ORGANISER,
    RATING_MODES,
    ROLES,
    STATUSES,
    SUBMITTED_VIA,
    TABLE_DEALS,
    TRUMPS,
    DealScope,
    RatingMode,
    Role,
    SeedText,
    TournamentStatus,
    UTCDateTime,
    row_id,
    utcnow,
)
from arena.storage.models.games import (
    BotTally,
    Game,
    GameBase,
    GamePublic,
    GameSeat,
    PairBoardTally,
    PairTally,
    Rating,
    RatingSnapshot,
)
from arena.storage.models.live import LiveGame
from arena.storage.models.play import PlayGame
from arena.storage.models.tournaments import (
    Entry,
    LadderMatch,
    LadderSettings,
    TestMatch,
    Tournament,
    TournamentBase,
    TournamentCreate,
    TournamentPublic,
    VersionTest,
)

__all__ = [
    "BOARD_DEALS",
    "BOARD_SIZE",
    "CONTRACTS",
    "LOCAL_ORGANISER",
    "RATING_MODES",
    "ROLES",
    "STATUSES",
    "SUBMITTED_VIA",
    "TABLE_DEALS",
    "TRUMPS",
    "ApiToken",
    "ArenaSetting",
    "Bot",
    "BotBase",
    "BotPublic",
    "BotTally",
    "BotVersion",
    "BotVersionBase",
    "BotVersionPublic",
    "DealScope",
    "Entry",
    "Game",
    "GameBase",
    "GamePublic",
    "GameSeat",
    "Invite",
    "LadderMatch",
    "LadderSettings",
    "LiveGame",
    "LoginAttempt",
    "LoginDevice",
    "LoginSession",
    "PairBoardTally",
    "PairTally",
    "PlayGame",
    "Rating",
    "RatingMode",
    "RatingSnapshot",
    "Role",
    "SeedText",
    "SignUpAttempt",
    "Submission",
    "TestMatch",
    "Tournament",
    "TournamentBase",
    "TournamentCreate",
    "TournamentPublic",
    "TournamentStatus",
    "UTCDateTime",
    "User",
    "VersionTest",
    "row_id",
    "utcnow",
]
