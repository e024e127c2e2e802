"""Ladders: their stopping settings, the matches they schedule (each stored before it is
played: :mod:`arena.storage.ladder_matches`), the entrants that join while they run, and
an open ladder's quota (:mod:`arena.storage.ladder_quota`); the names of both modules are
re-exported here.

A ladder's schedule is not a function of its settings, as a round robin's is: its tables
are chosen from the ratings as it plays. So each chosen table is written here first, in the
same transaction that extends the tournament's ``games_total`` by one board; the runner
then plays it. A killed ladder finds the match stored and plays its missing games; nothing
is chosen twice.

Entrants are bot versions (``entry`` rows, as in every tournament). A ladder plays each
bot's newest entered version; older versions are *retired*: they keep their games,
ratings and history, but the matchmaker no longer picks them. An entrant also leaves when
its owner or an organiser *withdraws* it. Either way its ``entry`` row keeps when and why
(``left_at``, ``left_because``), so the standings still show it, as left.

An *open* ladder takes entrants by itself: every newly stored version enters it
(:func:`enter_open_ladders`, called by :mod:`arena.submission`), and a participant may store
only so many versions a day while such a ladder sets a quota
(:func:`version_quota_refusal`, checked before anything is built).

:raises StorageError: from every function, with a one-line message, for a refused
    operation or a database failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import Engine, func
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from arena.storage.database import (
    StorageError,
    database_errors,
    read_rows,
    read_session,
    write_session,
)
from arena.storage.ladder_matches import (
    EntrantLeft,
    ScheduledMatch,
    _is_ladder,
    ladder_matches,
    schedule_match,
    unfinished_matches,
)
from arena.storage.ladder_quota import (
    QUOTA_WINDOW,
    version_quota_refusal,
)
from arena.storage.models import (
    Bot,
    BotVersion,
    Entry,
    LadderSettings,
    row_id,
    utcnow,
)
from arena.storage.tournaments import lock_tournament
from arena.storage.users import Actor, PermissionDenied, require_role

LADDER_FORMAT: Final = "ladder"
"""The ``tournament.format`` of a ladder."""
RETIRED: Final = "retired"
"""``entry.left_because`` of a version a newer version of its bot replaced in the ladder."""
WITHDRAWN: Final = "withdrawn"
"""``entry.left_because`` of a version its owner or an organiser took out of the ladder."""


@dataclass(frozen=True, slots=True)
class LadderEntrant:
    """An entered bot version of a ladder."""

    bot_version_id: int
    label: str
    bot_id: int
    seq: int
    position: int
    """Entry order (0 first)."""
    retired: bool
    """A newer version of the same bot is entered: it is no longer matched."""
    withdrawn: bool = False
    """Its owner or an organiser withdrew it: it is no longer matched."""
    left_at: datetime | None = None
    """When it retired or was withdrawn (``None`` for a version retired before migration
    0011, which did not record it, and for an active entrant)."""

    @property
    def active(self) -> bool:
        """The matchmaker may seat it."""
        return not (self.retired or self.withdrawn)

    @property
    def state(self) -> str:
        """``active``, ``retired`` or ``withdrawn``, as pages and the CLI show it."""
        return WITHDRAWN if self.withdrawn else RETIRED if self.retired else "active"


@database_errors
def ladder_settings(engine: Engine, tournament_id: int) -> LadderSettings:
    """The stopping settings of ladder *tournament_id*.

    :raises StorageError: if it is not a ladder.
    """
    with read_session(engine) as session:
        settings = session.get(LadderSettings, tournament_id)
    if settings is None:
        raise StorageError(f"tournament {tournament_id} is not a ladder")
    return settings


@database_errors
def ladder_entrants(engine: Engine, tournament_id: int) -> list[LadderEntrant]:
    """Every entered version, in entry order, each marked retired, withdrawn or active.

    A version is retired when it was recorded so, or when a newer version of its bot is
    entered (ladders before migration 0011 recorded no retirement).
    """
    rows = read_rows(
        engine,
        sa_select(
            col(BotVersion.id),
            col(BotVersion.label),
            col(BotVersion.bot_id),
            col(BotVersion.seq),
            col(Entry.position),
            col(Entry.left_at),
            col(Entry.left_because),
        )
        .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
        .where(col(Entry.tournament_id) == tournament_id)
        .order_by(col(Entry.position)),
    )
    newest: dict[int, int] = {}
    for row in rows:
        newest[row.bot_id] = max(row.seq, newest.get(row.bot_id, row.seq))
    return [
        LadderEntrant(
            bot_version_id=version_id,
            label=label,
            bot_id=bot_id,
            seq=seq,
            position=position,
            retired=because == RETIRED or (because is None and seq < newest[bot_id]),
            withdrawn=because == WITHDRAWN,
            left_at=left_at,
        )
        for version_id, label, bot_id, seq, position, left_at, because in rows
    ]


def _enter(session: Session, tournament_id: int, version: BotVersion) -> None:
    """Enter *version* last, and record the retirement of its bot's older versions that are
    still in (one transaction: the caller commits)."""
    last = session.exec(
        select(func.coalesce(func.max(Entry.position), -1)).where(
            Entry.tournament_id == tournament_id
        )
    ).one()
    older = session.exec(
        select(Entry)
        .join(BotVersion, col(Entry.bot_version_id) == col(BotVersion.id))
        .where(
            Entry.tournament_id == tournament_id,
            BotVersion.bot_id == version.bot_id,
            col(BotVersion.seq) < version.seq,
            col(Entry.left_at).is_(None),
        )
    ).all()
    now = utcnow()
    for entry in older:
        entry.left_at = now
        entry.left_because = RETIRED
        session.add(entry)
    session.add(
        Entry(tournament_id=tournament_id, position=last + 1, bot_version_id=row_id(version))
    )


@database_errors
def enter_version(engine: Engine, tournament_id: int, bot_version_id: int) -> None:
    """Enter *bot_version_id* into a ladder (last in entry order); an entered older
    version of the same bot is retired by it.

    :raises StorageError: if the tournament is not a ladder or the version is entered.
    """
    try:
        with write_session(engine) as session:
            lock_tournament(session, tournament_id)
            _is_ladder(session, tournament_id)
            version = session.get(BotVersion, bot_version_id)
            if version is None:
                raise StorageError(f"no bot version with id {bot_version_id}")
            entered = session.exec(
                select(Entry.position).where(
                    Entry.tournament_id == tournament_id,
                    Entry.bot_version_id == bot_version_id,
                )
            ).first()
            if entered is not None:
                raise StorageError(f"{version.label} is already entered")
            _enter(session, tournament_id, version)
            session.commit()
    except IntegrityError:
        raise StorageError("the entrants changed at the same time; try again") from None


@database_errors
def enter_new_versions(engine: Engine, tournament_id: int) -> list[str]:
    """Enter the newest version of every entered bot that has a newer one than it entered
    (the submission hook a ladder reads when it schedules); their labels. A bot whose
    newest entered version was withdrawn stays out: withdrawing takes the bot out, not
    just that version.

    :raises StorageError: if the tournament is not a ladder.
    """
    with write_session(engine) as session:
        lock_tournament(session, tournament_id)
        _is_ladder(session, tournament_id)
        rows = session.exec(
            select(BotVersion.bot_id, BotVersion.seq, Entry.left_because)
            .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
            .where(Entry.tournament_id == tournament_id)
        ).all()
        newest: dict[int, tuple[int, str | None]] = {}
        for bot_id, seq, because in rows:
            if bot_id not in newest or seq > newest[bot_id][0]:
                newest[bot_id] = (seq, because)
        added = []
        for bot_id, (seq, because) in sorted(newest.items()):
            if because == WITHDRAWN:
                continue
            newer = session.exec(
                select(BotVersion)
                .where(BotVersion.bot_id == bot_id, col(BotVersion.seq) > seq)
                .order_by(col(BotVersion.seq).desc())
            ).first()
            if newer is not None:
                _enter(session, tournament_id, newer)
                session.flush()
                added.append(newer.label)
        session.commit()
    return added


@database_errors
def enter_open_ladders(engine: Engine, bot_version_id: int) -> list[str]:
    """Enter the newly stored *bot_version_id* into every open ladder, retiring its bot's
    older versions there, in one transaction; the names of the ladders entered.

    A ladder where the version, or a newer version of its bot, is already entered is left
    as it is (a runner's :func:`enter_new_versions` may have got there first), so calling
    this twice enters nothing twice.

    :raises StorageError: if there is no such version.
    """
    try:
        with write_session(engine) as session:
            version = session.get(BotVersion, bot_version_id)
            if version is None:
                raise StorageError(f"no bot version with id {bot_version_id}")
            # Locked in id order, as every writer of several ladders must, so that two
            # submissions entering the same ladders cannot deadlock on PostgreSQL.
            open_ids = session.exec(
                select(LadderSettings.tournament_id)
                .where(col(LadderSettings.open))
                .order_by(col(LadderSettings.tournament_id))
            ).all()
            entered = []
            for tournament_id in open_ids:
                if tournament_id is None:
                    continue
                tournament = lock_tournament(session, tournament_id)
                settings = session.get(LadderSettings, tournament_id)
                if settings is None or not settings.open:
                    continue  # closed while we waited for the lock
                newest = session.exec(
                    select(func.coalesce(func.max(BotVersion.seq), 0))
                    .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
                    .where(
                        Entry.tournament_id == tournament_id, BotVersion.bot_id == version.bot_id
                    )
                ).one()
                if newest >= version.seq:
                    continue
                _enter(session, tournament_id, version)
                session.flush()
                entered.append(tournament.name)
            session.commit()
    except IntegrityError:
        raise StorageError("the entrants changed at the same time; try again") from None
    return entered


@database_errors
def withdraw_entry(engine: Engine, tournament_id: int, bot_version_id: int, by: Actor) -> None:
    """Withdraw entrant *bot_version_id* from ladder *tournament_id*: it is scheduled no
    more (a match already chosen is still played), its games and ratings stay. Only the
    bot's owner or an organiser may.

    :raises PermissionDenied: for another user's bot.
    :raises StorageError: if the tournament is not a ladder, or the version is not entered
        or has already left.
    """
    with write_session(engine) as session:
        tournament = lock_tournament(session, tournament_id)
        if session.get(LadderSettings, tournament_id) is None:
            raise StorageError(
                f"{tournament.name!r} is not a ladder: only a ladder's entrants leave"
            )
        found = session.exec(
            select(Entry, BotVersion, Bot)
            .join(BotVersion, col(Entry.bot_version_id) == col(BotVersion.id))
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(Entry.tournament_id == tournament_id, Entry.bot_version_id == bot_version_id)
        ).first()
        if found is None:
            label = session.get(BotVersion, bot_version_id)
            shown = label.label if label is not None else f"bot version {bot_version_id}"
            raise StorageError(f"{shown} is not entered in {tournament.name!r}")
        entry, version, bot = found
        if bot.owner_id != by.id and not by.is_organiser:
            raise PermissionDenied(
                f"{version.label} is not {by.name}'s: only its owner or an organiser may "
                "withdraw it"
            )
        if entry.left_because is not None:
            raise StorageError(
                f"{version.label} has already left {tournament.name!r} ({entry.left_because})"
            )
        newer = session.exec(
            select(BotVersion.label)
            .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
            .where(
                Entry.tournament_id == tournament_id,
                BotVersion.bot_id == version.bot_id,
                col(BotVersion.seq) > version.seq,
            )
        ).first()
        if newer is not None:
            raise StorageError(
                f"{version.label} has already left {tournament.name!r} (retired by {newer})"
            )
        entry.left_at = utcnow()
        entry.left_because = WITHDRAWN
        session.add(entry)
        session.commit()


@database_errors
def set_ladder_open(
    engine: Engine,
    tournament_id: int,
    *,
    is_open: bool,
    max_versions_per_day: int | None,
    by: Actor,
) -> LadderSettings:
    """Open or close ladder *tournament_id* and set its daily quota of versions per
    participant (``None``: none); the stored settings. Organisers only.

    Closing a ladder stops new versions entering it by themselves; its entrants stay.

    :raises PermissionDenied: for a participant.
    :raises StorageError: if it is not a ladder, or the quota is below 1.
    """
    require_role(by, "organiser", "opening or closing a ladder")
    if max_versions_per_day is not None and max_versions_per_day < 1:
        raise StorageError(
            f"a daily quota of {max_versions_per_day} versions would refuse every version; "
            "give 1 or more, or none"
        )
    with write_session(engine) as session:
        tournament = lock_tournament(session, tournament_id)
        settings = session.get(LadderSettings, tournament_id)
        if settings is None:
            raise StorageError(f"{tournament.name!r} is not a ladder: only a ladder opens")
        settings.open = is_open
        settings.max_versions_per_day = max_versions_per_day
        session.add(settings)
        session.commit()
    return settings


__all__ = [
    "LADDER_FORMAT",
    "QUOTA_WINDOW",
    "RETIRED",
    "WITHDRAWN",
    "EntrantLeft",
    "LadderEntrant",
    "ScheduledMatch",
    "enter_new_versions",
    "enter_open_ladders",
    "enter_version",
    "ladder_entrants",
    "ladder_matches",
    "ladder_settings",
    "schedule_match",
    "set_ladder_open",
    "unfinished_matches",
    "version_quota_refusal",
    "withdraw_entry",
]
