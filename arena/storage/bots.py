"""Bots and their versions: storing a submission and looking versions up. The bots'
overview the dashboard shows (games played, faulted games, tournaments entered) is
:mod:`arena.storage.bot_overview`, its names re-exported here.

A bot is a name; a version is one exact set of files submitted under it, never changed
once stored, so every game names the program that played it. No two bots have names a
person could take for each other (:mod:`arena.storage.names`): a look-alike of a stored
name is refused, and a name given from outside (the CLI, a tournament's ``--bots``) means
the bot called exactly that, else the one bot whose name looks like it.

:raises StorageError: from every function, with a one-line message, for a refused
    submission or a database failure.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any, Final

from sqlalchemy import Engine
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from arena.storage.bot_overview import (
    BotInfo,
    NameCollision,
    VersionInfo,
    bot_overview,
    list_bots,
    name_collisions,
)
from arena.storage.database import (
    StorageError,
    database_errors,
    read_rows,
    read_session,
    write_session,
)
from arena.storage.models import (
    LOCAL_ORGANISER,
    SUBMITTED_VIA,
    Bot,
    BotVersion,
    User,
    row_id,
)
from arena.storage.names import name_keys
from arena.storage.users import Actor, PermissionDenied, look_alikes, resolve_name

LOGGER = logging.getLogger(__name__)

_CHECKSUM: Final = re.compile(r"^(?:[0-9a-f]{64}|v2:[a-z2-7]{52})$")
"""A legacy sha256 hex checksum, or ``v2:`` and a base32 tree hash (arena.submission)."""


def _not_yours(name: str, owner: str) -> str:
    return (
        f"bot name {name!r} belongs to {owner}: only {owner} or an organiser may submit "
        "versions of it (choose another name in bot.toml)"
    )


def _too_close(name: str, other: str, owner: str) -> str:
    return (
        f"bot name {name!r} is too close to {other!r} ({owner}'s): choose another name in bot.toml"
    )


def _owner_name(session: Session, bot: Bot) -> str:
    owner = session.get(User, bot.owner_id)
    return owner.name if owner else "another user"


def _usable_bot(session: Session, submitter: Actor | None, name: str) -> Bot | None:
    """The bot called exactly *name* if *submitter* (``None``: the host's organiser) may
    add a version of it; ``None`` for a new name that looks like no stored bot's.

    :raises PermissionDenied: for another user's bot (naming the owner), or for a new name
        too close to a stored bot's (naming that bot and its owner).
    """
    bot = session.exec(select(Bot).where(Bot.name == name)).first()
    if bot is None:
        found = look_alikes(session, Bot, name)
        if found:
            raise PermissionDenied(_too_close(name, found[0].name, _owner_name(session, found[0])))
        return None
    if submitter is not None and bot.owner_id != submitter.id and not submitter.is_organiser:
        raise PermissionDenied(_not_yours(name, _owner_name(session, bot)))
    return bot


def _bot_named(session: Session, name: str, *, exact: bool = False) -> Bot | None:
    """The bot *name* means (:func:`arena.storage.users.resolve_name`), or with *exact*
    only the bot called exactly *name*."""
    if exact:
        return session.exec(select(Bot).where(Bot.name == name)).first()
    return resolve_name(session, Bot, name)


@database_errors
def resolve_bot_name(engine: Engine, name: str) -> str | None:
    """The stored name of the bot *name* means: *name* itself if stored, else the one
    stored name that looks like it (``GREEDY_BOT`` -> ``greedy_bot``); ``None`` if none.

    :raises arena.storage.users.AmbiguousName: when *name* looks like several bots' names.
    """
    with read_session(engine) as session:
        bot = resolve_name(session, Bot, name)
    return None if bot is None else bot.name


@database_errors
def bot_owner(engine: Engine, name: str) -> str | None:
    """The name of the user who owns the bot *name* means, or ``None`` for a free name.

    :raises arena.storage.users.AmbiguousName: when *name* looks like several bots' names.
    """
    with read_session(engine) as session:
        bot = resolve_name(session, Bot, name)
        return None if bot is None else _owner_name(session, bot)


@database_errors
def check_may_submit(engine: Engine, submitter: Actor | None, name: str) -> None:
    """Refuse early (before anything is copied or built) a submission under a name
    *submitter* (``None``: the host's organiser) may not use: another user's bot, or a new
    name that looks like a stored bot's.

    :func:`add_bot_version` checks again when it stores, in its transaction.

    :raises PermissionDenied: naming the owner, or the stored name and its owner.
    """
    with read_session(engine) as session:
        _usable_bot(session, submitter, name)


@database_errors
def add_bot_version(
    engine: Engine,
    manifest_fields: Mapping[str, Any],
    checksum: str,
    path: str,
    *,
    submitter: Actor | None = None,
    via: str = "cli",
) -> tuple[BotVersion, bool]:
    """Store a submitted bot for *submitter* (default: the host's ``local`` organiser),
    submitted *via* ``cli`` or ``dashboard``; returns ``(version, created)``.

    A new bot name creates the bot, owned by *submitter*, unless it looks like a stored
    bot's name (:mod:`arena.storage.names`; anyone's, an organiser's too). An existing bot
    takes versions only from its owner or an organiser, under exactly its name. The checks
    run in the same transaction that stores the version, and the unique indexes on the
    name's keys refuse a racing look-alike, so two submitters racing for a new name, or
    for two look-alike new names, cannot both win.

    If the bot's latest version has the same *checksum*, nothing is stored and that
    version comes back with ``created=False`` (its path kept).
    Otherwise a new version gets the next ``seq`` and the label ``name@version``, or
    ``name@version+<checksum[:8]>`` when that version was already submitted with other
    files (plus ``.<seq>`` in the odd case that this label is taken too).

    :raises PermissionDenied: when the name belongs to another user, or looks like a
        stored bot's name (nothing is stored).
    :raises StorageError: for a manifest without name or version, or a malformed checksum.
    """
    if via not in SUBMITTED_VIA:
        raise StorageError(f"unknown submission route {via!r}")
    name = manifest_fields.get("name")
    version = manifest_fields.get("version")
    if not isinstance(name, str) or not name or not isinstance(version, str) or not version:
        raise StorageError("manifest fields need a non-empty 'name' and 'version'")
    if not _CHECKSUM.match(checksum):
        raise StorageError(
            f"checksum must be 'v2:' and 52 base32 digits, or 64 lowercase hex digits "
            f"(sha256), got {checksum!r}"
        )
    manifest = json.dumps(dict(manifest_fields), sort_keys=True, default=str)
    language = str(manifest_fields.get("language", ""))
    for attempt in range(3):
        try:
            return _add_bot_version(
                engine,
                name,
                version,
                language,
                checksum,
                path,
                manifest,
                submitter=submitter,
                via=via,
            )
        except IntegrityError:
            # Another process registered the same bot, a look-alike or the same version
            # first; look again (the checks now see it and say so).
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _add_bot_version(  # noqa: PLR0913
    engine: Engine,
    name: str,
    version: str,
    language: str,
    checksum: str,
    path: str,
    manifest: str,
    *,
    submitter: Actor | None,
    via: str,
) -> tuple[BotVersion, bool]:
    with write_session(engine) as session:
        if submitter is None:  # the host's own identity (made by migration 0003)
            local = session.exec(select(User).where(User.name == LOCAL_ORGANISER)).one()
            submitter = Actor(row_id(local), local.name, "organiser")
        bot = _usable_bot(session, submitter, name)
        if bot is None:
            keys = name_keys(name)
            bot = Bot(
                name=name,
                name_folded=keys.folded,
                name_shape=keys.shape,
                name_upper=keys.upper,
                owner_id=submitter.id,
            )
            session.add(bot)
            session.flush()
        assert bot.id is not None
        versions = session.exec(
            select(BotVersion).where(BotVersion.bot_id == bot.id).order_by(col(BotVersion.seq))
        ).all()
        if versions and versions[-1].checksum == checksum:
            return versions[-1], False
        seq = len(versions) + 1
        taken = {v.label for v in versions}
        base = f"{name}@{version}"
        short = checksum.removeprefix("v2:")[:8]
        label = next(
            candidate
            for candidate in (base, f"{base}+{short}", f"{base}+{short}.{seq}")
            if candidate not in taken
        )
        row = BotVersion(
            bot_id=bot.id,
            seq=seq,
            version=version,
            label=label,
            checksum=checksum,
            manifest=manifest,
            path=path,
            language=language,
            submitted_by=submitter.id,
            submitted_via=via,
        )
        session.add(row)
        session.commit()
        LOGGER.info("stored bot version %s (seq %d)", label, seq)
        return row, True


@database_errors
def get_bot(engine: Engine, name: str) -> Bot | None:
    """The bot *name* means (exactly that name, else the one that looks like it), or ``None``.

    :raises arena.storage.users.AmbiguousName: when *name* looks like several bots' names.
    """
    with read_session(engine) as session:
        return resolve_name(session, Bot, name)


@database_errors
def bot_versions(engine: Engine, name: str) -> list[BotVersion]:
    """The versions of the bot *name* means in submission order (empty for an unknown bot).

    :raises arena.storage.users.AmbiguousName: when *name* looks like several bots' names.
    """
    with read_session(engine) as session:
        bot = resolve_name(session, Bot, name)
        if bot is None:
            return []
        return list(
            session.exec(
                select(BotVersion)
                .where(BotVersion.bot_id == row_id(bot))
                .order_by(col(BotVersion.seq))
            ).all()
        )


@database_errors
def latest_version(engine: Engine, name: str, *, exact: bool = False) -> BotVersion | None:
    """The most recently submitted version of the bot *name* means, or ``None``; with
    *exact*, only of the bot called exactly *name* (a submission's own name).

    :raises arena.storage.users.AmbiguousName: when *name* looks like several bots' names.
    """
    with read_session(engine) as session:
        bot = _bot_named(session, name, exact=exact)
        if bot is None:
            return None
        return session.exec(
            select(BotVersion)
            .where(BotVersion.bot_id == row_id(bot))
            .order_by(col(BotVersion.seq).desc())
        ).first()


@database_errors
def get_bot_version(engine: Engine, bot_version_id: int) -> BotVersion | None:
    """The bot version with this id, or ``None``."""
    with read_session(engine) as session:
        return session.get(BotVersion, bot_version_id)


def version_labels(engine: Engine) -> dict[int, str]:
    """Bot version id -> label, for read models that name the bots of id-only rows."""
    return {
        version_id: label
        for version_id, label in read_rows(
            engine, sa_select(col(BotVersion.id), col(BotVersion.label))
        )
    }


__all__ = [
    "BotInfo",
    "NameCollision",
    "VersionInfo",
    "add_bot_version",
    "bot_overview",
    "bot_owner",
    "bot_versions",
    "check_may_submit",
    "get_bot",
    "get_bot_version",
    "latest_version",
    "list_bots",
    "name_collisions",
    "resolve_bot_name",
    "version_labels",
]
