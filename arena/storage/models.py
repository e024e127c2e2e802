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
* ``GameSeat``: the per-seat numbers of a game (score, rank, contracts made), denormalised
  from the record for fast standings and dashboards.
* ``RatingSnapshot`` / ``Rating``: every rating update ever made, never overwritten, and the
  current value per bot version and tournament (docs/style.md 6).

JSON columns are ``TEXT`` holding JSON, identical on SQLite and PostgreSQL. Timestamps are
timezone-aware UTC on both (SQLite has no time zones, so :class:`UTCDateTime` restores it).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final, Literal, Protocol

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Double,
    Index,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from arena.game.cards import Trump
from arena.game.dealing import HMAC_SHUFFLE
from arena.storage.database import StorageError

# Named constraints, so later migrations can alter them (SQLite batch mode needs names).
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

RatingMode = Literal["game", "board"]
"""``game``: every game rated alone; ``board``: a board's games rated once, by total score."""
TournamentStatus = Literal["created", "running", "interrupted", "finished", "failed"]
"""``interrupted``: stopped before the end (Ctrl-C, a lost worker); resuming continues it."""

RATING_MODES: Final = ("game", "board")
DealScope = Literal["board", "table"]
"""Which games share a deal key: ``board``, board *n* of every table; ``table``, only one
table's board *n* (so a worker can keep one table's processes for all its boards while
another plays another table: docs/scaling.md)."""
BOARD_DEALS: Final = "board"
TABLE_DEALS: Final = "table"
STATUSES: Final = ("created", "running", "interrupted", "finished", "failed")
CONTRACTS: Final = (9, 5, 2)
"""The contracts ``game_seat`` counts hands and makes of (``hands_9`` ... ``made_2``)."""
TRUMPS: Final = tuple(trump.value for trump in Trump)
"""Trump calls in display order (``S``, ``H``, ``D``, ``C``, ``NT``)."""
ROLES: Final = ("organiser", "participant")
"""``organiser``: everything; ``participant``: submits and manages only their own bots."""
Role = Literal["organiser", "participant"]
LOCAL_ORGANISER: Final = "local"
"""The identity the host's CLI acts as unless ``--user`` names another (migration 0003 makes
it, and owns every bot submitted before accounts existed). It has no password until
``arena user reset local`` gives it one."""
SUBMITTED_VIA: Final = ("cli", "dashboard", "api", "unknown")
"""How a version was submitted; ``unknown`` for versions stored before accounts existed."""
BOARD_SIZE: Final = 6
"""Games per duplicate board: the 3! seatings of three bots over the same deals."""


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """``TIMESTAMP WITH TIME ZONE`` that always gives back aware UTC datetimes.

    PostgreSQL keeps the zone; SQLite stores the UTC wall time and we re-attach UTC on read.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class SeedText(TypeDecorator[int]):
    """An integer of up to 256 bits (a keyed deal seed) stored as decimal text: no database
    integer type holds it on both SQLite and PostgreSQL, and text is exact on both."""

    impl = String(80)
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> str | None:
        return None if value is None else str(int(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> int | None:
        return None if value is None else int(value)


class _Stored(Protocol):
    """A table row: its ``id`` is set once it has been stored."""

    @property
    def id(self) -> int | None: ...


def row_id(row: _Stored) -> int:
    """The primary key of a stored row (always set once it has been read back).

    :raises StorageError: for a row that was never stored.
    """
    if row.id is None:
        raise StorageError(f"{type(row).__name__} has not been stored")
    return row.id


def _when(nullable: bool = False) -> Any:
    """A UTC timestamp field, set to now on insert unless nullable."""
    if nullable:
        return Field(default=None, sa_type=UTCDateTime, nullable=True)
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


# ---------------------------------------------------------------------------- accounts


class User(SQLModel, table=True):
    """An account: an organiser or a participant. Passwords are kept only as argon2 hashes."""

    __tablename__ = "arena_user"  # "user" is reserved in PostgreSQL
    __table_args__ = (
        UniqueConstraint("name"),
        UniqueConstraint("email"),
        CheckConstraint("role IN ('organiser', 'participant')", name="role"),
        Index("ix_arena_user_name_folded", "name_folded", unique=True),
        Index("ix_arena_user_name_shape", "name_shape", unique=True),
        Index("ix_arena_user_name_upper", "name_upper", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64)
    name_folded: str = Field(max_length=255, repr=False)
    """The name's ``folded`` key (:mod:`arena.storage.names`, ``MAX_KEY_LENGTH``): unique,
    so no two users' names look alike (an older look-alike from before migration 0008 is
    marked ``#id``)."""
    name_shape: str = Field(max_length=255, repr=False)
    """The name's ``shape`` key, unique likewise."""
    name_upper: str = Field(max_length=255, repr=False)
    """The name's ``upper`` key, unique likewise."""
    role: str = Field(max_length=16)
    email: str | None = Field(default=None, max_length=254, nullable=True)
    """The address an identity provider (``st.login``) vouches for; ``None``: password only."""
    password_hash: str | None = Field(default=None, sa_type=Text, nullable=True, repr=False)
    """argon2id hash (PHC string); ``None``: no password, so no built-in login."""
    disabled: bool = Field(default=False, sa_type=Boolean)
    created_at: datetime = _when()
    password_set_at: datetime | None = _when(nullable=True)
    must_change_password: bool = Field(default=False, sa_type=Boolean)
    """Set by an organiser's ``user add`` / ``user reset``: that password logs in once, and
    the session can do nothing but replace it (migration 0009)."""


