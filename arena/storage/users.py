"""Accounts in the database: users and their roles (logins are kept apart, in
:mod:`arena.storage.logins`).

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
from typing import Final, NoReturn

from sqlalchemy import Engine, delete, func
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
    LoginDevice,
    LoginSession,
    Role,
    User,
    row_id,
    utcnow,
)
from arena.storage.name_lookup import (
    AmbiguousName,
    look_alikes,
    resolve_name,
)
from arena.storage.names import name_keys

LOGGER = logging.getLogger(__name__)

USER_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Letters, digits, ``_``, ``.`` and ``-``, starting with a letter or digit, 1-64 long:
safe in a shell, a URL and a log line."""


class PermissionDenied(StorageError):
    """The actor may not do this; the message says why, in one line."""


class NameTaken(StorageError):
    """A new user's name is another user's, or looks like it; the message names it."""


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
    must_change_password: bool
    """The password was set by an organiser and is still to be replaced."""


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


def actor_of(user: User) -> Actor:
    """*user* as an :class:`Actor`."""
    role = user.role
    if role not in ROLES:  # the table's CHECK makes this impossible; keep mypy honest
        raise StorageError(f"user {user.name!r} has an unknown role {role!r}")
    return Actor(row_id(user), user.name, "organiser" if role == "organiser" else "participant")


@database_errors
def find_user(engine: Engine, name: str) -> User | None:
    """The user called exactly *name* (disabled or not), or ``None``.

    Exact on purpose: logins look users up here, and the login throttle counts failures
    per typed name, so a look-alike spelling must not reach the account. Names typed by
    organisers go through :func:`resolve_user`.
    """
    with read_session(engine) as session:
        return session.exec(select(User).where(User.name == name)).first()


@database_errors
def resolve_user(engine: Engine, name: str) -> User | None:
    """The user *name* means (:func:`resolve_name`), disabled or not, or ``None``.

    :raises AmbiguousName: when *name* looks like several users' names.
    """
    with read_session(engine) as session:
        return resolve_name(session, User, name)


@database_errors
def find_user_by_email(engine: Engine, email: str) -> User | None:
    """The user whose identity-provider address is *email* (compared case-insensitively)."""
    with read_session(engine) as session:
        return session.exec(
            select(User).where(func.lower(User.email) == email.strip().lower())
        ).first()


@database_errors
def actor(engine: Engine, name: str = LOCAL_ORGANISER) -> Actor:
    """The enabled user *name* means (:func:`resolve_name`: ``--user Alice`` acts as
    ``alice``) as an :class:`Actor` (by default the host's ``local``).

    :raises PermissionDenied: for an unknown or disabled user.
    :raises AmbiguousName: when *name* looks like several users' names.
    """
    with read_session(engine) as session:
        user = resolve_name(session, User, name)
    if user is None:
        raise PermissionDenied(f"no user named {name[:70]!r} (see `arena user list`)")
    if user.disabled:
        raise PermissionDenied(f"user {user.name!r} is disabled")
    return actor_of(user)


@database_errors
def actor_by_id(engine: Engine, user_id: int) -> Actor | None:
    """The user with id *user_id* as an :class:`Actor`, or ``None`` if gone or disabled."""
    with read_session(engine) as session:
        user = session.get(User, user_id)
    if user is None or user.disabled:
        return None
    return actor_of(user)


@database_errors
def create_user(
    engine: Engine,
    name: str,
    role: Role,
    password_hash: str | None,
    email: str | None = None,
    *,
    must_change_password: bool = False,
) -> User:
    """Store a new user, under a name that looks like no other user's.

    The name is checked in the storing transaction, and the unique indexes on its keys
    refuse a racing look-alike that slips past the check. *must_change_password*: the
    password was set by an organiser, and must be replaced after the first login.

    :raises StorageError: for an invalid or taken name, a name too close to another user's
        (naming it), an unknown role or a taken email.
    """
    email = email.strip() if email else None
    if email is not None and ("@" not in email or len(email) > 254):
        raise StorageError(f"invalid email address {email[:70]!r}")
    if email is not None and find_user_by_email(engine, email) is not None:
        raise StorageError(f"email {email!r} already belongs to another user")
    try:
        with write_session(engine) as session:
            user = add_user_row(
                session, name, role, password_hash, email, must_change_password=must_change_password
            )
            session.commit()
    except IntegrityError:
        refuse_raced_user_name(engine, name)
    LOGGER.info("created %s user %s", role, name)
    return user


