"""Dashboard logins: checking a password, throttling failed tries, and sessions that end.

The rules, all in :class:`LoginPolicy`:

* **Throttle.** :mod:`arena.accounts.throttle` decides which attempts wait: per (account,
  client) pair with growing delays, per client, per account and over the whole arena, and
  never for a browser that has logged in as that user before (its device cookie). A
  refused try is not counted again, so every wait ends on its own; every verified try is
  kept in ``login_attempt``.
* **Sessions.** A login opens a session named by a 256-bit random token; the database keeps
  only its SHA-256, and the web origin the login was made on: the session counts only
  from that origin. A session ends after ``idle`` without use, after ``lifetime`` in any
  case, at logout, and when its user is disabled or gets a new password.
* **No probing.** A wrong user name and a wrong password get the same message and cost the
  same argon2 verification.

Identities from an OpenID Connect provider (Streamlit's ``st.login``) get a session the
same way, for the user whose ``--email`` the provider vouches for.

A user changes their own password here too (:func:`change_password`); a password an
organiser set must be changed before a password session may do anything else
(:func:`must_replace_password`, which the dashboard's gate asks on every page run).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import secrets
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import Engine

from arena.accounts.passwords import hash_password, verify
from arena.accounts.policy import PasswordRefused, check_password
from arena.accounts.throttle import ThrottlePolicy, wait_for
from arena.storage.logins import (
    close_session,
    device_known,
    device_trusted,
    failure_counts,
    open_session,
    record_login_attempt,
    remember_device,
    session_actor,
)
from arena.storage.models import User, utcnow
from arena.storage.users import (
    USER_NAME,
    Actor,
    AmbiguousName,
    actor_by_id,
    find_user,
    find_user_by_email,
    password_change_required,
    replace_own_password,
    resolve_user,
    set_password_hash,
)

LOGGER = logging.getLogger(__name__)

TOKEN_BYTES: Final = 32
TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{43}")
"""What :func:`secrets.token_urlsafe` makes of :data:`TOKEN_BYTES`: a session or device
token from a cookie is looked up only if it has this form."""


class LoginRefused(ValueError):
    """The login was refused; the message is one line for the person logging in."""


class LoginThrottled(LoginRefused):
    """Too many failed logins lately; ``retry_after`` says for how long to wait."""

    def __init__(self, message: str, retry_after: timedelta) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class LoginPolicy:
    """How failed logins are throttled and how long sessions live."""

    throttle: ThrottlePolicy = field(default_factory=ThrottlePolicy)
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
class Visitor:
    """Where a login comes from, as the web server established it (never as the visitor
    claims it)."""

    client: str
    """The client's key (:func:`arena.web.clients.client_key`)."""
    device: str | None = None
    """The device cookie the browser presented, if any."""
    origin: str | None = None
    """The web origin of the page (scheme, host, port); the session counts only there."""


@dataclass(frozen=True)
class Session:
    """An open session: hand ``token`` back to :func:`current` on every request."""

    token: str
    actor: Actor
    method: str
    expires_at: datetime
    device: str | None = None
    """The device token the browser should keep in its device cookie (set by a login)."""


def _typed(name: str) -> str:
    """What was typed as a user name, safe to count, store and look up: stripped, control
    characters (a NUL, which PostgreSQL text refuses, among them) replaced, 64 at most."""
    cleaned = "".join("\ufffd" if unicodedata.category(c).startswith("C") else c for c in name)
    return cleaned.strip()[:64]


def token_hash(token: str) -> str:
    """What the database keeps of a session or device token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _account(engine: Engine, typed: str) -> User | None:
    """The account a typed user name means: the one of that name, else the one stored name
    it looks like (``Alice`` is ``alice``); ``None`` for none, or for a name that looks like
    several (stored before names were compared), which logs nobody in."""
    if not USER_NAME.fullmatch(typed):
        return None
    try:
        return resolve_user(engine, typed)
    except AmbiguousName:
        return None


def _device_hash(visitor: Visitor) -> str | None:
    """The hash of the visitor's device token, if it brought a well-formed one."""
    if visitor.device is None or not TOKEN.fullmatch(visitor.device):
        return None
    return token_hash(visitor.device)


