"""Accounts in the database: users and their roles, login attempts, and open sessions.

What a user may do is decided here, next to the rows it protects, so the CLI and the
dashboard cannot disagree: an :class:`Actor` is who is acting, and :func:`require_role` and
:func:`arena.storage.bots.add_bot_version` (which checks a bot's owner in the same
transaction that stores the version) refuse with :class:`PermissionDenied`. Hashing
passwords and the login rules live above, in :mod:`arena.accounts`; this module stores
only what they produce (argon2 hashes, SHA-256 of session tokens), never a secret.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import Engine, delete, func, update
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from arena.storage.database import (
    StorageError,
    database_errors,
    read_rows,
    read_session,
    write_session,
)
from arena.storage.models import (
    LOCAL_ORGANISER,
    ROLES,
    Bot,
    LoginAttempt,
    LoginSession,
    Role,
    User,
    row_id,
    utcnow,
)

LOGGER = logging.getLogger(__name__)

USER_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Letters, digits, ``_``, ``.`` and ``-``, starting with a letter or digit, 1-64 long:
safe in a shell, a URL and a log line."""


class PermissionDenied(StorageError):
    """The actor may not do this; the message says why, in one line."""


@dataclass(frozen=True)
class Actor:
    """Who is acting: a stored, enabled user, as read at the start of the action."""

    id: int
    name: str
    role: Role

    @property
    def is_organiser(self) -> bool:
        return self.role == "organiser"


@dataclass(frozen=True)
class UserInfo:
    """One account as ``arena user list`` and the dashboard show it (no hash)."""

    name: str
    role: str
    email: str | None
    disabled: bool
    has_password: bool
    created_at: datetime
    bots: int


def require_role(actor: Actor, role: Role, action: str) -> None:
    """Refuse *action* unless *actor* has *role* (an organiser may do everything).

    :raises PermissionDenied: naming the action and the role it needs.
    """
    if actor.role == role or actor.is_organiser:
        return
    raise PermissionDenied(f"{action} needs an {role} account; {actor.name} is a {actor.role}")


