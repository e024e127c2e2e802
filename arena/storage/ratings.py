"""Rating updates: the stored games of a tournament, rated in schedule order.

Ratings are a pure function of the stored games: after every
:func:`arena.storage.games.record_game` the ratings of a tournament are exactly those of
the longest gap-free prefix of its schedule (games 0, 1, ..., k all stored), rated in
schedule order. Games that parallel workers finish early are stored at once and rated as
soon as the gap before them is filled. :func:`recompute_ratings` replays the same code path
from scratch. Every update leaves a :class:`RatingSnapshot` per bot (never overwritten) and
moves the bot's current :class:`Rating` row.

:raises StorageError: from every function, for an unknown tournament or a database failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session, col, delete, select

from arena.ratings import trueskill_model
from arena.ratings.trueskill_model import RatingModel, ranks_for_game, ranks_for_totals
from arena.storage.database import StorageError, database_errors, read_session, write_session
from arena.storage.models import BOARD_SIZE, Game, GameSeat, Rating, RatingSnapshot, Tournament
from arena.storage.tournaments import lock_tournament


def rating_model(model: RatingModel | None) -> RatingModel:
    """*model*, or the arena's ``DEFAULT_MODEL`` looked up at call time (so the model in
    force, and a patched one in tests, is the one used)."""
    return trueskill_model.DEFAULT_MODEL if model is None else model


@dataclass
class _Unit:
    """A rating update: one game, or one whole board."""

    last_index: int
    totals: dict[int, int]
    """Bot version id -> score (summed over the board), in seat order of the first game."""
    faulted: dict[int, bool]
    games: dict[int, int]


READ_UNITS_MAX = 64
"""The most rating units :func:`rate_prefix` reads in one query."""


def rate_prefix(
    session: Session, tournament: Tournament, model: RatingModel, board_size: int
) -> None:
    """Rate every not-yet-rated unit of the gap-free stored prefix, in schedule order
    (inside the caller's write transaction, with the tournament row locked).

    It reads the stored games from the first unrated unit on, one unit first, then twice
    as many at each step (up to :data:`READ_UNITS_MAX`), and stops at the first gap. Parallel
    workers store games far out of schedule order (in a round robin of 144 games at
    ``--parallel 2``, 68 games on average waited behind a gap when the next one was stored):
    reading every unrated game at every store made each store cost as much as that backlog,
    and a large round robin's storing grow with the square of its games. Now a store behind
    a gap reads one unit, and a gap that closes is rated in a few reads.
    """
    if board_size < 1:
        raise StorageError(f"board size must be at least 1, got {board_size}")
    current = {
        r.bot_version_id: r
        for r in session.exec(select(Rating).where(Rating.tournament_id == tournament.id)).all()
    }
    done = max((r.rated_through for r in current.values()), default=-1)
    size = 1 if tournament.rating_mode == "game" else board_size
    start = done + 1  # the first game of a unit: units are rated whole, from game 0
    units = 1
    while start < tournament.games_total:
        stop = min(start + units * size, tournament.games_total)
        games = _stored_seats(session, tournament, start, stop)
        while start < stop:
            end = min(start + size, tournament.games_total) - 1
            if any(i not in games for i in range(start, end + 1)):
                return  # a gap: the rest waits
            unit = _Unit(end, {}, {}, {})
            for index in range(start, end + 1):
                for bot, score, faulted in games[index]:
                    unit.totals[bot] = unit.totals.get(bot, 0) + score
                    unit.faulted[bot] = unit.faulted.get(bot, False) or faulted
                    unit.games[bot] = unit.games.get(bot, 0) + 1
            _apply(session, tournament, model, unit, current)
            start = end + 1
        units = min(2 * units, READ_UNITS_MAX)


def _stored_seats(
    session: Session, tournament: Tournament, start: int, stop: int
) -> dict[int, list[tuple[int, int, bool]]]:
    """Schedule index -> (bot version id, score, faulted) by seat, of the stored games in
    ``start <= index < stop``."""
    rows = session.exec(
        select(Game.schedule_index, GameSeat.bot_version_id, GameSeat.score, GameSeat.faulted)
        .join(GameSeat, col(GameSeat.game_id) == col(Game.id))
        .where(
            Game.tournament_id == tournament.id,
            col(Game.schedule_index) >= start,
            col(Game.schedule_index) < stop,
        )
        .order_by(col(Game.schedule_index), col(GameSeat.seat))
    ).all()
    games: dict[int, list[tuple[int, int, bool]]] = {}
    for index, bot, score, faulted in rows:
        games.setdefault(index, []).append((bot, score, faulted))
    return games


def _apply(
    session: Session,
    tournament: Tournament,
    model: RatingModel,
    unit: _Unit,
    current: dict[int, Rating],
) -> None:
    """Rate one unit: a snapshot per bot, and the current rating rows updated."""
    assert tournament.id is not None
    bots = list(unit.totals)
    totals = [unit.totals[b] for b in bots]
    faulted = [unit.faulted[b] for b in bots]
    # A faulted bot ranks below every clean one; ranks_for_game does that on any scores.
    ranks = ranks_for_game(totals, faulted) if any(faulted) else ranks_for_totals(totals)
    prior = model.initial()
    before = [
        trueskill_model.Rating(current[b].mu, current[b].sigma) if b in current else prior
        for b in bots
    ]
    after = model.rate(before, ranks)
    for bot, rating in zip(bots, after, strict=True):
        row = current.get(bot)
        if row is None:
            row = Rating(
                tournament_id=tournament.id,
                bot_version_id=bot,
                mu=rating.mu,
                sigma=rating.sigma,
                games=0,
                rated_through=unit.last_index,
            )
            current[bot] = row
        row.mu, row.sigma = rating.mu, rating.sigma
        row.games += unit.games[bot]
        row.rated_through = unit.last_index
        session.add(row)
        session.add(
            RatingSnapshot(
                tournament_id=tournament.id,
                bot_version_id=bot,
                schedule_index=unit.last_index,
                mu=rating.mu,
                sigma=rating.sigma,
                games=row.games,
            )
        )


@database_errors
def recompute_ratings(
    engine: Engine,
    tournament_id: int,
    model: RatingModel | None = None,
    *,
    board_size: int = BOARD_SIZE,
) -> None:
    """Delete a tournament's ratings and snapshots and rate its stored games again.

    Same code path as :func:`arena.storage.games.record_game`, so with the same model the
    result is identical.

    :raises StorageError: for an unknown tournament.
    """
    with write_session(engine) as session:
        tournament = lock_tournament(session, tournament_id)
        session.exec(
            delete(RatingSnapshot).where(col(RatingSnapshot.tournament_id) == tournament_id)
        )
        session.exec(delete(Rating).where(col(Rating.tournament_id) == tournament_id))
        rate_prefix(session, tournament, rating_model(model), board_size)
        session.commit()


@database_errors
def ratings(engine: Engine, tournament_id: int) -> list[Rating]:
    """The current ratings of a tournament, by bot version id."""
    with read_session(engine) as session:
        return list(
            session.exec(
                select(Rating)
                .where(Rating.tournament_id == tournament_id)
                .order_by(col(Rating.bot_version_id))
            ).all()
        )