def _visitor(visitor: Visitor | str) -> Visitor:
    return visitor if isinstance(visitor, Visitor) else Visitor(visitor)


def _hold_back(
    engine: Engine,
    name: str,
    user_id: int | None,
    visitor: Visitor,
    policy: LoginPolicy,
    now: datetime,
) -> tuple[str | None, bool]:
    """Refuse a password check for *name* (user *user_id*, if known) by *visitor* while the
    throttle holds it back; else the hash of the visitor's device token and whether that
    device has logged in as the user before (as the attempt is then recorded).

    :raises LoginThrottled: while the throttle holds this attempt back.
    """
    device = _device_hash(visitor)
    trusted = bool(device and user_id and device_trusted(engine, device, user_id))
    since = now - policy.throttle.window
    counts = failure_counts(engine, name, visitor.client, device, trusted, since)
    wait = wait_for(policy.throttle, counts, trusted, now)
    if wait is not None:
        raise LoginThrottled(wait.message(), wait.retry_after)
    return device, trusted


def log_in(
    engine: Engine,
    name: str,
    password: str,
    visitor: Visitor | str,
    policy: LoginPolicy = LoginPolicy(),
    now: datetime | None = None,
) -> Session:
    """Check *name*'s *password* for a login by *visitor* (or from a bare client key) and
    open a session.

    :raises LoginThrottled: while the throttle holds this attempt back (unchecked).
    :raises LoginRefused: for a wrong name or password, a disabled user, or no password set.
    :raises arena.storage.StorageError: if the database fails.
    """
    now = now or utcnow()
    visitor = _visitor(visitor)
    typed = _typed(name)
    user = _account(engine, typed)
    # Counted under the account's own name: spelling it another way (another case, other
    # separators, a look-alike letter) gives a guesser no other allowance.
    name = user.name if user is not None else typed
    device, trusted = _hold_back(engine, name, user.id if user else None, visitor, policy, now)

    def attempt(succeeded: bool) -> None:
        record_login_attempt(engine, name, visitor.client, succeeded, now, device, trusted)

    ok, new_hash = verify(password, user.password_hash if user else None)
    if user is None or user.id is None or not ok:
        attempt(succeeded=False)
        LOGGER.warning("failed login for %r from %s", name[:64], visitor.client)
        raise LoginRefused("wrong user name or password")
    actor = actor_by_id(engine, user.id)
    if actor is None:
        attempt(succeeded=False)
        raise LoginRefused(f"user {name} is disabled; ask an organiser")
    attempt(succeeded=True)
    if new_hash is not None:
        set_password_hash(engine, name, new_hash, new_password=False)
    return _open(engine, actor, "password", visitor, policy, now)


def log_in_identity(
    engine: Engine,
    email: str,
    visitor: Visitor | str,
    policy: LoginPolicy = LoginPolicy(),
    now: datetime | None = None,
) -> Session:
    """Open a session for the user whose address an identity provider has verified.

    :raises LoginRefused: when no enabled user has that address.
    """
    now = now or utcnow()
    visitor = _visitor(visitor)
    if not email.strip() or any(unicodedata.category(c).startswith("C") for c in email):
        raise LoginRefused("the identity provider sent an unusable email address")
    user = find_user_by_email(engine, email)
    if user is None or user.id is None:
        record_login_attempt(engine, email, visitor.client, succeeded=False, at=now)
        raise LoginRefused(
            f"{email} has no arena account: ask an organiser for "
            "`arena user add NAME --role participant --email ADDRESS`"
        )
    actor = actor_by_id(engine, user.id)
    if actor is None:
        record_login_attempt(engine, user.name, visitor.client, succeeded=False, at=now)
        raise LoginRefused(f"user {user.name} is disabled; ask an organiser")
    record_login_attempt(engine, user.name, visitor.client, succeeded=True, at=now)
    return _open(engine, actor, IDENTITY_PROVIDER, visitor, policy, now)


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
    engine: Engine,
    token: str,
    policy: LoginPolicy = LoginPolicy(),
    now: datetime | None = None,
    origin: str | None = None,
) -> Session | None:
    """The live session of *token* as seen from web *origin*, or ``None``: it has ended
    (it is then forgotten), or it was made on another origin (it goes on there)."""
    if not TOKEN.fullmatch(token):
        return None
    now = now or utcnow()
    found = session_actor(engine, token_hash(token), now, now - policy.idle)
    if found is None or found.origin != origin:
        return None
    return Session(token, found.actor, found.method, now + policy.idle)


