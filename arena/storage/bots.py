"""Bots and their versions: storing a submission, looking versions up, and the bots'
overview the dashboard shows (games played, faulted games, tournaments entered).

A bot is a name; a version is one exact set of files submitted under it, never changed
once stored, so every game names the program that played it.

:raises StorageError: from every function, with a one-line message, for a refused
    submission or a database failure.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import Engine, case, func
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

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
    Entry,
    GameSeat,
    Tournament,
    User,
    row_id,
)
from arena.storage.users import Actor, PermissionDenied

LOGGER = logging.getLogger(__name__)

_CHECKSUM: Final = re.compile(r"^(?:[0-9a-f]{64}|v2:[a-z2-7]{52})$")
"""A legacy sha256 hex checksum, or ``v2:`` and a base32 tree hash (arena.submission)."""


def _not_yours(name: str, owner: str) -> str:
    return (
        f"bot name {name!r} belongs to {owner}: only {owner} or an organiser may submit "
        "versions of it (choose another name in bot.toml)"
    )


@database_errors
def bot_owner(engine: Engine, name: str) -> str | None:
    """The name of the user who owns bot *name*, or ``None`` for a free name."""
    statement = (
        sa_select(col(User.name))
        .join(Bot, col(Bot.owner_id) == col(User.id))
        .where(col(Bot.name) == name)
    )
    rows = read_rows(engine, statement)
    return str(rows[0][0]) if rows else None


def check_may_submit(engine: Engine, submitter: Actor, name: str) -> None:
    """Refuse early (before any build) a submission under a name *submitter* does not own.

    :func:`add_bot_version` checks again when it stores, in its transaction.

    :raises PermissionDenied: naming the owner.
    """
    owner = bot_owner(engine, name)
    if owner is not None and owner != submitter.name and not submitter.is_organiser:
        raise PermissionDenied(_not_yours(name, owner))


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

    A new bot name creates the bot, owned by *submitter*. An existing bot takes versions
    only from its owner or an organiser: the check runs in the same transaction that
    stores the version, so two submitters racing for a new name cannot both win. If the bot's latest version has the same *checksum*,
    nothing is stored and that version comes back with ``created=False`` (its path kept).
    Otherwise a new version gets the next ``seq`` and the label ``name@version``, or
    ``name@version+<checksum[:8]>`` when that version was already submitted with other
    files (plus ``.<seq>`` in the odd case that this label is taken too).

    :raises PermissionDenied: when the name belongs to another user (nothing is stored).
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
            # Another process registered the same bot or version first; look again.
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
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            bot = Bot(name=name, owner_id=submitter.id)
            session.add(bot)
            session.flush()
        elif bot.owner_id != submitter.id and not submitter.is_organiser:
            owner = session.get(User, bot.owner_id)
            raise PermissionDenied(_not_yours(name, owner.name if owner else "another user"))
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
    """The bot called *name*, or ``None``."""
    with read_session(engine) as session:
        return session.exec(select(Bot).where(Bot.name == name)).first()


@database_errors
def list_bots(engine: Engine) -> list[Bot]:
    """Every bot, by name."""
    with read_session(engine) as session:
        return list(session.exec(select(Bot).order_by(col(Bot.name))).all())


@database_errors
def bot_versions(engine: Engine, name: str) -> list[BotVersion]:
    """The versions of bot *name* in submission order (empty for an unknown bot)."""
    with read_session(engine) as session:
        return list(
            session.exec(
                select(BotVersion)
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(Bot.name == name)
                .order_by(col(BotVersion.seq))
            ).all()
        )


@database_errors
def latest_version(engine: Engine, name: str) -> BotVersion | None:
    """The most recently submitted version of bot *name*, or ``None``."""
    with read_session(engine) as session:
        return session.exec(
            select(BotVersion)
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(Bot.name == name)
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


# ------------------------------------------------------------------- bots overview


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """A submitted bot version with what it has played."""

    id: int
    seq: int
    version: str
    label: str
    checksum: str
    language: str
    path: str
    manifest: str
    """The manifest fields as JSON text."""
    submitted_at: datetime
    submitted_by: str
    """The user who submitted it."""
    submitted_via: str
    """``cli``, ``dashboard`` or ``unknown`` (before accounts existed)."""
    games: int
    faulted_games: int
    tournaments: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BotInfo:
    """A bot and its versions, oldest first."""

    id: int
    name: str
    created_at: datetime
    owner: str
    """The user who owns the name (who first submitted it)."""
    versions: tuple[VersionInfo, ...]

    @property
    def games(self) -> int:
        """Games played by all versions."""
        return sum(v.games for v in self.versions)

    @property
    def faulted_games(self) -> int:
        """Games with a fault, over all versions."""
        return sum(v.faulted_games for v in self.versions)


@database_errors
def bot_overview(engine: Engine) -> list[BotInfo]:
    """Every bot by name, with its versions, games played and tournaments entered."""
    played = {
        version_id: (int(games), int(faulted or 0))
        for version_id, games, faulted in read_rows(
            engine,
            sa_select(
                col(GameSeat.bot_version_id),
                func.count(),
                func.sum(case((col(GameSeat.faulted), 1), else_=0)),
            ).group_by(col(GameSeat.bot_version_id)),
        )
    }
    entered: dict[int, list[str]] = {}
    for version_id, name in read_rows(
        engine,
        sa_select(col(Entry.bot_version_id), col(Tournament.name))
        .join(Tournament, col(Tournament.id) == col(Entry.tournament_id))
        .order_by(col(Tournament.id)),
    ):
        entered.setdefault(version_id, []).append(name)
    users = dict(read_rows(engine, sa_select(col(User.id), col(User.name))))
    with read_session(engine) as session:
        stored = session.exec(
            select(BotVersion).order_by(col(BotVersion.bot_id), col(BotVersion.seq))
        ).all()
    versions: dict[int, list[VersionInfo]] = {}
    for row in stored:
        games, faulted = played.get(row_id(row), (0, 0))
        versions.setdefault(row.bot_id, []).append(
            VersionInfo(
                id=row_id(row),
                seq=row.seq,
                version=row.version,
                label=row.label,
                checksum=row.checksum,
                language=row.language,
                path=row.path,
                manifest=row.manifest,
                submitted_at=row.submitted_at,
                submitted_by=users.get(row.submitted_by, "?"),
                submitted_via=row.submitted_via,
                games=games,
                faulted_games=faulted,
                tournaments=tuple(entered.get(row_id(row), [])),
            )
        )
    return [
        BotInfo(
            row_id(bot),
            bot.name,
            bot.created_at,
            users.get(bot.owner_id, "?"),
            tuple(versions.get(row_id(bot), [])),
        )
        for bot in list_bots(engine)
    ]
