"""Game records: storing a finished game (with its per-seat rows and the rating update,
atomically) and reading games back, whole or as headers without the record.

Every game record is the replayable fact; ``game_seat`` holds the per-seat numbers derived
from it once, at storing time (:mod:`arena.storage.seat_facts`), so that standings and
statistics never load records.

:raises StorageError: from every function, with a one-line message, for a refused
    operation (duplicate game, unknown tournament, malformed record) or a database failure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, exists, func
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from arena.ratings.trueskill_model import RatingModel, ranks_for_game
from arena.storage.bots import version_labels
from arena.storage.database import (
    StorageError,
    database_errors,
    read_rows,
    read_session,
    write_session,
)
from arena.storage.models import BOARD_SIZE, BotTally, Entry, Game, GameSeat
from arena.storage.ratings import rate_prefix, rating_model
from arena.storage.seat_facts import record_facts
from arena.storage.tallies import add_pairs, add_seats
from arena.storage.tournaments import lock_tournament


class GameAlreadyStored(StorageError):
    """The tournament already has a game at this schedule index; nothing was changed."""


@database_errors
def stored_indexes(engine: Engine, tournament_id: int) -> set[int]:
    """Schedule indexes of the games of a tournament already stored (to resume a run)."""
    with read_session(engine) as session:
        return set(
            session.exec(
                select(Game.schedule_index).where(Game.tournament_id == tournament_id)
            ).all()
        )


@database_errors
def record_game(  # noqa: PLR0913  (keyword-only: one per schedule field)
    engine: Engine,
    tournament_id: int,
    *,
    schedule_index: int,
    table_index: int,
    board_index: int,
    seating_index: int,
    seed: int,
    seats: Sequence[int],
    record: Mapping[str, Any],
    board_size: int = BOARD_SIZE,
    model: RatingModel | None = None,
) -> None:
    """Store one finished game and bring the tournament's ratings up to date, atomically.

    *seats* are the bot version ids by seat (three distinct entrants); *record* is the whole
    ``arena952.game/1`` record. In one transaction: insert the game and its seats, add the
    seats to their bots' tallies (:mod:`arena.storage.tallies`), then rate
    every game (``game`` mode) or complete board of *board_size* games (``board`` mode) of
    the gap-free stored prefix not yet rated. Concurrent callers for one tournament are
    serialised on the tournament row, so the result never depends on arrival order. Pass
    the same *board_size* and *model* (default ``DEFAULT_MODEL``) on every call.

    :raises GameAlreadyStored: if the schedule index is already stored (nothing changes).
    :raises StorageError: if the tournament is unknown, the index is outside the schedule,
        the seats are not three distinct entrants, or the record has no result or is
        malformed (nothing changes either).
    """
    facts, result = record_facts(schedule_index, record)
    try:
        record_text = json.dumps(record, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StorageError(f"record of game {schedule_index} is not JSON: {exc}") from None
    if len(seats) != 3 or len(set(seats)) != 3:
        raise StorageError(f"game {schedule_index}: seats must be 3 distinct bot versions")
    duplicate = f"game {schedule_index} of tournament {tournament_id} is already stored"
    try:
        with write_session(engine) as session:
            tournament = lock_tournament(session, tournament_id)
            if not 0 <= schedule_index < tournament.games_total:
                raise StorageError(
                    f"game {schedule_index}: outside the schedule 0..{tournament.games_total - 1}"
                )
            entrants = set(
                session.exec(
                    select(Entry.bot_version_id).where(Entry.tournament_id == tournament_id)
                ).all()
            )
            strangers = [s for s in seats if s not in entrants]
            if strangers:
                raise StorageError(
                    f"game {schedule_index}: bot version {strangers[0]} is not an entrant"
                )
            if session.exec(
                select(Game.id).where(
                    Game.tournament_id == tournament_id, Game.schedule_index == schedule_index
                )
            ).first():
                raise GameAlreadyStored(duplicate)
            game = Game(
                tournament_id=tournament_id,
                schedule_index=schedule_index,
                table_index=table_index,
                board_index=board_index,
                seating_index=seating_index,
                seed=seed,
                seats=json.dumps(list(seats)),
                record=record_text,
                winners=json.dumps(result["winners"]),
                reason=str(result["reason"]),
                scores=json.dumps(result["scores"]),
                hands_played=int(result.get("hands_played", 0)),
                fault_count=len(record.get("faults") or []),
            )
            session.add(game)
            session.flush()
            assert game.id is not None
            ranks = ranks_for_game([f.score for f in facts], [f.faulted for f in facts])
            game_seats = [
                GameSeat(
                    game_id=game.id,
                    seat=seat,
                    bot_version_id=seats[seat],
                    score=fact.score,
                    rank=ranks[seat],
                    won=fact.won,
                    faulted=fact.faulted,
                    **fact.columns(),
                )
                for seat, fact in enumerate(facts)
            ]
            session.add_all(game_seats)
            add_seats(session, tournament_id, game_seats)
            add_pairs(session, tournament_id, schedule_index, game_seats)
            session.flush()
            rate_prefix(session, tournament, rating_model(model), board_size)
            session.commit()
    except IntegrityError:
        # The pre-check above makes this a race the row lock should already prevent.
        raise GameAlreadyStored(duplicate) from None


# ---------------------------------------------------------------------------- reading


@database_errors
def game_record(engine: Engine, game_id: int) -> dict[str, Any]:
    """The whole stored record of a game (``arena replay`` and the dashboard's replays).

    :raises StorageError: if there is no such game.
    """
    with read_session(engine) as session:
        text = session.exec(select(Game.record).where(Game.id == game_id)).first()
    if text is None:
        raise StorageError(f"no game with id {game_id}")
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise StorageError(f"game {game_id}: its stored record is not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise StorageError(f"game {game_id}: its stored record is not a JSON object")
    return record


@database_errors
def tournament_game_ids(engine: Engine, tournament_id: int) -> list[int]:
    """Ids of the stored games of a tournament, in schedule order."""
    with read_session(engine) as session:
        return [
            game_id
            for game_id in session.exec(
                select(Game.id)
                .where(Game.tournament_id == tournament_id)
                .order_by(col(Game.schedule_index))
            ).all()
            if game_id is not None
        ]


@database_errors
def tournament_records(engine: Engine, tournament_id: int) -> list[tuple[int, dict[str, Any]]]:
    """``(schedule_index, record)`` of every stored game of a tournament, in schedule order."""
    with read_session(engine) as session:
        rows = session.exec(
            select(Game.schedule_index, Game.record)
            .where(Game.tournament_id == tournament_id)
            .order_by(col(Game.schedule_index))
        ).all()
    return [(index, json.loads(text)) for index, text in rows]


@dataclass(frozen=True, slots=True)
class GameRow:
    """A stored game without its record."""

    id: int
    tournament_id: int
    schedule_index: int
    table_index: int
    board_index: int
    seating_index: int
    seats: tuple[int, int, int]
    """Bot version ids by seat."""
    players: tuple[str, str, str]
    """Bot version labels by seat."""
    scores: tuple[int, int, int]
    winners: tuple[int, ...]
    reason: str
    hands_played: int
    fault_count: int


# The header columns only: a record is ~7 kB of JSON, and the pages list games by the 100.
_HEADER = sa_select(
    col(Game.id),
    col(Game.tournament_id),
    col(Game.schedule_index),
    col(Game.table_index),
    col(Game.board_index),
    col(Game.seating_index),
    col(Game.seats),
    col(Game.scores),
    col(Game.winners),
    col(Game.reason),
    col(Game.hands_played),
    col(Game.fault_count),
)


def _game_rows(engine: Engine, rows: Sequence[Any]) -> list[GameRow]:
    if not rows:
        return []
    labels = version_labels(engine)
    out = []
    for row in rows:
        seats = json.loads(row.seats)
        scores = json.loads(row.scores)
        out.append(
            GameRow(
                id=row.id,
                tournament_id=row.tournament_id,
                schedule_index=row.schedule_index,
                table_index=row.table_index,
                board_index=row.board_index,
                seating_index=row.seating_index,
                seats=(seats[0], seats[1], seats[2]),
                players=(
                    labels.get(seats[0], "?"),
                    labels.get(seats[1], "?"),
                    labels.get(seats[2], "?"),
                ),
                scores=(scores[0], scores[1], scores[2]),
                winners=tuple(json.loads(row.winners)),
                reason=row.reason,
                hands_played=row.hands_played,
                fault_count=row.fault_count,
            )
        )
    return out


@database_errors
def game_page(
    engine: Engine,
    tournament_id: int,
    *,
    bot_version_id: int | None = None,
    start: int = 0,
    limit: int = 50,
) -> list[GameRow]:
    """Stored games of a tournament from schedule index *start* on, optionally of one bot."""
    statement = _HEADER.where(
        col(Game.tournament_id) == tournament_id, col(Game.schedule_index) >= start
    )
    if bot_version_id is not None:
        statement = statement.where(
            exists().where(
                col(GameSeat.game_id) == col(Game.id),
                col(GameSeat.bot_version_id) == bot_version_id,
            )
        )
    statement = statement.order_by(col(Game.schedule_index)).limit(max(0, limit))
    return _game_rows(engine, read_rows(engine, statement))


@database_errors
def game_count(engine: Engine, tournament_id: int, bot_version_id: int | None = None) -> int:
    """Stored games of a tournament, optionally only those where one bot sat.

    Read from ``bot_tally`` (:mod:`arena.storage.tallies`), kept as games are stored: a
    bot sits at most once in a game, so its tally's ``games`` are the games where it sat,
    and a third of the tournament's seats counted are its games; no scan of the games."""
    statement = sa_select(func.coalesce(func.sum(col(BotTally.games)), 0)).where(
        col(BotTally.tournament_id) == tournament_id
    )
    if bot_version_id is not None:
        return int(
            read_rows(engine, statement.where(col(BotTally.bot_version_id) == bot_version_id))[0][0]
        )
    return int(read_rows(engine, statement)[0][0]) // 3


@database_errors
def games_in_range(engine: Engine, tournament_id: int, start: int, stop: int) -> int:
    """Stored games of a tournament with schedule index in ``start .. stop - 1``: whether a
    deal group (:func:`arena.tournament.deal_groups.deal_group`) is all played, so that
    its cards may be shown."""
    statement = (
        sa_select(func.count())
        .select_from(Game)
        .where(
            col(Game.tournament_id) == tournament_id,
            col(Game.schedule_index) >= start,
            col(Game.schedule_index) < stop,
        )
    )
    return int(read_rows(engine, statement)[0][0])


@database_errors
def game_row(engine: Engine, game_id: int) -> GameRow | None:
    """One stored game without its record, or ``None``."""
    found = _game_rows(engine, read_rows(engine, _HEADER.where(col(Game.id) == game_id)))
    return found[0] if found else None
