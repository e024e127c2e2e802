"""Invitation codes and sign-ups in the database.

The rules live above (:mod:`arena.accounts.joining`); this module stores what they
produce and counts what they ask. It never stores a secret: an invitation is kept as the
SHA-256 of its code, so a copy of the database lets nobody join.

:func:`sign_up` counts an invitation's use in the transaction that creates the account,
by a conditional ``UPDATE`` (``uses < max_uses``, not revoked, not expired): of two
sign-ups racing for a code's last use, the database lets one through (PostgreSQL re-checks
the condition on the row the first one updated; SQLite runs one writer at a time), and
the other finds no usable row and creates nothing. The table's ``uses <= max_uses`` check
stands behind it.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import ColumnElement, Engine, delete, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from arena.storage.database import StorageError, database_errors, read_session, write_session
from arena.storage.models import Invite, Role, SignUpAttempt, User
from arena.storage.users import add_user_row, refuse_raced_user_name

LOGGER = logging.getLogger(__name__)

ATTEMPT_RETENTION_DAYS: Final = 30
"""Sign-up attempts older than this many days are deleted (every :data:`PRUNE_EVERY`
attempts): the limits look back a day at most, and a month is enough to read a flood."""
PRUNE_EVERY: Final = 200


class InviteRefused(StorageError):
    """The code is unknown, used up, revoked or expired: one line that does not say which
    (a guesser must not learn that a code exists)."""


@dataclass(frozen=True)
class InviteInfo:
    """One invitation as ``arena user invites`` shows it (never its code, nor its hash)."""

    id: int
    role: str
    uses: int
    max_uses: int
    expires_at: datetime | None
    revoked: bool
    created_at: datetime
    created_by: str

    def state(self, now: datetime) -> str:
        """``usable``, ``revoked``, ``used up`` or ``expired``."""
        if self.revoked:
            return "revoked"
        if self.uses >= self.max_uses:
            return "used up"
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "usable"


def _usable(now: datetime) -> tuple[ColumnElement[bool], ...]:
    """The conditions of an invitation that may make one more account at *now*."""
    return (
        col(Invite.uses) < col(Invite.max_uses),
        col(Invite.revoked).is_(False),
        or_(col(Invite.expires_at).is_(None), col(Invite.expires_at) > now),
    )


@database_errors
def create_invite(
    engine: Engine,
    code_hash: str,
    role: Role,
    max_uses: int,
    expires_at: datetime | None,
    created_by: int,
) -> int:
    """Store an invitation under the SHA-256 of its code; its id.

    :raises StorageError: for fewer than one use (the table refuses it too).
    """
    if max_uses < 1:
        raise StorageError(f"an invitation needs at least one use, not {max_uses}")
    with write_session(engine) as session:
        invite = Invite(
            code_hash=code_hash,
            role=role,
            max_uses=max_uses,
            expires_at=expires_at,
            created_by=created_by,
        )
        session.add(invite)
        session.commit()
        if invite.id is None:  # the commit gave it one; keep mypy honest
            raise StorageError("the invitation was not stored")
        return invite.id


@database_errors
def list_invites(engine: Engine) -> list[InviteInfo]:
    """Every invitation, newest first."""
    with read_session(engine) as session:
        rows = session.exec(
            select(Invite, User.name)
            .join(User, col(User.id) == col(Invite.created_by))
            .order_by(col(Invite.id).desc())
        ).all()
    return [
        InviteInfo(
            id=invite.id or 0,
            role=invite.role,
            uses=invite.uses,
            max_uses=invite.max_uses,
            expires_at=invite.expires_at,
            revoked=invite.revoked,
            created_at=invite.created_at,
            created_by=name,
        )
        for invite, name in rows
    ]


@database_errors
def revoke_invite(engine: Engine, invite_id: int) -> None:
    """Revoke invitation *invite_id*: it makes no more accounts (those made stay).

    :raises StorageError: for an unknown id.
    """
    with write_session(engine) as session:
        result = session.connection().execute(
            update(Invite).where(col(Invite.id) == invite_id).values(revoked=True)
        )
        if result.rowcount == 0:
            raise StorageError(f"no invitation with id {invite_id} (see `arena user invites`)")
        session.commit()


@database_errors
def invite_usable(engine: Engine, code_hash: str, now: datetime) -> bool:
    """Could the code hashing to *code_hash* make an account now? A cheap look before the
    password is hashed; :func:`sign_up` decides, in its transaction."""
    with read_session(engine) as session:
        found = session.exec(
            select(Invite.id).where(col(Invite.code_hash) == code_hash, *_usable(now))
        ).first()
    return found is not None


@database_errors
def sign_up(
    engine: Engine,
    name: str,
    password_hash: str,
    code_hash: str | None,
    now: datetime,
    role: Role = "participant",
) -> User:
    """Create account *name* (with *role*, or the role its invitation gives), counting one
    use of the invitation whose code hashes to *code_hash* (``None``: no code needed) in
    the same transaction: the account exists if and only if the use was counted.

    :raises InviteRefused: when the code cannot make an account now (nothing is stored).
    :raises StorageError: for an invalid or taken name, or one too close to another
        user's (nothing is stored, and the code's use is not counted).
    """
    try:
        with write_session(engine) as session:
            if code_hash is not None:
                counted = session.connection().execute(
                    update(Invite)
                    .where(col(Invite.code_hash) == code_hash, *_usable(now))
                    .values(uses=col(Invite.uses) + 1)
                )
                if counted.rowcount != 1:
                    raise InviteRefused("this invitation code is not valid (ask for a new one)")
                invited = session.exec(
                    select(Invite.role).where(col(Invite.code_hash) == code_hash)
                ).one()
                role = "organiser" if invited == "organiser" else "participant"
            user = add_user_row(session, name, role, password_hash)
            session.commit()
    except IntegrityError:
        refuse_raced_user_name(engine, name)
    LOGGER.info("%s signed up as a %s%s", name, role, " with an invitation" if code_hash else "")
    return user


# ----------------------------------------------------------------------- sign-up attempts


@database_errors
def record_signup_attempt(
    engine: Engine, client: str, user_name: str, succeeded: bool, at: datetime
) -> None:
    """Remember one sign-up tried by *client* (the per-client limits count them)."""
    with write_session(engine) as session:
        attempt = SignUpAttempt(
            client=client[:64], user_name=user_name[:64], succeeded=succeeded, at=at
        )
        session.add(attempt)
        session.flush()
        if attempt.id is not None and attempt.id % PRUNE_EVERY == 0:
            cutoff = at - timedelta(days=ATTEMPT_RETENTION_DAYS)
            session.execute(delete(SignUpAttempt).where(col(SignUpAttempt.at) < cutoff))
        session.commit()


@database_errors
def signup_times(
    engine: Engine, client: str, since: datetime, *, succeeded: bool | None = None
) -> list[datetime]:
    """When *client* tried sign-ups since *since*, oldest first: all of them, or only the
    ones that succeeded (*succeeded* true) or failed (false)."""
    conditions = [col(SignUpAttempt.client) == client[:64], col(SignUpAttempt.at) >= since]
    if succeeded is not None:
        conditions.append(col(SignUpAttempt.succeeded).is_(succeeded))
    with read_session(engine) as session:
        return list(
            session.exec(
                select(SignUpAttempt.at).where(*conditions).order_by(col(SignUpAttempt.at))
            ).all()
        )
