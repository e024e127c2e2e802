"""The bots' overview: every bot, and per bot and version its games, faulted games and
tournaments (the dashboard's Bots page and the CLI's list of bots), and the look-alike names
stored before migration 0008 refused them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from arena.storage.database import (
    database_errors,
    read_rows,
    read_session,
)
from arena.storage.models import (
    Bot,
    BotTally,
    BotVersion,
    Entry,
    Tournament,
    User,
    row_id,
)
from arena.storage.names import claim_keys


@database_errors
def list_bots(engine: Engine) -> list[Bot]:
    """Every bot, by name."""
    with read_session(engine) as session:
        return list(session.exec(select(Bot).order_by(col(Bot.name))).all())


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
            # The tallies kept as games are stored (arena.storage.tallies): one row per
            # entry, not a scan of every seat ever played.
            sa_select(
                col(BotTally.bot_version_id),
                func.sum(col(BotTally.games)),
                func.sum(col(BotTally.faults)),
            ).group_by(col(BotTally.bot_version_id)),
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


# ------------------------------------------------------------------ look-alike names


@dataclass(frozen=True, slots=True)
class NameCollision:
    """Two stored names a person could take for each other: possible only for names
    stored before migration 0008, which kept both (games and records name them)."""

    kind: str
    """``user`` or ``bot``."""
    older: str
    newer: str
    older_owner: str | None = None
    """The owner of the older name (bots only)."""
    newer_owner: str | None = None

    def __str__(self) -> str:
        return (
            f"{self.kind} names {_owned(self.older, self.older_owner)} and "
            f"{_owned(self.newer, self.newer_owner)} look alike"
        )


def _owned(name: str, owner: str | None) -> str:
    return f"{name!r} ({owner}'s)" if owner else repr(name)


@database_errors
def name_collisions(engine: Engine) -> list[NameCollision]:
    """Every pair of stored look-alike names, users first, then bots, each pair once (for
    ``arena doctor``). Computed from the names themselves, as migration 0008 did, not
    from the stored keys."""
    users = dict(read_rows(engine, sa_select(col(User.id), col(User.name))))
    bots = read_rows(engine, sa_select(col(Bot.id), col(Bot.name), col(Bot.owner_id)))
    bot_names = {bot_id: name for bot_id, name, _ in bots}
    owners = {bot_id: users.get(owner_id) for bot_id, _, owner_id in bots}
    found = [
        NameCollision("user", users[older], users[newer])
        for older, newer in claim_keys(users.items()).collisions
    ]
    found += [
        NameCollision("bot", bot_names[older], bot_names[newer], owners[older], owners[newer])
        for older, newer in claim_keys(bot_names.items()).collisions
    ]
    return found