class LoginAttempt(SQLModel, table=True):
    """One dashboard login tried, kept so that failures can be counted per account and
    client, per device, and over the whole arena (:mod:`arena.accounts.throttle`)."""

    __tablename__ = "login_attempt"
    __table_args__ = (
        Index("ix_login_attempt_user_name_at", "user_name", "at"),
        Index("ix_login_attempt_client_at", "client", "at"),
        Index("ix_login_attempt_device_at", "device", "at"),
        Index("ix_login_attempt_at", "at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_name: str = Field(max_length=64)
    """The name typed (known or not: guessing names is counted too), cut to 64 characters."""
    client: str = Field(max_length=64)
    """The client's key (:func:`arena.web.clients.client_key`): its address, or its /64
    network for IPv6, as the server sees it after trusted proxies."""
    succeeded: bool = Field(sa_type=Boolean)
    at: datetime = _when()
    device: str | None = Field(default=None, max_length=64, nullable=True, repr=False)
    """SHA-256 of the device cookie the browser presented, if any."""
    trusted: bool = Field(default=False, sa_type=Boolean)
    """Whether that device had logged in as this user before (OWASP's device cookies):
    failures from trusted devices are counted per device only."""


class LoginDevice(SQLModel, table=True):
    """A browser that has logged in as a user: its device cookie's SHA-256. Failed logins
    from elsewhere cannot lock it out (OWASP, "Slow Down Online Guessing Attacks with
    Device Cookies")."""

    __tablename__ = "login_device"
    __table_args__ = (UniqueConstraint("token_hash", "user_id"),)

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, repr=False)
    user_id: int = Field(foreign_key="arena_user.id")
    created_at: datetime = _when()
    last_used_at: datetime = _when()


class LoginSession(SQLModel, table=True):
    """An open dashboard session. Only the token's SHA-256 is stored: a copy of the database
    opens no session."""

    __tablename__ = "login_session"
    __table_args__ = (UniqueConstraint("token_hash"),)

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, repr=False)
    user_id: int = Field(foreign_key="arena_user.id")
    method: str = Field(max_length=16)
    """``password`` or ``oidc``."""
    created_at: datetime = _when()
    last_seen_at: datetime = _when()
    expires_at: datetime = Field(sa_type=UTCDateTime)
    """The hard end; an idle session ends earlier (see arena.accounts.sessions)."""
    origin: str | None = Field(default=None, max_length=255, nullable=True)
    """The web origin (scheme, host, port) the login was made on: its cookie counts only
    from there. ``None``: a session made before origins were recorded."""


