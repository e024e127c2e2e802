"""Joining the arena without an organiser in the loop: invitation codes and sign-up.

The organiser chooses how people join (``arena settings set join MODE``, see
:data:`arena.storage.settings.JOIN_MODES`):

* ``closed`` (the default): only ``arena user add`` makes accounts; sign-up is refused.
* ``invite``: a sign-up needs a code from ``arena user invite``. A code is 192 random
  bits (``secrets``), shown once and stored only as its SHA-256; it makes at most
  ``--uses`` accounts until ``--expires``, each with the code's role. Its use is counted
  in the transaction that creates the account (:func:`arena.storage.invites.sign_up`).
* ``open``: anyone signs up, as a participant, within the per-client limits below.

Sign-ups are limited per client (its address as :mod:`arena.web.clients` establishes it):
see :data:`ACCOUNTS_PER_CLIENT_PER_DAY` and :data:`ATTEMPTS_PER_CLIENT_PER_HOUR`. A refused
sign-up says when the client may try again.

A code that cannot make an account (unknown, mistyped, used up, revoked or expired) gets
one answer, which does not say which: a guesser learns nothing about which codes exist.
Whether a user name is taken is told only to a visitor with a usable code (or in ``open``
mode, where anyone may try a name anyway, within the hourly limit).
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import Engine

from arena.accounts.logins import LoginPolicy, Session, Visitor, start_session
from arena.accounts.passwords import hash_password
from arena.accounts.policy import PasswordRefused, check_password
from arena.storage import invites
from arena.storage.database import StorageError
from arena.storage.models import Role, utcnow
from arena.storage.settings import get_setting
from arena.storage.users import Actor, NameTaken, actor_of, check_user_name, require_role

LOGGER = logging.getLogger(__name__)

CODE_BYTES: Final = 24
"""Randomness of an invitation code: 192 bits, 32 URL-safe characters."""
CODE: Final = re.compile(r"[A-Za-z0-9_-]{32}")
"""What :func:`secrets.token_urlsafe` makes of :data:`CODE_BYTES`."""

ACCOUNTS_PER_CLIENT_PER_DAY: Final = 3
"""Accounts one client may make in ``open`` mode in any 24 hours. A person needs one, a
household or a lab behind one address a few; more is a script filling the arena with
accounts (each may submit bots and request test matches). A class behind one address
should join by invitation, which this limit does not count."""
ACCOUNT_WINDOW: Final = timedelta(hours=24)
ATTEMPTS_PER_CLIENT_PER_HOUR: Final = 10
"""Sign-ups one client may try in any hour: every try in ``open`` mode, the failed ones
(a code that does not work, a taken name) in ``invite`` mode. Enough for typos and a few
taken names; too few to walk through the user names to learn who has an account, or to
guess codes (hopeless anyway at 192 bits, but each try costs a database write)."""
ATTEMPT_WINDOW: Final = timedelta(hours=1)

DURATION: Final = re.compile(r"(\d{1,6})([dhm])")
_UNITS: Final = {"d": timedelta(days=1), "h": timedelta(hours=1), "m": timedelta(minutes=1)}
MAX_DURATION: Final = timedelta(days=366)
NEVER: Final = "never"


class SignUpRefused(ValueError):
    """The sign-up was refused; the message is one line for the person signing up."""


class SignUpLimited(SignUpRefused):
    """Too many sign-ups from this client lately; ``retry_after`` says for how long."""

    def __init__(self, message: str, retry_after: timedelta) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class SignUp:
    """What a visitor typed on the sign-up page."""

    name: str
    password: str
    confirmation: str
    code: str = ""
    """The invitation code (needed in ``invite`` mode, ignored otherwise)."""


@dataclass(frozen=True)
class NewInvite:
    """An invitation just made: its code, shown once, and what it allows."""

    id: int
    code: str
    role: Role
    max_uses: int
    expires_at: datetime | None


def code_hash(code: str) -> str:
    """What the database keeps of an invitation code."""
    return hashlib.sha256(code.encode()).hexdigest()


def join_mode(engine: Engine) -> str:
    """How people join now: ``closed``, ``invite`` or ``open``."""
    return get_setting(engine, "join")


def parse_duration(text: str) -> timedelta | None:
    """``7d``, ``12h``, ``30m`` as a duration; ``never`` as ``None``.

    :raises ValueError: in one line, for anything else, zero, or more than a year.
    """
    cleaned = text.strip().lower()
    if cleaned == NEVER:
        return None
    match = DURATION.fullmatch(cleaned)
    if match is None:
        raise ValueError(
            f"{text[:40]!r} is no duration: give a number and a unit, d, h or m "
            f"(7d, 12h, 30m), or {NEVER}"
        )
    duration = int(match.group(1)) * _UNITS[match.group(2)]
    if not timedelta(0) < duration <= MAX_DURATION:
        raise ValueError(f"a duration from 1m to {MAX_DURATION.days}d, not {text!r}")
    return duration


# -------------------------------------------------------------------------- invitations


def create_invite(
    engine: Engine,
    by: Actor,
    role: Role = "participant",
    uses: int = 1,
    expires_in: timedelta | None = timedelta(days=7),
    now: datetime | None = None,
) -> NewInvite:
    """Make an invitation code for *uses* accounts with *role*, valid for *expires_in*
    (``None``: until revoked or used up). The code is in the result and nowhere else.

    :raises PermissionDenied: unless *by* is an organiser.
    :raises StorageError: for fewer than one use.
    """
    require_role(by, "organiser", "inviting people")
    now = now or utcnow()
    code = secrets.token_urlsafe(CODE_BYTES)
    expires_at = now + expires_in if expires_in is not None else None
    invite_id = invites.create_invite(engine, code_hash(code), role, uses, expires_at, by.id)
    LOGGER.info("%s made invitation %d (%s, %d uses)", by.name, invite_id, role, uses)
    return NewInvite(invite_id, code, role, uses, expires_at)


def list_invites(engine: Engine, by: Actor) -> list[invites.InviteInfo]:
    """Every invitation (never a code).

    :raises PermissionDenied: unless *by* is an organiser.
    """
    require_role(by, "organiser", "listing invitations")
    return invites.list_invites(engine)


def revoke_invite(engine: Engine, by: Actor, invite_id: int) -> None:
    """Revoke invitation *invite_id*; the accounts it made stay.

    :raises PermissionDenied: unless *by* is an organiser.
    :raises StorageError: for an unknown id.
    """
    require_role(by, "organiser", "revoking an invitation")
    invites.revoke_invite(engine, invite_id)
    LOGGER.info("%s revoked invitation %d", by.name, invite_id)


# ------------------------------------------------------------------------------ sign-up


def _again_in(wait: timedelta) -> str:
    """``try again in 12 minutes`` (or seconds, or hours), rounded up."""
    seconds = max(1, math.ceil(wait.total_seconds()))
    if seconds < 120:
        return f"try again in {seconds} seconds"
    if seconds < 2 * 3600:
        return f"try again in {math.ceil(seconds / 60)} minutes"
    return f"try again in {math.ceil(seconds / 3600)} hours"


def _limit(times: list[datetime], most: int, window: timedelta, now: datetime) -> timedelta | None:
    """How long a client must wait, given the *times* (oldest first, within *window*) of
    what is limited to *most* per *window*: until enough of them have left the window."""
    if len(times) < most:
        return None
    return times[len(times) - most] + window - now


def _check_limits(engine: Engine, mode: str, client: str, now: datetime) -> None:
    """:raises SignUpLimited: while *client* is over a limit of *mode*, saying until when."""
    hour_ago = now - ATTEMPT_WINDOW
    if mode == "open":
        made = invites.signup_times(engine, client, now - ACCOUNT_WINDOW, succeeded=True)
        wait = _limit(made, ACCOUNTS_PER_CLIENT_PER_DAY, ACCOUNT_WINDOW, now)
        if wait is not None:
            raise SignUpLimited(
                f"{ACCOUNTS_PER_CLIENT_PER_DAY} accounts were made from your address in the "
                f"last 24 hours: {_again_in(wait)}",
                wait,
            )
        tried = invites.signup_times(engine, client, hour_ago)
    else:
        tried = invites.signup_times(engine, client, hour_ago, succeeded=False)
    wait = _limit(tried, ATTEMPTS_PER_CLIENT_PER_HOUR, ATTEMPT_WINDOW, now)
    if wait is not None:
        raise SignUpLimited(f"too many sign-ups tried from your address: {_again_in(wait)}", wait)


def _check_form(form: SignUp) -> str:
    """The user name of *form*, if the form could make an account (nothing looked up).

    :raises SignUpRefused: for an invalid name, a confirmation that differs, or a password
        the policy refuses.
    """
    name = form.name.strip()
    try:
        check_user_name(name)
    except StorageError as exc:
        raise SignUpRefused(str(exc)) from None
    if form.password != form.confirmation:
        raise SignUpRefused("the password and its confirmation differ")
    try:
        check_password(form.password, name)
    except PasswordRefused as exc:
        raise SignUpRefused(str(exc)) from None
    return name


def sign_up(
    engine: Engine,
    form: SignUp,
    visitor: Visitor,
    policy: LoginPolicy | None = None,
    now: datetime | None = None,
) -> Session:
    """Make an account from *form* for *visitor*, as the join mode allows, and log it in.

    :raises SignUpLimited: while the visitor's client is over a sign-up limit.
    :raises SignUpRefused: when joining is closed, for a code that cannot make an account,
        a taken or invalid name, or a password the policy refuses.
    :raises arena.storage.StorageError: if the database fails.
    """
    now = now or utcnow()
    mode = join_mode(engine)
    if mode == "closed":
        raise SignUpRefused("this arena takes no sign-ups: ask an organiser for an account")
    _check_limits(engine, mode, visitor.client, now)
    name = _check_form(form)

    def attempt(succeeded: bool) -> None:
        invites.record_signup_attempt(engine, visitor.client, name, succeeded, now)

    hashed_code = None
    if mode == "invite":
        code = form.code.strip()
        hashed_code = code_hash(code)
        # A cheap look first: a wrong code must not cost an argon2 hash.
        if not CODE.fullmatch(code) or not invites.invite_usable(engine, hashed_code, now):
            attempt(succeeded=False)
            raise SignUpRefused("this invitation code is not valid (ask for a new one)")
    password_hash = hash_password(form.password)
    try:
        user = invites.sign_up(engine, name, password_hash, hashed_code, now)
    except invites.InviteRefused as exc:
        attempt(succeeded=False)
        raise SignUpRefused(str(exc)) from None
    except NameTaken as exc:
        attempt(succeeded=False)
        raise SignUpRefused(str(exc)) from None
    attempt(succeeded=True)
    return start_session(engine, actor_of(user), visitor, policy or LoginPolicy(), now)
