"""Personal tokens for the HTTP API: created, listed, revoked, and checked per request.

A token is a 256-bit random secret shown once to its owner (``a952_`` and 43 URL-safe
characters); the database keeps only its SHA-256, so a copy of the database lets nobody
in. A high-entropy secret needs no slow hash (as GitHub's and PyPI's tokens): guessing
one is as hard as guessing the secret, and a lookup by its hash is one index probe.

A token acts for its owner with the scopes it was given (``read``, ``submit``) and never
as an organiser: :func:`authenticate_token` hands back a participant :class:`Actor` even
for an organiser's token, so a leaked token cannot run tournaments, manage users or read
other people's logs (docs/api.md, "Tokens").

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, Literal

from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from arena.storage.database import StorageError, database_errors, read_session, write_session
from arena.storage.models import ApiToken, User, row_id, utcnow
from arena.storage.users import Actor, PermissionDenied, resolve_name

LOGGER = logging.getLogger(__name__)

Scope = Literal["read", "submit"]
SCOPES: Final = ("read", "submit")
PREFIX: Final = "a952_"
"""Every token starts so: secret scanners and people can tell an arena token apart."""
SHOWN_PREFIX: Final = 12
"""Characters of the secret kept in clear (the prefix and 7 random ones) to tell tokens apart."""
MAX_LIVE_TOKENS: Final = 20
"""The most unrevoked, unexpired tokens one user may hold."""
MAX_DAYS: Final = 366
"""The longest expiry one may give a token, in days (none at all is allowed too)."""
LAST_USED_EVERY: Final = timedelta(minutes=1)
"""``last_used_at`` is written at most this often per token: a script's burst of reads
must not turn into a burst of writes."""
TOKEN_NAME: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9 _.:@+-]{0,62}[A-Za-z0-9_.:@+-])?")
"""1-64 characters, never a space at either end (``ci`` and ``ci `` would list alike)."""
_SECRET: Final = re.compile(rf"{PREFIX}[A-Za-z0-9_-]{{43}}")

Refusal = Literal["bad_token", "expired_token", "revoked_token"]


class TokenRefused(StorageError):
    """A token that lets nobody in; :attr:`code` says which kind (the API's error code)."""

    def __init__(self, code: Refusal, message: str) -> None:
        super().__init__(message)
        self.code: Refusal = code


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """One token as its owner sees it (never the secret)."""

    id: int
    user: str
    name: str
    prefix: str
    scopes: tuple[str, ...]
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None

    def state(self, now: datetime) -> str:
        """``active``, ``expired`` or ``revoked``."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "active"


@dataclass(frozen=True, slots=True)
class TokenGrant:
    """What a request carrying a good token may do: act as :attr:`actor` (always a
    participant) within :attr:`scopes`."""

    token_id: int
    actor: Actor
    scopes: frozenset[str]

    def allows(self, scope: str) -> bool:
        return scope in self.scopes


def hash_secret(secret: str) -> str:
    """The stored form of *secret*: its SHA-256, in hex."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def parse_scopes(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The scopes *text* names (``read,submit``, ``read submit`` or a list), sorted.

    :raises StorageError: for an unknown scope or none at all.
    """
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    unknown = [p for p in parts if p not in SCOPES]
    if unknown:
        raise StorageError(f"unknown token scope {unknown[0][:20]!r}: use read and/or submit")
    if not parts:
        raise StorageError("a token needs a scope: read and/or submit")
    return tuple(sorted(set(parts)))


def _info(row: ApiToken, user: str) -> TokenInfo:
    return TokenInfo(
        id=row_id(row),
        user=user,
        name=row.name,
        prefix=row.prefix,
        scopes=tuple(row.scopes.split()),
        created_at=row.created_at,
        expires_at=row.expires_at,
        last_used_at=row.last_used_at,
        revoked_at=row.revoked_at,
    )


def _may_manage(by: Actor, owner: User) -> None:
    if by.id != owner.id and not by.is_organiser:
        raise PermissionDenied(
            f"only {owner.name} or an organiser may manage {owner.name}'s tokens"
        )


@database_errors
def create_token(
    engine: Engine,
    by: Actor,
    *,
    owner: str,
    name: str,
    scopes: str | list[str] | tuple[str, ...],
    expires_in_days: int | None = None,
) -> tuple[str, TokenInfo]:
    """A new token of user *owner* (*by* themself, or an organiser): ``(secret, info)``.
    The secret is returned here and never again.

    :raises PermissionDenied: for someone else's tokens.
    :raises StorageError: for a bad name, scope or expiry, a name already used by one of
        the owner's live tokens, a disabled owner, or :data:`MAX_LIVE_TOKENS` live ones.
    """
    if not TOKEN_NAME.fullmatch(name):
        raise StorageError(
            "a token's name is 1-64 letters, digits, spaces or _ . : @ + -, starting with "
            "a letter or digit and not ending in a space"
        )
    chosen = parse_scopes(scopes)
    if expires_in_days is not None and not 1 <= expires_in_days <= MAX_DAYS:
        raise StorageError(f"a token expires in 1 to {MAX_DAYS} days (or never)")
    now = utcnow()
    secret = PREFIX + secrets.token_urlsafe(32)
    with write_session(engine) as session:
        user = resolve_name(session, User, owner)
        if user is None:
            raise StorageError(f"no user named {owner[:70]!r}")
        _may_manage(by, user)
        # The owner's row, locked (on SQLite the write transaction holds the database), so
        # two creations cannot both pass the count below; read again under the lock, so a
        # disable committed since the read above is seen (and not written over).
        disabled = session.exec(
            select(User.disabled).where(col(User.id) == row_id(user)).with_for_update()
        ).one()
        if disabled:
            raise StorageError(f"user {user.name!r} is disabled")
        live = [t for t in _tokens_of(session, row_id(user)) if _live(t, now)]
        if any(t.name == name for t in live):
            raise StorageError(f"{user.name} already has a live token named {name!r}")
        if len(live) >= MAX_LIVE_TOKENS:
            raise StorageError(
                f"{user.name} has {MAX_LIVE_TOKENS} live tokens already: revoke one first"
            )
        row = ApiToken(
            user_id=row_id(user),
            name=name,
            token_hash=hash_secret(secret),
            prefix=secret[:SHOWN_PREFIX],
            scopes=" ".join(chosen),
            created_at=now,
            expires_at=now + timedelta(days=expires_in_days) if expires_in_days else None,
        )
        session.add(row)
        session.commit()
        session.refresh(row)
        info = _info(row, user.name)
    LOGGER.info("%s created token %r (%s) for %s", by.name, name, row.scopes, info.user)
    return secret, info


def _tokens_of(session: Session, user_id: int) -> list[ApiToken]:
    return list(
        session.exec(
            select(ApiToken).where(col(ApiToken.user_id) == user_id).order_by(col(ApiToken.id))
        ).all()
    )


def _live(row: ApiToken, now: datetime) -> bool:
    return row.revoked_at is None and (row.expires_at is None or row.expires_at > now)


@database_errors
def list_tokens(engine: Engine, by: Actor, owner: str) -> list[TokenInfo]:
    """Every token of user *owner*, oldest first, revoked and expired ones included.

    :raises PermissionDenied: for someone else's tokens (unless *by* is an organiser).
    """
    with read_session(engine) as session:
        user = resolve_name(session, User, owner)
        if user is None:
            raise StorageError(f"no user named {owner[:70]!r}")
        _may_manage(by, user)
        return [_info(t, user.name) for t in _tokens_of(session, row_id(user))]


@database_errors
def revoke_token(engine: Engine, by: Actor, owner: str, token: str) -> TokenInfo:
    """Revoke user *owner*'s token *token* (its name, id or shown prefix); the token.
    Revoking a revoked token is no error (it stays revoked, from its first time).

    :raises PermissionDenied: for someone else's tokens (unless *by* is an organiser).
    :raises StorageError: if *owner* has no such token, or the name fits several.
    """
    with write_session(engine) as session:
        user = resolve_name(session, User, owner)
        if user is None:
            raise StorageError(f"no user named {owner[:70]!r}")
        _may_manage(by, user)
        rows = _tokens_of(session, row_id(user))
        now = utcnow()
        matches = [t for t in rows if token in (str(t.id), t.prefix)]
        if not matches:
            named = [t for t in rows if t.name == token]
            matches = [t for t in named if _live(t, now)] or named
        if not matches:
            raise StorageError(f"{user.name} has no token {token[:64]!r}")
        if len(matches) > 1:
            raise StorageError(
                f"{len(matches)} of {user.name}'s tokens are named {token[:64]!r}: "
                "give the id instead (arena token list)"
            )
        row = matches[0]
        if row.revoked_at is None:
            row.revoked_at = now
            session.add(row)
            session.commit()
            session.refresh(row)
        info = _info(row, user.name)
    LOGGER.info("%s revoked token %r of %s", by.name, info.name, info.user)
    return info


@database_errors
def authenticate_token(engine: Engine, secret: str, now: datetime | None = None) -> TokenGrant:
    """What the token *secret* may do; its ``last_used_at`` is brought up to date (at most
    every :data:`LAST_USED_EVERY`).

    :raises TokenRefused: ``bad_token`` for a malformed or unknown secret or a disabled
        owner, ``expired_token``, or ``revoked_token``.
    """
    if not _SECRET.fullmatch(secret):
        raise TokenRefused("bad_token", "the token is not an arena token (a952_...)")
    now = now or utcnow()
    digest = hash_secret(secret)
    with read_session(engine) as session:
        row = session.exec(select(ApiToken).where(col(ApiToken.token_hash) == digest)).first()
        user = None if row is None else session.get(User, row.user_id)
    # The index found the row by its hash; compare again in constant time all the same.
    if row is None or user is None or not hmac.compare_digest(row.token_hash, digest):
        raise TokenRefused("bad_token", "unknown token")
    if row.revoked_at is not None:
        raise TokenRefused("revoked_token", f"token {row.name!r} was revoked")
    if row.expires_at is not None and row.expires_at <= now:
        raise TokenRefused("expired_token", f"token {row.name!r} expired")
    if user.disabled:
        raise TokenRefused("bad_token", f"the account {user.name!r} is disabled")
    if row.last_used_at is None or now - row.last_used_at >= LAST_USED_EVERY:
        with write_session(engine) as session:
            session.execute(
                update(ApiToken).where(col(ApiToken.id) == row_id(row)).values(last_used_at=now)
            )
            session.commit()
    # Never an organiser: a token carries a participant's rights at most (module docstring).
    return TokenGrant(
        row_id(row), Actor(row_id(user), user.name, "participant"), frozenset(row.scopes.split())
    )


__all__ = [
    "MAX_LIVE_TOKENS",
    "PREFIX",
    "SCOPES",
    "TokenGrant",
    "TokenInfo",
    "TokenRefused",
    "authenticate_token",
    "create_token",
    "hash_secret",
    "list_tokens",
    "parse_scopes",
    "revoke_token",
]