def log_out(engine: Engine, token: str) -> None:
    """End the session of *token*."""
    close_session(engine, token_hash(token))


# ------------------------------------------------------------------- changing a password


def must_replace_password(engine: Engine, session: Session) -> bool:
    """Must *session* replace its user's password before it may do anything else?

    Only a session opened with a password an organiser set (``user add``, ``user reset``)
    must: a single sign-on session never typed that password, and the CLI's ``--user`` is
    no login.
    """
    if session.method == IDENTITY_PROVIDER:
        return False
    return password_change_required(engine, session.actor.id)


def change_password(
    engine: Engine,
    token: str,
    current_password: str,
    new_password: str,
    confirmation: str,
    visitor: Visitor,
    policy: LoginPolicy = LoginPolicy(),
    now: datetime | None = None,
) -> None:
    """Replace the password of *token*'s user with *new_password*, which the user typed
    twice, after checking *current_password*.

    The session of *token* goes on, and the browser of *visitor* stays trusted; every
    other session of the user ends and every other browser is forgotten, as for any new
    password. A wrong current password counts as a failed login (the throttle's rules):
    a session left open on a shared machine must not become a way to guess the password.

    :raises LoginThrottled: while the throttle holds the check back.
    :raises LoginRefused: for an ended session, a wrong current password, a confirmation
        that differs, the same password again, or one the policy refuses.
    :raises arena.storage.StorageError: if the database fails.
    """
    now = now or utcnow()
    session = current(engine, token, policy, now, origin=visitor.origin)
    if session is None:
        raise LoginRefused("your session ended; log in again")
    name = session.actor.name
    if new_password != confirmation:
        raise LoginRefused("the new password and its confirmation differ")
    try:
        check_password(new_password, name)
    except PasswordRefused as exc:
        raise LoginRefused(str(exc)) from None
    user = find_user(engine, name)
    device, trusted = _hold_back(engine, name, session.actor.id, visitor, policy, now)
    ok, _ = verify(current_password, user.password_hash if user else None)
    record_login_attempt(engine, name, visitor.client, ok, now, device, trusted)
    if not ok:
        LOGGER.warning("wrong current password for %s from %s", name, visitor.client)
        raise LoginRefused("the current password is wrong")
    if new_password == current_password:
        raise LoginRefused("choose a new password, not the current one")
    replace_own_password(
        engine, session.actor.id, hash_password(new_password), token_hash(token), device
    )
    LOGGER.info("%s changed their password", name)


def start_session(
    engine: Engine,
    actor: Actor,
    visitor: Visitor,
    policy: LoginPolicy = LoginPolicy(),
    now: datetime | None = None,
) -> Session:
    """Open a password session for *actor*, who has just proved who they are another way
    (they signed up with the password a moment ago)."""
    return _open(engine, actor, "password", visitor, policy, now or utcnow())


def _open(
    engine: Engine,
    actor: Actor,
    method: str,
    visitor: Visitor,
    policy: LoginPolicy,
    now: datetime,
) -> Session:
    """Open a session for *actor* on *visitor*'s origin, and trust the visitor's browser
    for *actor* from now on (its device token: the one it brought if the arena knows it,
    else a new one, so a token planted by someone else is never made trusted)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    expires_at = now + policy.lifetime
    open_session(engine, token_hash(token), actor.id, method, expires_at, visitor.origin)
    brought = _device_hash(visitor)
    if brought is not None and visitor.device is not None and device_known(engine, brought):
        device = visitor.device
    else:
        device = secrets.token_urlsafe(TOKEN_BYTES)
    remember_device(engine, token_hash(device), actor.id, now)
    LOGGER.info("%s logged in (%s)", actor.name, method)
    return Session(token, actor, method, expires_at, device)