def check_user_name(name: str) -> str:
    """*name* if it is a valid user name.

    :raises StorageError: saying what a name may hold.
    """
    if not USER_NAME.fullmatch(name):
        raise StorageError(
            f"invalid user name {name[:70]!r}: use 1-64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


def _actor(user: User) -> Actor:
    role = user.role
    if role not in ROLES:  # the table's CHECK makes this impossible; keep mypy honest
        raise StorageError(f"user {user.name!r} has an unknown role {role!r}")
    return Actor(row_id(user), user.name, "organiser" if role == "organiser" else "participant")


@database_errors
def find_user(engine: Engine, name: str) -> User | None:
    """The user called *name* (disabled or not), or ``None``."""
    with read_session(engine) as session:
        return session.exec(select(User).where(User.name == name)).first()


@database_errors
def find_user_by_email(engine: Engine, email: str) -> User | None:
    """The user whose identity-provider address is *email* (compared case-insensitively)."""
    with read_session(engine) as session:
        return session.exec(
            select(User).where(func.lower(User.email) == email.strip().lower())
        ).first()


@database_errors
def actor(engine: Engine, name: str = LOCAL_ORGANISER) -> Actor:
    """The enabled user *name* as an :class:`Actor` (by default the host's ``local``).

    :raises PermissionDenied: for an unknown or disabled user.
    """
    with read_session(engine) as session:
        user = session.exec(select(User).where(User.name == name)).first()
    if user is None:
        raise PermissionDenied(f"no user named {name[:70]!r} (see `arena user list`)")
    if user.disabled:
        raise PermissionDenied(f"user {name!r} is disabled")
    return _actor(user)


@database_errors
def actor_by_id(engine: Engine, user_id: int) -> Actor | None:
    """The user with id *user_id* as an :class:`Actor`, or ``None`` if gone or disabled."""
    with read_session(engine) as session:
        user = session.get(User, user_id)
    if user is None or user.disabled:
        return None
    return _actor(user)


@database_errors
def create_user(
    engine: Engine, name: str, role: Role, password_hash: str | None, email: str | None = None
) -> User:
    """Store a new user.

    :raises StorageError: for an invalid or taken name, an unknown role or a taken email.
    """
    check_user_name(name)
    if role not in ROLES:
        raise StorageError(f"unknown role {role!r}: choose organiser or participant")
    email = email.strip() if email else None
    if email is not None and ("@" not in email or len(email) > 254):
        raise StorageError(f"invalid email address {email[:70]!r}")
    if email is not None and find_user_by_email(engine, email) is not None:
        raise StorageError(f"email {email!r} already belongs to another user")
    now = utcnow()
    user = User(
        name=name,
        role=role,
        email=email,
        password_hash=password_hash,
        password_set_at=now if password_hash else None,
    )
    try:
        with write_session(engine) as session:
            session.add(user)
            session.commit()
    except IntegrityError:
        raise StorageError(f"user name {name!r} is taken") from None
    LOGGER.info("created %s user %s", role, name)
    return user


@database_errors
def list_users(engine: Engine) -> list[UserInfo]:
    """Every account, by name, with how many bots it owns."""
    owned = (
        sa_select(col(Bot.owner_id), func.count().label("bots"))
        .group_by(col(Bot.owner_id))
        .subquery()
    )
    statement = (
        sa_select(
            col(User.name),
            col(User.role),
            col(User.email),
            col(User.disabled),
            col(User.password_hash).is_not(None),
            col(User.created_at),
            func.coalesce(owned.c.bots, 0),
        )
        .outerjoin(owned, owned.c.owner_id == col(User.id))
        .order_by(col(User.name))
    )
    return [UserInfo(*row) for row in read_rows(engine, statement)]


@database_errors
def list_user_rows(engine: Engine) -> list[User]:
    """Every user row (with its hash: for code that needs ids, never for display)."""
    with read_session(engine) as session:
        return list(session.exec(select(User).order_by(col(User.name))).all())


def _named(session: Session, name: str) -> User:
    """The user *name*, in *session*.

    :raises StorageError: for an unknown user.
    """
    user = session.exec(select(User).where(User.name == name)).first()
    if user is None:
        raise StorageError(f"no user named {name[:70]!r}")
    return user


def _end_sessions(session: Session, user: User) -> None:
    """Delete every open login session of *user* (a new password, a disabled account)."""
    session.execute(delete(LoginSession).where(col(LoginSession.user_id) == row_id(user)))


@database_errors
def set_password_hash(engine: Engine, name: str, password_hash: str) -> None:
    """Replace *name*'s password hash and end all its sessions.

    :raises StorageError: for an unknown user.
    """
    with write_session(engine) as session:
        user = _named(session, name)
        user.password_hash = password_hash
        user.password_set_at = utcnow()
        session.add(user)
        _end_sessions(session, user)
        session.commit()


@database_errors
def set_disabled(engine: Engine, name: str, disabled: bool) -> None:
    """Disable (ending all its sessions) or enable user *name*.

    :raises StorageError: for an unknown user.
    """
    with write_session(engine) as session:
        user = _named(session, name)
        user.disabled = disabled
        session.add(user)
        if disabled:
            _end_sessions(session, user)
        session.commit()


# ------------------------------------------------------------------- login bookkeeping


@database_errors
def record_login_attempt(
    engine: Engine, user_name: str, client: str, succeeded: bool, at: datetime
) -> None:
    """Remember one login attempt made at *at* (the rate limit counts the failures)."""
    with write_session(engine) as session:
        session.add(
            LoginAttempt(user_name=user_name[:64], client=client[:64], succeeded=succeeded, at=at)
        )
        session.commit()


@database_errors
def failures_since(
    engine: Engine, since: datetime, *, user_name: str | None = None, client: str | None = None
) -> tuple[int, datetime | None]:
    """Failed logins since *since* for a user name or a client: ``(count, oldest)``."""
    statement = sa_select(func.count(), func.min(LoginAttempt.at)).where(
        col(LoginAttempt.at) >= since, col(LoginAttempt.succeeded).is_(False)
    )
    if user_name is not None:
        statement = statement.where(col(LoginAttempt.user_name) == user_name[:64])
    if client is not None:
        statement = statement.where(col(LoginAttempt.client) == client[:64])
    count, oldest = read_rows(engine, statement)[0]
    if oldest is not None and oldest.tzinfo is None:  # SQLite's min() returns raw text/naive
        oldest = oldest.astimezone()
    return int(count), oldest


@database_errors
def open_session(
    engine: Engine, token_hash: str, user_id: int, method: str, expires_at: datetime
) -> None:
    """Store a new session under the SHA-256 of its token."""
    with write_session(engine) as session:
        session.add(
            LoginSession(
                token_hash=token_hash, user_id=user_id, method=method, expires_at=expires_at
            )
        )
        session.commit()


@database_errors
def session_actor(
    engine: Engine, token_hash: str, now: datetime, idle_since: datetime
) -> tuple[Actor, str] | None:
    """The actor of a live session and how it logged in, marking the session as seen now.

    A session is live until its ``expires_at`` and while it was seen after *idle_since*;
    a dead session, or one of a disabled user, is deleted and gives ``None``.
    """
    with write_session(engine) as session:
        found = session.exec(
            select(LoginSession).where(LoginSession.token_hash == token_hash)
        ).first()
        if found is None:
            return None
        user = session.get(User, found.user_id)
        if (
            user is None
            or user.disabled
            or found.expires_at <= now
            or found.last_seen_at <= idle_since
        ):
            session.delete(found)
            session.commit()
            return None
        session.execute(
            update(LoginSession).where(col(LoginSession.id) == found.id).values(last_seen_at=now)
        )
        session.commit()
        return _actor(user), found.method


@database_errors
def close_session(engine: Engine, token_hash: str) -> None:
    """End one session (logging out); nothing happens if it is already gone."""
    with write_session(engine) as session:
        session.execute(delete(LoginSession).where(col(LoginSession.token_hash) == token_hash))
        session.commit()
