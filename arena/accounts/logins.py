"""Dashboard logins: checking a password, limiting failed tries, and sessions that end.

The rules, all in :class:`LoginPolicy`:

* **Rate limit.** Failed logins are counted per typed user name and per client address over
  a sliding window (OWASP's Authentication Cheat Sheet: throttle per account and per
  source). At the limit, the next try is refused without checking the password until the
  oldest counted failure leaves the window. Refused tries are not counted again, so a
  lock ends on its own; every verified try is kept in ``login_attempt``.
* **Sessions.** A login opens a session named by a 256-bit random token; the database keeps
  only its SHA-256. A session ends after ``idle`` without use, after ``lifetime`` in any
  case, at logout, and when its user is disabled or gets a new password.
* **No probing.** A wrong user name and a wrong password get the same message and cost the
  same argon2 verification.

Identities from an OpenID Connect provider (Streamlit's ``st.login``) get a session the
same way, for the user whose ``--email`` the provider vouches for.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import Engine

from arena.accounts.passwords import verify
from arena.storage.models import utcnow
from arena.storage.users import (
    USER_NAME,
    Actor,
    actor_by_id,
    close_session,
    failures_since,
    find_user,
    find_user_by_email,
    open_session,
    record_login_attempt,
    session_actor,
    set_password_hash,
)

LOGGER = logging.getLogger(__name__)

TOKEN_BYTES: Final = 32


class LoginRefused(ValueError):
    """The login was refused; the message is one line for the person logging in."""


class LoginThrottled(LoginRefused):
    """Too many failed logins lately; ``retry_after`` says for how long to wait."""

    def __init__(self, message: str, retry_after: timedelta) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class LoginPolicy:
    """How many failures are allowed and how long sessions live."""

    window: timedelta = timedelta(minutes=15)
    max_user_failures: int = 5
    """Failed logins per user name within ``window`` before it is locked."""
    max_client_failures: int = 20
    """Failed logins per client address within ``window`` (whatever names it tries)."""
    idle: timedelta = timedelta(minutes=30)
    lifetime: timedelta = timedelta(hours=12)

    @classmethod
    def from_environment(cls) -> LoginPolicy:
        """The defaults, with ``ARENA_SESSION_IDLE_MINUTES`` and ``ARENA_SESSION_HOURS``
        when set.

        :raises ValueError: for a value that is not a positive number.
        """
        policy = cls()
        idle = _positive("ARENA_SESSION_IDLE_MINUTES")
        hours = _positive("ARENA_SESSION_HOURS")
        return cls(
            idle=timedelta(minutes=idle) if idle else policy.idle,
            lifetime=timedelta(hours=hours) if hours else policy.lifetime,
        )


def _positive(variable: str) -> float | None:
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or math.isinf(value):
        raise ValueError(f"${variable} must be a positive number, got {raw!r}")
    return value


IDENTITY_PROVIDER: Final = "oidc"
"""The ``method`` of a session that single sign-on opened (:func:`log_in_identity`)."""


@dataclass(frozen=True)
class Session:
    """An open session: hand ``token`` back to :func:`current` on every request."""

    token: str
    actor: Actor
    method: str
    expires_at: datetime


def _typed(name: str) -> str:
    """What was typed as a user name, safe to count, store and look up: stripped, control
    characters (a NUL, which PostgreSQL text refuses, among them) replaced, 64 at most."""
    cleaned = "".join("\ufffd" if unicodedata.category(c).startswith("C") else c for c in name)
    return cleaned.strip()[:64]


def token_hash(token: str) -> str:
    """What the database keeps of a session token."""
    return hashlib.sha256(token.encode()).hexdigest()


def log_in(
    engine: Engine,
    name: str,
    password: str,
    client: str,
    policy: LoginPolicy = LoginPolicy(),
    now: datetime | None = None,
) -> Session:
    """Check *name*'s *password* for a login from *client* and open a session.

    :raises LoginThrottled: while the user name or the client is over its failure limit.
    :raises LoginRefused: for a wrong name or password, a disabled user, or no password set.
    :raises arena.storage.StorageError: if the database fails.
    """
    now = now or utcnow()
    name = _typed(name)
    _check_throttle(engine, name, client, policy, now)
    user = find_user(engine, name) if USER_NAME.fullmatch(name) else None
    ok, new_hash = verify(password, user.password_hash if user else None)
    if user is None or not ok:
        record_login_attempt(engine, name, client, succeeded=False, at=now)
        LOGGER.warning("failed login for %r from %s", name[:64], client)
        raise LoginRefused("wrong user name or password")
    if user.disabled:
        record_login_attempt(engine, name, client, succeeded=False, at=now)
        raise LoginRefused(f"user {name} is disabled; ask an organiser")
    record_login_attempt(engine, name, client, succeeded=True, at=now)
    if new_hash is not None:
        set_password_hash(engine, name, new_hash)
    actor = actor_by_id(engine, user.id or 0)
    if actor is None:
        raise LoginRefused(f"user {name} is disabled; ask an organiser")
    return _open(engine, actor, "password", policy, now)


def log_in_identity(
    engine: Engine,
    email: str,
    client: str,
    policy: LoginPolicy = LoginPolicy(),
    now: datetime | None = None,
) -> Session:
    """Open a session for the user whose address an identity provider has verified.

    :raises LoginRefused: when no enabled user has that address.
    """
    now = now or utcnow()
    if not email.strip() or any(unicodedata.category(c).startswith("C") for c in email):
        raise LoginRefused("the identity provider sent an unusable email address")
    user = find_user_by_email(engine, email)
    if user is None or user.id is None:
        record_login_attempt(engine, email, client, succeeded=False, at=now)
        raise LoginRefused(
            f"{email} has no arena account: ask an organiser for "
            "`arena user add NAME --role participant --email ADDRESS`"
        )
    actor = actor_by_id(engine, user.id)
    if actor is None:
        record_login_attempt(engine, user.name, client, succeeded=False, at=now)
        raise LoginRefused(f"user {user.name} is disabled; ask an organiser")
    record_login_attempt(engine, user.name, client, succeeded=True, at=now)
    return _open(engine, actor, IDENTITY_PROVIDER, policy, now)


def provider_vouches(engine: Engine, session: Session, email: str | None) -> bool:
    """Whether *session* may go on while the identity provider reports *email* as its
    verified address (``None``: nobody is logged in there).

    A session that single sign-on opened lives only while the provider vouches for the
    same account: a reload that finds it again (the dashboard's cookie) must not outlive
    a logout at the provider, nor carry one person's session into another's provider
    login in the same browser. Any other session is not the provider's business.
    """
    if session.method != IDENTITY_PROVIDER:
        return True
    if email is None:
        return False
    user = find_user_by_email(engine, email)
    return user is not None and user.id == session.actor.id


def current(
    engine: Engine, token: str, policy: LoginPolicy = LoginPolicy(), now: datetime | None = None
) -> Session | None:
    """The live session of *token*, or ``None`` once it has ended (it is then forgotten)."""
    now = now or utcnow()
    found = session_actor(engine, token_hash(token), now, now - policy.idle)
    if found is None:
        return None
    actor, method = found
    return Session(token, actor, method, now + policy.idle)


def log_out(engine: Engine, token: str) -> None:
    """End the session of *token*."""
    close_session(engine, token_hash(token))


def _open(engine: Engine, actor: Actor, method: str, policy: LoginPolicy, now: datetime) -> Session:
    token = secrets.token_urlsafe(TOKEN_BYTES)
    expires_at = now + policy.lifetime
    open_session(engine, token_hash(token), actor.id, method, expires_at)
    LOGGER.info("%s logged in (%s)", actor.name, method)
    return Session(token, actor, method, expires_at)


def _check_throttle(
    engine: Engine, name: str, client: str, policy: LoginPolicy, now: datetime
) -> None:
    since = now - policy.window
    for count, oldest, limit, what in (
        (*failures_since(engine, since, user_name=name), policy.max_user_failures, "this user"),
        (*failures_since(engine, since, client=client), policy.max_client_failures, "your address"),
    ):
        if count >= limit and oldest is not None:
            wait = max(oldest + policy.window - now, timedelta(seconds=1))
            minutes = math.ceil(wait.total_seconds() / 60)
            raise LoginThrottled(
                f"too many failed logins for {what}: try again in {minutes} minute(s)", wait
            )
