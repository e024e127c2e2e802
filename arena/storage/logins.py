"""Login bookkeeping in the database: attempts, open sessions and trusted devices.

The rules live above (:mod:`arena.accounts.logins` and :mod:`arena.accounts.throttle`);
this module stores what they produce, and counts what they ask. It never stores a secret:
sessions and devices are kept as the SHA-256 of their random tokens, so a copy of the
database opens no session and trusts no browser.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import Engine, delete, func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from arena.storage.database import database_errors, read_session, write_session
from arena.storage.models import LoginAttempt, LoginDevice, LoginSession, User
from arena.storage.users import Actor, actor_of

RETENTION: Final = timedelta(days=30)
"""Attempts older than this are deleted (every :data:`PRUNE_EVERY` attempts): the
throttle looks back 15 minutes, and a month is enough to read a past attack."""
PRUNE_EVERY: Final = 1000


@database_errors
def record_login_attempt(
    engine: Engine,
    user_name: str,
    client: str,
    succeeded: bool,
    at: datetime,
    device: str | None = None,
    trusted: bool = False,
) -> None:
    """Remember one verified login attempt (the throttle counts the failures).

    *device* is the SHA-256 of the device cookie the browser presented, and *trusted*
    whether that device had logged in as *user_name* before.
    """
    with write_session(engine) as session:
        attempt = LoginAttempt(
            user_name=user_name[:64],
            client=client[:64],
            succeeded=succeeded,
            at=at,
            device=device,
            trusted=trusted,
        )
        session.add(attempt)
        session.flush()
        if attempt.id is not None and attempt.id % PRUNE_EVERY == 0:
            session.execute(delete(LoginAttempt).where(col(LoginAttempt.at) < at - RETENTION))
        session.commit()


@dataclass(frozen=True)
class Tally:
    """Failed logins of one kind within the throttle's window."""

    count: int
    oldest: datetime | None
    """When the oldest of them happened (the count falls once it leaves the window)."""
    newest: datetime | None
    """When the latest happened (growing delays are counted from it)."""


NO_FAILURES: Final = Tally(0, None, None)


@dataclass(frozen=True)
class FailureCounts:
    """What the throttle needs to judge one login attempt, counted since one moment."""

    pair: Tally
    """Failures of this name from this client (or from this trusted device), since the
    pair's last success."""
    client: Tally
    """Failures from this client, under any name, by untrusted attempts."""
    account: Tally
    """Failures of this name by untrusted attempts, from all clients together."""
    everywhere: Tally
    """Failures by untrusted attempts on the whole arena."""


def _tally(session: Session, *conditions: Any) -> Tally:
    statement = sa_select(func.count(), func.min(LoginAttempt.at), func.max(LoginAttempt.at)).where(
        col(LoginAttempt.succeeded).is_(False), *conditions
    )
    count, oldest, newest = session.execute(statement).one()
    return Tally(int(count), _aware(oldest), _aware(newest))


def _aware(moment: datetime | str | None) -> datetime | None:
    """SQLite's min() and max() return the stored text, not the column's type."""
    if moment is None:
        return None
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return moment if moment.tzinfo is not None else moment.astimezone()


def _last_success(session: Session, *conditions: Any) -> datetime | None:
    statement = sa_select(func.max(LoginAttempt.at)).where(
        col(LoginAttempt.succeeded).is_(True), *conditions
    )
    return _aware(session.execute(statement).scalar())


