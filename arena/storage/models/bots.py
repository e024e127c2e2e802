"""The bot tables: every bot, each distinct set of its files (a version), and every
submission tried."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    Index,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from arena.storage.models.columns import (
    utc_field,
)

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
    created_at: datetime = utc_field()
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
    submitted_at: datetime = utc_field()
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
    submitted_at: datetime = utc_field()
    finished_at: datetime | None = utc_field(nullable=True)
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
