"""Managing accounts: what ``arena user add/list/disable/enable/reset`` do.

Each function takes the acting user and refuses unless it is an organiser, so a
participant's ``--user`` cannot make accounts. A password is generated here (or typed by
the organiser, and then held to :mod:`arena.accounts.policy`), returned once for the
caller to show, and stored only as its hash; no function logs it. Its user must replace it
after the first login (:func:`arena.accounts.logins.change_password`): it is a password
someone else knows.
"""

from __future__ import annotations

import logging

from sqlalchemy import Engine

from arena.accounts.passwords import hash_password, new_password
from arena.accounts.policy import check_password
from arena.storage.database import StorageError
from arena.storage.models import LOCAL_ORGANISER, Role
from arena.storage.users import (
    Actor,
    UserInfo,
    create_user,
    list_users,
    require_role,
    resolve_user,
    set_disabled,
    set_password_hash,
)

LOGGER = logging.getLogger(__name__)


def _organisers_password(name: str, typed: str | None) -> str:
    """The password an organiser typed for *name* (if it meets the policy), or a new random
    one.

    :raises PasswordRefused: for a typed password the policy refuses.
    """
    if typed is None:
        return new_password()
    check_password(typed, name)
    return typed


def add_user(
    engine: Engine,
    by: Actor,
    name: str,
    role: Role,
    email: str | None = None,
    *,
    password: str | None = None,
    must_change_password: bool = True,
) -> str:
    """Create user *name* with *role*; its one-time password (*password* if the organiser
    typed one, else a random one), which is shown nowhere else.

    The user must replace it after the first login (*must_change_password*, which only a
    script seeding an arena turns off: the organiser knows that password).

    :raises PermissionDenied: unless *by* is an organiser.
    :raises PasswordRefused: for a typed password the policy refuses.
    :raises StorageError: for an invalid or taken name or email.
    """
    require_role(by, "organiser", "adding a user")
    password = _organisers_password(name, password)
    create_user(
        engine,
        name,
        role,
        hash_password(password),
        email,
        must_change_password=must_change_password,
    )
    LOGGER.info("%s added %s user %s", by.name, role, name)
    return password


def reset_password(
    engine: Engine,
    by: Actor,
    name: str,
    *,
    password: str | None = None,
    must_change_password: bool = True,
) -> str:
    """Give user *name* a new one-time password (ending its sessions): *password* if the
    organiser typed one, else a random one; the password. The user must replace it after
    logging in with it (*must_change_password*).

    :raises PermissionDenied: unless *by* is an organiser.
    :raises PasswordRefused: for a typed password the policy refuses.
    :raises StorageError: for an unknown user.
    """
    require_role(by, "organiser", "resetting a password")
    user = resolve_user(engine, name)
    if user is None:
        raise StorageError(f"no user named {name[:70]!r}")
    password = _organisers_password(user.name, password)
    set_password_hash(engine, user.name, hash_password(password), must_change=must_change_password)
    LOGGER.info("%s reset the password of %s", by.name, user.name)
    return password


def disable_user(engine: Engine, by: Actor, name: str) -> None:
    """Disable user *name*: its sessions end, its logins and ``--user`` are refused; its
    bots and their games stay.

    ``local``, the host's own organiser, cannot be disabled (so the arena always has an
    organiser), and nobody disables themselves.

    :raises PermissionDenied: unless *by* is an organiser.
    :raises StorageError: for an unknown user, ``local`` or *by* itself.
    """
    require_role(by, "organiser", "disabling a user")
    user = resolve_user(engine, name)
    if user is None:
        raise StorageError(f"no user named {name[:70]!r}")
    name = user.name  # the stored spelling: `LOCAL` is `local`, and stays enabled
    if name == by.name:
        raise StorageError("you cannot disable yourself; ask another organiser")
    if name == LOCAL_ORGANISER:
        raise StorageError(f"{LOCAL_ORGANISER!r} is the host's own identity and stays enabled")
    set_disabled(engine, name, True)
    LOGGER.info("%s disabled %s", by.name, name)


def enable_user(engine: Engine, by: Actor, name: str) -> None:
    """Enable user *name* again.

    :raises PermissionDenied: unless *by* is an organiser.
    :raises StorageError: for an unknown user.
    """
    require_role(by, "organiser", "enabling a user")
    set_disabled(engine, name, False)
    LOGGER.info("%s enabled %s", by.name, name)


def users(engine: Engine, by: Actor) -> list[UserInfo]:
    """Every account (names, roles, state; never a hash).

    :raises PermissionDenied: unless *by* is an organiser.
    """
    require_role(by, "organiser", "listing users")
    return list_users(engine)