# ------------------------------------------------------------------------------- bots


class BotBase(SQLModel):
    name: str = Field(max_length=64)
    """The manifest name; a bot is all versions submitted under one name."""


class Bot(BotBase, table=True):
    """A bot: a name that versions are submitted under."""

    __tablename__ = "bot"
    __table_args__ = (
        UniqueConstraint("name"),
        Index("ix_bot_name_folded", "name_folded", unique=True),
        Index("ix_bot_name_shape", "name_shape", unique=True),
        Index("ix_bot_name_upper", "name_upper", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    name_folded: str = Field(max_length=255, repr=False)
    """The name's ``folded`` key (:mod:`arena.storage.names`, ``MAX_KEY_LENGTH``): unique,
    so two racing submissions of look-alike new names cannot both be stored."""
    name_shape: str = Field(max_length=255, repr=False)
    """The name's ``shape`` key, unique likewise."""
    name_upper: str = Field(max_length=255, repr=False)
    """The name's ``upper`` key, unique likewise (an older look-alike from before
    migration 0008 is marked ``#id`` in each key it shares)."""
    created_at: datetime = _when()
    owner_id: int = Field(foreign_key="arena_user.id")
    """The user who first submitted the name: only they, or an organiser, add versions."""


class BotPublic(BotBase):
    id: int
    created_at: datetime
    owner_id: int


class BotVersionBase(SQLModel):
    version: str = Field(max_length=32)
    """The manifest's ``version``."""
    label: str = Field(max_length=120)
    """``name@version``, or ``name@version+<checksum[:8]>`` when that version already exists
    with other files; unique per bot, and what records and standings show."""
    checksum: str = Field(max_length=64)
    """sha256 hex of the bot's files."""
    language: str = Field(max_length=64)
    path: str = Field(sa_type=Text)
    """Where the stored copy of the bot's files lives."""


class BotVersion(BotVersionBase, table=True):
    """One submitted set of bot files; never changed once stored."""

    __tablename__ = "bot_version"
    __table_args__ = (
        UniqueConstraint("bot_id", "seq"),
        UniqueConstraint("bot_id", "label"),
        CheckConstraint(
            "submitted_via IN ('cli', 'dashboard', 'api', 'unknown')", name="submitted_via"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id")
    seq: int
    """1, 2, ... in submission order within the bot."""
    manifest: str = Field(sa_type=Text)
    """JSON of the manifest fields."""
    submitted_at: datetime = _when()
    submitted_by: int = Field(foreign_key="arena_user.id")
    submitted_via: str = Field(max_length=16)
    """``cli``, ``dashboard``, ``api`` or ``unknown`` (:data:`SUBMITTED_VIA`)."""


class BotVersionPublic(BotVersionBase):
    id: int
    bot_id: int
    seq: int
    manifest: str
    submitted_at: datetime
    submitted_by: int
    submitted_via: str


# ------------------------------------------------------------------------ tournaments


class TournamentBase(SQLModel):
    name: str = Field(max_length=120)
    ruleset: str = Field(max_length=64)
    """Preset id of the rules, or ``custom``."""
    rules: str = Field(sa_type=Text)
    """JSON of ``RuleSet.to_json()``."""
    time_control: str = Field(max_length=200)
    """E.g. ``decision=1000,bank=10000,grace=50,startup=10000`` (milliseconds)."""
    format: str = Field(default="round_robin", max_length=32)
    boards: int
    seed: int | None = Field(default=None, sa_type=BigInteger, nullable=True)
    """The explicit seed of a reproducible run (its deals are predictable); ``None`` when the
    deals come from a secret."""
    shuffle: str = Field(default=HMAC_SHUFFLE, max_length=32)
    """How board seeds become deals: ``hmac-sha256/1``, or ``mt19937`` for tournaments made
    before keyed deals (board seed ``seed + board``, kept so that they resume unchanged)."""
    rating_mode: str = Field(max_length=16)
    """``game`` or ``board`` (:data:`RatingMode`)."""
    games_total: int
    """Games in the whole schedule; schedule indexes run 0 .. games_total - 1."""
    deal_scope: str = Field(default=BOARD_DEALS, max_length=16)
    """Which games share a deal key (:data:`DealScope`): ``board``, every table's board *n*
    (tournaments made before per-table deals, ladders, version tests), or ``table``, only
    the six seatings of one table's board (round robins since)."""


class Tournament(TournamentBase, table=True):
    """A scheduled set of games between entrants under one rule set and time control."""

    __tablename__ = "tournament"
    __table_args__ = (
        UniqueConstraint("name"),
        CheckConstraint("rating_mode IN ('game', 'board')", name="rating_mode"),
        CheckConstraint("deal_scope IN ('board', 'table')", name="deal_scope"),
        CheckConstraint("status IN ('created', 'running', 'finished', 'failed')", name="status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    status: str = Field(default="created", max_length=16)
    """``created``, ``running``, ``interrupted``, ``finished`` or ``failed``."""
    created_at: datetime = _when()
    finished_at: datetime | None = _when(nullable=True)
    deal_secret: str | None = Field(default=None, max_length=128, repr=False)
    """Hex of the secret every board's deal key is derived from (``None``: legacy). Kept
    only here, never in a Public variant, so nothing that shows a tournament carries it."""
    arena_faults: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Games the arena itself failed (replayed, never rated): a harness-loss count."""
    private_to: int | None = Field(default=None, foreign_key="arena_user.id", nullable=True)
    """A test match's requester: only they and organisers see the tournament, its games and
    their records; ``None``: public, as every tournament before migration 0011."""


class TournamentCreate(TournamentBase):
    """What a caller supplies to create a tournament (validated before storing)."""

    rating_mode: RatingMode
    boards: int = Field(ge=1)
    games_total: int = Field(ge=0)
    deal_scope: DealScope = BOARD_DEALS


class TournamentPublic(TournamentBase):
    id: int
    status: str
    created_at: datetime
    finished_at: datetime | None


class Entry(SQLModel, table=True):
    """An entrant of a tournament, in entry order."""

    __tablename__ = "entry"
    __table_args__ = (
        UniqueConstraint("tournament_id", "bot_version_id"),
        Index("ix_entry_bot_version_id", "bot_version_id"),
    )

    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    position: int = Field(primary_key=True)
    """0, 1, ... in the order the entrants were given."""
    bot_version_id: int = Field(foreign_key="bot_version.id")
    left_at: datetime | None = _when(nullable=True)
    """When the entrant left a ladder (it is scheduled no more; its games and ratings
    stay); ``None``: still in (migration 0011)."""
    left_because: str | None = Field(default=None, max_length=16, nullable=True)
    """``withdrawn`` by its owner or an organiser, or ``retired`` by a newer version of its
    bot entering the same open ladder."""


class LadderSettings(SQLModel, table=True):
    """What a ``ladder`` tournament stops on (its tables are chosen while it plays)."""

    __tablename__ = "ladder"
    __table_args__ = (
        CheckConstraint("games_budget >= 0", name="games_budget"),
        CheckConstraint("confidence > 0.5 AND confidence < 1", name="confidence"),
        CheckConstraint("min_games >= 0", name="min_games"),
    )

    tournament_id: int | None = Field(default=None, foreign_key="tournament.id", primary_key=True)
    """Set when the tournament is stored with it."""
    games_budget: int
    """Games the ladder may schedule in all; 0: no budget (it stops on confidence only)."""
    confidence: float = Field(sa_type=Double)
    """It stops once every bot is above the next with at least this probability ..."""
    min_games: int
    """... and every bot has played at least this many rated games."""
    open: bool = Field(default=False, sa_type=Boolean)
    """An open ladder: a participant's new version enters it by itself once its smoke game
    passes, and retires the bot's previous version there (migration 0011)."""
    max_versions_per_day: int | None = Field(default=None, nullable=True)
    """A participant's versions in 24 hours while this ladder is open; ``None``: no quota."""


class LadderMatch(SQLModel, table=True):
    """A match of a ladder (one duplicate board: 6 games), stored before it is played, so a
    killed ladder resumes it instead of choosing again."""

    __tablename__ = "ladder_match"
    __table_args__ = (UniqueConstraint("tournament_id", "match_index"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    match_index: int
    """0, 1, ...; its games have schedule indexes ``6 * match_index`` to ``+ 5``."""
    bot_version_a: int = Field(foreign_key="bot_version.id")
    """The table's three bot versions, in table order (seating 0 puts them in seats 0-2)."""
    bot_version_b: int = Field(foreign_key="bot_version.id")
    bot_version_c: int = Field(foreign_key="bot_version.id")
    scheduled_at: datetime = _when()


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
    created_at: datetime = _when()


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


# ----------------------------------------------------------------------- version tests


class VersionTest(SQLModel, table=True):
    """The settings of a version test (``arena bot compare``): who against whom, the margin
    and the error rates. Its games are the tournament's; its progress is computed from them."""

    __tablename__ = "version_test"

    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    spec: str = Field(sa_type=Text)
    """JSON of :class:`arena.tournament.compare.VersionTestSpec`."""


# ----------------------------------------------------------------------- joining (0009)


class Invite(SQLModel, table=True):
    """An invitation code (``arena user invite``): only its SHA-256 is kept, as a login
    token's is, so the database alone lets nobody join."""

    __tablename__ = "invite"
    __table_args__ = (
        UniqueConstraint("code_hash"),
        CheckConstraint("role IN ('organiser', 'participant')", name="role"),
        CheckConstraint("max_uses >= 1", name="max_uses"),
        CheckConstraint("uses >= 0 AND uses <= max_uses", name="uses"),
    )

    id: int | None = Field(default=None, primary_key=True)
    code_hash: str = Field(max_length=64, repr=False)
    role: str = Field(max_length=16)
    """The role an account made with the code gets."""
    max_uses: int
    uses: int = Field(default=0)
    """Accounts made with the code so far, counted in the transaction that makes each."""
    expires_at: datetime | None = _when(nullable=True)
    """``None``: never expires."""
    revoked: bool = Field(default=False, sa_type=Boolean)
    created_at: datetime = _when()
    created_by: int = Field(foreign_key="arena_user.id")


class SignUpAttempt(SQLModel, table=True):
    """A sign-up tried on the dashboard: the per-client limit counts them."""

    __tablename__ = "signup_attempt"
    __table_args__ = (Index("ix_signup_attempt_client_at", "client", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    client: str = Field(max_length=64)
    """The visitor's client key (:mod:`arena.web.clients`)."""
    user_name: str = Field(max_length=64)
    succeeded: bool = Field(sa_type=Boolean)
    at: datetime = _when()


class ArenaSetting(SQLModel, table=True):
    """An organiser's setting of the whole arena (``arena settings set``), as text; the
    typed registry is :mod:`arena.storage.settings`."""

    __tablename__ = "arena_setting"

    key: str = Field(max_length=64, primary_key=True)
    value: str = Field(max_length=255)
    updated_at: datetime = _when()
    updated_by: int | None = Field(default=None, foreign_key="arena_user.id", nullable=True)


# ----------------------------------------------------------------------- submissions (0010)


class Submission(SQLModel, table=True):
    """Every submission tried, stored or not, with its build and smoke-game log: what its
    author reads later on My bots, and what the daily version quota counts."""

    __tablename__ = "submission"
    __table_args__ = (
        Index("ix_submission_user_id_submitted_at", "user_id", "submitted_at"),
        Index("ix_submission_bot_version_id", "bot_version_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="arena_user.id")
    bot_name: str = Field(max_length=64)
    """The name the manifest gave (or the archive's, when the manifest did not parse)."""
    version: str | None = Field(default=None, max_length=32, nullable=True)
    via: str = Field(max_length=16)
    """``cli``, ``dashboard`` or ``api``."""
    submitted_at: datetime = _when()
    finished_at: datetime | None = _when(nullable=True)
    outcome: str = Field(default="running", max_length=16)
    """``running``, ``stored``, ``unchanged`` (the same files are stored), ``refused``
    (manifest, name, permission or quota), ``build_failed``, ``smoke_failed`` or
    ``interrupted`` (the API server building it stopped)."""
    message: str = Field(default="", max_length=500)
    """One line: why it failed, or the stored label."""
    log: str = Field(default="", sa_type=Text, repr=False)
    """The build's output and the smoke game's (faults, the bot's stderr), capped: private
    to the submitter and organisers."""
    bot_version_id: int | None = Field(default=None, foreign_key="bot_version.id", nullable=True)


# ----------------------------------------------------------------------- test matches (0011)


class TestMatch(SQLModel, table=True):
    """A participant's unranked test match, queued for the runner: their bot against one
    or two chosen opponents over every seating. It is played as a private tournament."""

    __tablename__ = "test_match"
    __test__ = False  # not a pytest test class
    __table_args__ = (
        Index("ix_test_match_status", "status"),
        Index("ix_test_match_requested_by_requested_at", "requested_by", "requested_at"),
        CheckConstraint("boards >= 1", name="boards"),
    )

    id: int | None = Field(default=None, primary_key=True)
    requested_by: int = Field(foreign_key="arena_user.id")
    bot_version_id: int = Field(foreign_key="bot_version.id")
    opponents: str = Field(sa_type=Text)
    """JSON list of the opponents as asked: bot names or ``builtin:NAME``."""
    boards: int
    ruleset: str = Field(max_length=64)
    status: str = Field(default="queued", max_length=16)
    """``queued``, ``running``, ``played``, ``failed`` or ``cancelled``."""
    requested_at: datetime = _when()
    started_at: datetime | None = _when(nullable=True)
    finished_at: datetime | None = _when(nullable=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournament.id", nullable=True)
    """The private tournament its games are stored in, once it is made."""
    message: str = Field(default="", max_length=500)
    """Why it failed, in one line."""


# ------------------------------------------------------------------ personal tokens (0012)


class ApiToken(SQLModel, table=True):
    """A participant's personal token for the HTTP API (``arena api``): kept only as the
    SHA-256 of the secret, which is shown once. Its scopes are ``submit`` and/or ``read``;
    it acts as a participant even when its owner is an organiser (docs/api.md)."""

    __tablename__ = "api_token"
    __table_args__ = (
        Index("ix_api_token_token_hash", "token_hash", unique=True),
        Index("ix_api_token_user_id", "user_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="arena_user.id")
    name: str = Field(max_length=64)
    """The owner's own label (``laptop``, ``ci``), unique among their live tokens."""
    token_hash: str = Field(max_length=64, repr=False)
    """Hex SHA-256 of the whole secret: a 256-bit random secret needs no slow hash."""
    prefix: str = Field(max_length=16)
    """The secret's first characters, shown in lists so an owner can tell tokens apart."""
    scopes: str = Field(max_length=32)
    """Space-separated, sorted: ``read``, ``submit`` or ``read submit``."""
    created_at: datetime = _when()
    expires_at: datetime | None = _when(nullable=True)
    last_used_at: datetime | None = _when(nullable=True)
    revoked_at: datetime | None = _when(nullable=True)