@database_errors
def failure_counts(
    engine: Engine, user_name: str, client: str, device: str | None, trusted: bool, since: datetime
) -> FailureCounts:
    """Count the failures the throttle weighs for an attempt on *user_name* from *client*.

    A trusted attempt (*device* has logged in as *user_name* before) is judged by its
    device's own failures only, so the other counts are not read for it.
    """
    name = user_name[:64]
    with read_session(engine) as session:
        in_window = col(LoginAttempt.at) >= since
        same_name = col(LoginAttempt.user_name) == name
        if trusted and device is not None:
            same_pair = col(LoginAttempt.device) == device
        else:
            same_pair = col(LoginAttempt.client) == client[:64]
        last = _last_success(session, in_window, same_name, same_pair)
        pair_since = col(LoginAttempt.at) > last if last is not None else in_window
        pair = _tally(session, in_window, pair_since, same_name, same_pair)
        if trusted:
            return FailureCounts(pair, NO_FAILURES, NO_FAILURES, NO_FAILURES)
        untrusted = col(LoginAttempt.trusted).is_(False)
        return FailureCounts(
            pair=pair,
            client=_tally(session, in_window, untrusted, col(LoginAttempt.client) == client[:64]),
            account=_tally(session, in_window, untrusted, same_name),
            everywhere=_tally(session, in_window, untrusted),
        )


@database_errors
def failures_since(
    engine: Engine, since: datetime, *, user_name: str | None = None, client: str | None = None
) -> tuple[int, datetime | None]:
    """Failed logins since *since* for a user name or a client: ``(count, oldest)``."""
    conditions = [col(LoginAttempt.at) >= since]
    if user_name is not None:
        conditions.append(col(LoginAttempt.user_name) == user_name[:64])
    if client is not None:
        conditions.append(col(LoginAttempt.client) == client[:64])
    with read_session(engine) as session:
        tally = _tally(session, *conditions)
    return tally.count, tally.oldest


# ------------------------------------------------------------------------------ devices


@database_errors
def device_trusted(engine: Engine, device: str, user_id: int) -> bool:
    """Has the browser whose device cookie hashes to *device* logged in as *user_id*?"""
    with read_session(engine) as session:
        found = session.exec(
            select(LoginDevice.id).where(
                LoginDevice.token_hash == device, LoginDevice.user_id == user_id
            )
        ).first()
    return found is not None


@database_errors
def device_known(engine: Engine, device: str) -> bool:
    """Has the browser whose device cookie hashes to *device* logged in as anyone?"""
    with read_session(engine) as session:
        found = session.exec(select(LoginDevice.id).where(LoginDevice.token_hash == device))
        return found.first() is not None


@database_errors
def remember_device(engine: Engine, device: str, user_id: int, now: datetime) -> None:
    """Trust the browser whose device cookie hashes to *device* for *user_id* from now on
    (it has just logged in)."""
    with write_session(engine) as session:
        found = session.exec(
            select(LoginDevice).where(
                LoginDevice.token_hash == device, LoginDevice.user_id == user_id
            )
        ).first()
        if found is None:
            session.add(
                LoginDevice(token_hash=device, user_id=user_id, created_at=now, last_used_at=now)
            )
        else:
            found.last_used_at = now
            session.add(found)
        session.commit()


# ----------------------------------------------------------------------------- sessions


@dataclass(frozen=True)
class OpenSession:
    """A live session as stored: who, how it logged in, and on which web origin."""

    actor: Actor
    method: str
    origin: str | None


@database_errors
def open_session(
    engine: Engine,
    token_hash: str,
    user_id: int,
    method: str,
    expires_at: datetime,
    origin: str | None = None,
) -> None:
    """Store a new session under the SHA-256 of its token, made on web *origin*."""
    with write_session(engine) as session:
        session.add(
            LoginSession(
                token_hash=token_hash,
                user_id=user_id,
                method=method,
                expires_at=expires_at,
                origin=origin,
            )
        )
        session.commit()


@database_errors
def session_actor(
    engine: Engine, token_hash: str, now: datetime, idle_since: datetime
) -> OpenSession | None:
    """The live session of *token_hash*, marking it as seen now.

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
        return OpenSession(actor_of(user), found.method, found.origin)


@database_errors
def close_session(engine: Engine, token_hash: str) -> None:
    """End one session (logging out); nothing happens if it is already gone."""
    with write_session(engine) as session:
        session.execute(delete(LoginSession).where(col(LoginSession.token_hash) == token_hash))
        session.commit()
