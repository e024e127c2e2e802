"""A ladder's stored matches: each table the runner chooses is stored before it is played
(so a resumed run plays the same tables), listed with how many of its games are stored,
and refused when one of its entrants has left the ladder meanwhile."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

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
)
from arena.storage.tournaments import lock_tournament


class EntrantLeft(StorageError):
    """A table names an entrant that has left the ladder (withdrawn or retired while the
    runner was choosing): the runner chooses again."""


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


def _is_ladder(session: Session, tournament_id: int) -> None:
    if session.get(LadderSettings, tournament_id) is None:
        raise StorageError("only a ladder takes entrants after it is created")


@database_errors
def schedule_match(
    engine: Engine, tournament_id: int, match_index: int, bot_version_ids: Sequence[int]
) -> None:
    """Store match *match_index* of a ladder (its three entrants in table order) and make
    room for its board in the tournament's schedule, in one transaction.

    :raises EntrantLeft: if one of them has left the ladder (withdrawn or retired since
        the table was chosen).
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
            entered = dict(
                session.exec(
                    select(Entry.bot_version_id, Entry.left_because).where(
                        Entry.tournament_id == tournament_id
                    )
                ).all()
            )
            if not set(bot_version_ids) <= entered.keys():
                raise StorageError(f"match {match_index}: a bot version is not an entrant")
            if any(entered[v] is not None for v in bot_version_ids):
                raise EntrantLeft(f"match {match_index}: an entrant has left; choose again")
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
