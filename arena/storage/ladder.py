"""Ladders: their stopping settings, the matches they schedule (each stored before it is
played) and the entrants that join while they run.

A ladder's schedule is not a function of its settings, as a round robin's is: its tables
are chosen from the ratings as it plays. So each chosen table is written here first, in the
same transaction that extends the tournament's ``games_total`` by one board; the runner
then plays it. A killed ladder finds the match stored and plays its missing games; nothing
is chosen twice.

Entrants are bot versions (``entry`` rows, as in every tournament). A ladder plays each
bot's newest entered version; older versions are *retired*: they keep their games,
ratings and history, but the matchmaker no longer picks them.

:raises StorageError: from every function, with a one-line message, for a refused
    operation or a database failure.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
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
from arena.storage.models import (
    BOARD_SIZE,
    BotVersion,
    Entry,
    Game,
    LadderMatch,
    LadderSettings,
    row_id,
)
from arena.storage.tournaments import lock_tournament

LADDER_FORMAT: Final = "ladder"
"""The ``tournament.format`` of a ladder."""


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


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """A stored ladder match and how many of its games are stored."""

    match_index: int
    bot_version_ids: tuple[int, int, int]
    labels: tuple[str, str, str]
    games_stored: int
    scheduled_at: datetime

    @property
    def complete(self) -> bool:
        """Every game of the match is stored."""
        return self.games_stored >= BOARD_SIZE


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
    """Every entered version, in entry order, each marked retired or not."""
    rows = read_rows(
        engine,
        sa_select(
            col(BotVersion.id),
            col(BotVersion.label),
            col(BotVersion.bot_id),
            col(BotVersion.seq),
            col(Entry.position),
        )
        .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
        .where(col(Entry.tournament_id) == tournament_id)
        .order_by(col(Entry.position)),
    )
    newest: dict[int, int] = {}
    for _, _, bot_id, seq, _ in rows:
        newest[bot_id] = max(seq, newest.get(bot_id, seq))
    return [
        LadderEntrant(version_id, label, bot_id, seq, position, seq < newest[bot_id])
        for version_id, label, bot_id, seq, position in rows
    ]


def _is_ladder(session: Session, tournament_id: int) -> None:
    if session.get(LadderSettings, tournament_id) is None:
        raise StorageError("only a ladder takes entrants after it is created")


def _enter(session: Session, tournament_id: int, version_id: int) -> None:
    last = session.exec(
        select(func.coalesce(func.max(Entry.position), -1)).where(
            Entry.tournament_id == tournament_id
        )
    ).one()
    session.add(Entry(tournament_id=tournament_id, position=last + 1, bot_version_id=version_id))


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
            _enter(session, tournament_id, bot_version_id)
            session.commit()
    except IntegrityError:
        raise StorageError("the entrants changed at the same time; try again") from None


@database_errors
def enter_new_versions(engine: Engine, tournament_id: int) -> list[str]:
    """Enter the newest version of every entered bot that has a newer one than it entered
    (the submission hook a ladder reads when it schedules); their labels.

    :raises StorageError: if the tournament is not a ladder.
    """
    with write_session(engine) as session:
        lock_tournament(session, tournament_id)
        _is_ladder(session, tournament_id)
        entered = session.exec(
            select(BotVersion.bot_id, func.max(BotVersion.seq))
            .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
            .where(Entry.tournament_id == tournament_id)
            .group_by(col(BotVersion.bot_id))
        ).all()
        added = []
        for bot_id, seq in entered:
            newer = session.exec(
                select(BotVersion)
                .where(BotVersion.bot_id == bot_id, col(BotVersion.seq) > seq)
                .order_by(col(BotVersion.seq).desc())
            ).first()
            if newer is not None:
                _enter(session, tournament_id, row_id(newer))
                session.flush()
                added.append(newer.label)
        session.commit()
    return added


@database_errors
def schedule_match(
    engine: Engine, tournament_id: int, match_index: int, bot_version_ids: Sequence[int]
) -> None:
    """Store match *match_index* of a ladder (its three entrants in table order) and make
    room for its board in the tournament's schedule, in one transaction.

    :raises StorageError: if the index is not the next one (another runner got there
        first), or the bots are not three distinct entrants.
    """
    if len(bot_version_ids) != 3 or len(set(bot_version_ids)) != 3:
        raise StorageError(f"match {match_index}: needs 3 distinct bot versions")
    try:
        with write_session(engine) as session:
            tournament = lock_tournament(session, tournament_id)
            _is_ladder(session, tournament_id)
            count = session.exec(
                select(func.count()).where(LadderMatch.tournament_id == tournament_id)
            ).one()
            if count != match_index:
                raise StorageError(
                    f"match {match_index} of {tournament.name!r}: the ladder has {count} "
                    "matches (is another runner playing it?)"
                )
            entered = set(
                session.exec(
                    select(Entry.bot_version_id).where(Entry.tournament_id == tournament_id)
                ).all()
            )
            if not set(bot_version_ids) <= entered:
                raise StorageError(f"match {match_index}: a bot version is not an entrant")
            a, b, c = bot_version_ids
            session.add(
                LadderMatch(
                    tournament_id=tournament_id,
                    match_index=match_index,
                    bot_version_a=a,
                    bot_version_b=b,
                    bot_version_c=c,
                )
            )
            tournament.games_total = (match_index + 1) * BOARD_SIZE
            session.add(tournament)
            session.commit()
    except IntegrityError:
        raise StorageError(f"match {match_index} is already scheduled") from None


@database_errors
def ladder_matches(
    engine: Engine, tournament_id: int, *, start: int = 0, limit: int | None = None
) -> list[ScheduledMatch]:
    """The stored matches of a ladder from index *start* on (at most *limit*), in order,
    each with its stored game count."""
    statement = (
        select(LadderMatch)
        .where(LadderMatch.tournament_id == tournament_id, col(LadderMatch.match_index) >= start)
        .order_by(col(LadderMatch.match_index))
    )
    if limit is not None:
        statement = statement.limit(max(0, limit))
    with read_session(engine) as session:
        matches = list(session.exec(statement).all())
        labels = dict(
            session.exec(
                select(BotVersion.id, BotVersion.label)
                .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
                .where(Entry.tournament_id == tournament_id)
            ).all()
        )
    stored = _games_per_match(engine, tournament_id, start)
    out = []
    for match in matches:
        ids = (match.bot_version_a, match.bot_version_b, match.bot_version_c)
        out.append(
            ScheduledMatch(
                match_index=match.match_index,
                bot_version_ids=ids,
                labels=(labels.get(ids[0], "?"), labels.get(ids[1], "?"), labels.get(ids[2], "?")),
                games_stored=stored.get(match.match_index, 0),
                scheduled_at=match.scheduled_at,
            )
        )
    return out


def _games_per_match(engine: Engine, tournament_id: int, start: int) -> dict[int, int]:
    """Match index -> stored games, for matches from *start* on."""
    match = col(Game.schedule_index) // BOARD_SIZE
    rows = read_rows(
        engine,
        sa_select(match, func.count())
        .where(
            col(Game.tournament_id) == tournament_id,
            col(Game.schedule_index) >= start * BOARD_SIZE,
        )
        .group_by(match),
    )
    return {int(index): int(count) for index, count in rows}


@database_errors
def unfinished_matches(engine: Engine, tournament_id: int) -> list[ScheduledMatch]:
    """The ladder's stored matches that still miss games (in play, or cut off by a kill),
    in order."""
    every = inspect.unwrap(ladder_matches)(engine, tournament_id)  # one decorator, one name
    return [m for m in every if not m.complete]
