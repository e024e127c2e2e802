"""The tournament tables: what was scheduled (rules, seed, entrants), a ladder's settings
and stored matches, a version test's settings, and the test-match requests."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Double,
    Index,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from arena.game.dealing import HMAC_SHUFFLE
from arena.storage.models.columns import (
    BOARD_DEALS,
    DealScope,
    RatingMode,
    utc_field,
)

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
    created_at: datetime = utc_field()
    finished_at: datetime | None = utc_field(nullable=True)
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
    left_at: datetime | None = utc_field(nullable=True)
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
    scheduled_at: datetime = utc_field()


# ----------------------------------------------------------------------- version tests


class VersionTest(SQLModel, table=True):
    """The settings of a version test (``arena bot compare``): who against whom, the margin
    and the error rates. Its games are the tournament's; its progress is computed from them."""

    __tablename__ = "version_test"

    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    spec: str = Field(sa_type=Text)
    """JSON of :class:`arena.tournament.compare.VersionTestSpec`."""


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
    requested_at: datetime = utc_field()
    started_at: datetime | None = utc_field(nullable=True)
    finished_at: datetime | None = utc_field(nullable=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournament.id", nullable=True)
    """The private tournament its games are stored in, once it is made."""
    message: str = Field(default="", max_length=500)
    """Why it failed, in one line."""
