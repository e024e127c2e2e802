"""The account tables: users and their logins (attempts, devices, sessions), invites
and sign-up attempts, settings of the arena, and personal API tokens."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Index,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from arena.storage.models.columns import (
    UTCDateTime,
    utc_field,
)

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
    created_at: datetime = utc_field()
    password_set_at: datetime | None = utc_field(nullable=True)
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
    at: datetime = utc_field()
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
    created_at: datetime = utc_field()
    last_used_at: datetime = utc_field()


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
    created_at: datetime = utc_field()
    last_seen_at: datetime = utc_field()
    expires_at: datetime = Field(sa_type=UTCDateTime)
    """The hard end; an idle session ends earlier (see arena.accounts.sessions)."""
    origin: str | None = Field(default=None, max_length=255, nullable=True)
    """The web origin (scheme, host, port) the login was made on: its cookie counts only
    from there. ``None``: a session made before origins were recorded."""


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
    expires_at: datetime | None = utc_field(nullable=True)
    """``None``: never expires."""
    revoked: bool = Field(default=False, sa_type=Boolean)
    created_at: datetime = utc_field()
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
    at: datetime = utc_field()


class ArenaSetting(SQLModel, table=True):
    """An organiser's setting of the whole arena (``arena settings set``), as text; the
    typed registry is :mod:`arena.storage.settings`."""

    __tablename__ = "arena_setting"

    key: str = Field(max_length=64, primary_key=True)
    value: str = Field(max_length=255)
    updated_at: datetime = utc_field()
    updated_by: int | None = Field(default=None, foreign_key="arena_user.id", nullable=True)


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
    created_at: datetime = utc_field()
    expires_at: datetime | None = utc_field(nullable=True)
    last_used_at: datetime | None = utc_field(nullable=True)
    revoked_at: datetime | None = utc_field(nullable=True)