def add_user_row(
    session: Session,
    name: str,
    role: Role,
    password_hash: str | None,
    email: str | None = None,
    *,
    must_change_password: bool = False,
) -> User:
    """Add a new user to *session*'s transaction (the caller commits), after checking its
    name there: :func:`create_user`, and a sign-up that counts an invitation's use in the
    same transaction (:mod:`arena.storage.invites`).

    :raises StorageError: for an invalid or taken name, a name too close to another
        user's, or an unknown role.
    """
    check_user_name(name)
    if role not in ROLES:
        raise StorageError(f"unknown role {role!r}: choose organiser or participant")
    now = utcnow()
    keys = name_keys(name)
    user = User(
        name=name,
        name_folded=keys.folded,
        name_shape=keys.shape,
        name_upper=keys.upper,
        role=role,
        email=email,
        password_hash=password_hash,
        password_set_at=now if password_hash else None,
        must_change_password=must_change_password,
    )
    _refuse_taken_user_name(session, name)
    session.add(user)
    session.flush()
    return user


def refuse_raced_user_name(engine: Engine, name: str) -> NoReturn:
    """After a unique index refused a new user (a racing creation won): say whose name.

    :raises NameTaken: always.
    """
    with read_session(engine) as session:
        _refuse_taken_user_name(session, name)
    raise NameTaken(f"user name {name!r} is taken")


def _refuse_taken_user_name(session: Session, name: str) -> None:
    """:raises NameTaken: if *name*, or a name that looks like it, is a user's."""
    if session.exec(select(User.id).where(User.name == name)).first() is not None:
        raise NameTaken(f"user name {name!r} is taken")
    found = look_alikes(session, User, name)
    if found:
        raise NameTaken(
            f"user name {name!r} is too close to {found[0].name!r}: choose another name"
        )


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
            col(User.must_change_password),
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
    """The user *name* means (:func:`resolve_name`), in *session*.

    :raises StorageError: for an unknown user, or a name like several users' names.
    """
    user = resolve_name(session, User, name)
    if user is None:
        raise StorageError(f"no user named {name[:70]!r}")
    return user


def _end_sessions(session: Session, user: User) -> None:
    """Delete every open login session of *user*, and forget the browsers it logged in
    from (a new password, a disabled account): an old device of a stolen password must
    not stay exempt from the login throttle."""
    session.execute(delete(LoginSession).where(col(LoginSession.user_id) == row_id(user)))
    session.execute(delete(LoginDevice).where(col(LoginDevice.user_id) == row_id(user)))


@database_errors
def set_password_hash(
    engine: Engine,
    name: str,
    password_hash: str,
    *,
    new_password: bool = True,
    must_change: bool = False,
) -> None:
    """Replace *name*'s password hash. A new password ends all its sessions; the same
    password hashed again with stronger parameters (*new_password* false) ends nothing and
    leaves :attr:`User.must_change_password` as it is. *must_change*: an organiser set this
    new password, and its user must replace it after logging in.

    :raises StorageError: for an unknown user.
    """
    with write_session(engine) as session:
        user = _named(session, name)
        user.password_hash = password_hash
        if new_password:
            user.password_set_at = utcnow()
            user.must_change_password = must_change
            _end_sessions(session, user)
        session.add(user)
        session.commit()


@database_errors
def replace_own_password(
    engine: Engine,
    user_id: int,
    password_hash: str,
    keep_session: str | None,
    keep_device: str | None,
) -> None:
    """Store the password a user chose themselves: the organiser's password need not be
    replaced any more, the session it was chosen in (SHA-256 *keep_session*) goes on, and
    every other session of the user ends and every other browser is forgotten (a thief of
    the old password loses their session and their device's exemption from the throttle).

    :raises StorageError: for an unknown user.
    """
    with write_session(engine) as session:
        user = session.get(User, user_id)
        if user is None:
            raise StorageError(f"no user with id {user_id}")
        user.password_hash = password_hash
        user.password_set_at = utcnow()
        user.must_change_password = False
        session.add(user)
        other_sessions = delete(LoginSession).where(col(LoginSession.user_id) == user_id)
        other_devices = delete(LoginDevice).where(col(LoginDevice.user_id) == user_id)
        if keep_session is not None:
            other_sessions = other_sessions.where(col(LoginSession.token_hash) != keep_session)
        if keep_device is not None:
            other_devices = other_devices.where(col(LoginDevice.token_hash) != keep_device)
        session.execute(other_sessions)
        session.execute(other_devices)
        session.commit()


@database_errors
def password_change_required(engine: Engine, user_id: int) -> bool:
    """Must user *user_id* replace a password an organiser set before doing anything else?"""
    with read_session(engine) as session:
        found = session.exec(select(User.must_change_password).where(User.id == user_id)).first()
    return bool(found)


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


__all__ = [
    "USER_NAME",
    "Actor",
    "AmbiguousName",
    "NameTaken",
    "PermissionDenied",
    "UserInfo",
    "actor",
    "actor_by_id",
    "actor_of",
    "add_user_row",
    "check_user_name",
    "create_user",
    "find_user",
    "find_user_by_email",
    "list_user_rows",
    "list_users",
    "look_alikes",
    "password_change_required",
    "refuse_raced_user_name",
    "replace_own_password",
    "require_role",
    "resolve_name",
    "resolve_user",
    "set_disabled",
    "set_password_hash",
]
