"""The read models both the CLI and the dashboard show: standings and rating history.

Standings carry the leaderboard's own doubt (:mod:`arena.ratings.confidence`): each row's
chance of being better than the row below it, and a 95% interval of its true rank.

``arena standings`` and the dashboard's Standings page call the same :func:`standings`;
the Rating history page and any CLI view of it call :func:`rating_history`. So the two
front ends cannot disagree on a number. Aggregates come from the narrow ``game_seat`` and
``rating_snapshot`` tables with SQL doing the sums, never from loading game records.

:raises StorageError: from every function, for a database failure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, Select, case, func
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from arena.ratings.confidence import p_above_next, rank_intervals
from arena.ratings.trueskill_model import Rating as Skill
from arena.ratings.trueskill_model import RatingModel
from arena.storage.bots import version_labels
from arena.storage.database import database_errors, read_rows, read_session
from arena.storage.models import (
    Bot,
    BotVersion,
    Entry,
    Game,
    GameSeat,
    Rating,
    RatingSnapshot,
    Tournament,
    User,
)
from arena.storage.ratings import rating_model
from arena.storage.tournaments import Progress


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of a tournament's standings."""

    rank: int
    """1 = top, by conservative rating."""
    bot_version_id: int
    bot: str
    """The bot version's label (``name@version``)."""
    conservative: float
    """``mu - 3 sigma``, the sort key."""
    mu: float
    sigma: float
    games: int
    """Stored games played (rated or still waiting behind a gap)."""
    wins: int
    """Games won outright or with a shared first place."""
    mean_score: float
    """Mean final score per game (0.0 before the first game)."""
    made_9: float | None
    """Fraction of hands in the 9 seat where the bot made its contract; ``None`` if none."""
    made_5: float | None
    made_2: float | None
    faults: int
    """Games in which the bot faulted at least once."""
    name: str = ""
    """The bot's name (all its versions share it)."""
    version: str = ""
    """The version's manifest ``version``."""
    p_above_next: float | None = None
    """P(this bot's skill > the next row's), from the two TrueSkill posteriors; ``None``
    on the last row."""
    rank_low: int = 0
    """The best rank of the 95% interval of the bot's true rank (1 = first)."""
    rank_high: int = 0
    """The worst rank of that interval."""
    owner: str = ""
    """The user who owns the bot's name."""
    left: str | None = None
    """Why it left a ladder (``retired``, ``withdrawn``): it plays no more, its games and
    rating stay; ``None``: still in."""


STANDINGS_LEGEND = (
    "rating = mu - 3 sigma (the sort key; JSON field conservative); P(>next) = chance this "
    "bot's skill is above the next row's; rank 95% = the ranks its true skill would take in "
    "95 of 100 draws from the ratings' posteriors"
)
"""The one line that says what the confidence columns mean (CLI and dashboard)."""

RATING_LAG_NOTE = (
    "ratings follow the schedule: a game finished early counts at once in games, wins and "
    "scores, but is rated only once every game before it is stored (in board mode, once its "
    "whole board is), so mu and sigma can trail the games while a tournament runs"
)
"""Said beside the standings while the ratings cover fewer games than are stored (a
round robin with process reuse plays each board's last seating late: docs/scaling.md)."""


@database_errors
def standings(
    engine: Engine, tournament_id: int | None = None, model: RatingModel | None = None
) -> list[StandingRow]:
    """Standings of a tournament (default: the most recently created), best first.

    Every entrant appears; one not rated yet shows the model's prior (*model*, default
    ``DEFAULT_MODEL``). Empty if there is no tournament. Each row carries its rank
    confidence, computed over all the rows (a Monte-Carlo estimate with a fixed seed, so
    the same ratings always give the same intervals).
    """
    with read_session(engine) as session:
        if tournament_id is None:
            latest = session.exec(
                select(Tournament.id).order_by(
                    col(Tournament.created_at).desc(), col(Tournament.id).desc()
                )
            ).first()
            if latest is None:
                return []
            tournament_id = latest
        entrants = session.execute(
            sa_select(
                col(BotVersion.id),
                col(BotVersion.label),
                col(Bot.name),
                col(BotVersion.version),
                col(User.name),
                col(Entry.left_because),
            )
            .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .join(User, col(User.id) == col(Bot.owner_id))
            .where(col(Entry.tournament_id) == tournament_id)
            .order_by(col(Entry.position))
        ).all()
        current = {
            r.bot_version_id: r
            for r in session.exec(select(Rating).where(Rating.tournament_id == tournament_id)).all()
        }
        stats = {row[0]: row[1:] for row in session.execute(_stats_query(tournament_id))}
    prior = rating_model(model).initial()
    rows: list[StandingRow] = []
    for bot_id, label, bot_name, version, owner, left in entrants:
        assert bot_id is not None
        rated = current.get(bot_id)
        mu, sigma = (rated.mu, rated.sigma) if rated is not None else (prior.mu, prior.sigma)
        games, wins, score, h9, m9, h5, m5, h2, m2, faults = (
            int(v or 0) for v in stats.get(bot_id, (0,) * 10)
        )
        rows.append(
            StandingRow(
                rank=0,
                bot_version_id=bot_id,
                bot=label,
                conservative=mu - 3 * sigma,
                mu=mu,
                sigma=sigma,
                games=games,
                wins=wins,
                mean_score=score / games if games else 0.0,
                made_9=m9 / h9 if h9 else None,
                made_5=m5 / h5 if h5 else None,
                made_2=m2 / h2 if h2 else None,
                faults=faults,
                name=bot_name,
                version=version,
                owner=owner,
                left=left,
            )
        )
    rows.sort(key=lambda r: (-r.conservative, -r.mu, r.bot))
    skills = [Skill(row.mu, row.sigma) for row in rows]
    return [
        dataclasses.replace(
            row,
            rank=position,
            p_above_next=above,
            rank_low=interval.low,
            rank_high=interval.high,
        )
        for position, (row, above, interval) in enumerate(
            zip(rows, p_above_next(skills), rank_intervals(skills), strict=True), start=1
        )
    ]


def _stats_query(tournament_id: int) -> Select[*tuple[Any, ...]]:
    """Per bot version of a tournament: games, wins, score and contract sums, faults."""
    return (
        sa_select(
            col(GameSeat.bot_version_id),
            func.count(),
            func.sum(case((col(GameSeat.won), 1), else_=0)),
            func.sum(col(GameSeat.score)),
            func.sum(col(GameSeat.hands_9)),
            func.sum(col(GameSeat.made_9)),
            func.sum(col(GameSeat.hands_5)),
            func.sum(col(GameSeat.made_5)),
            func.sum(col(GameSeat.hands_2)),
            func.sum(col(GameSeat.made_2)),
            func.sum(case((col(GameSeat.faulted), 1), else_=0)),
        )
        .join(Game, col(Game.id) == col(GameSeat.game_id))
        .where(col(Game.tournament_id) == tournament_id)
        .group_by(col(GameSeat.bot_version_id))
    )


# ---------------------------------------------------------------------- rating history


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's rating after some number of its games."""

    bot_version_id: int
    bot: str
    games: int
    schedule_index: int
    """The game after which this rating holds (-1 for the prior)."""
    mu: float
    sigma: float


@database_errors
def rating_history(
    engine: Engine,
    tournament_id: int,
    bot_version_ids: Sequence[int] | None = None,
    max_points: int | None = 300,
    model: RatingModel | None = None,
) -> list[RatingPoint]:
    """Each bot's rating over its games, by bot, at most about *max_points* points per bot
    (``None``: every stored snapshot).

    Starts with the prior (*model*'s, default ``DEFAULT_MODEL``) at 0 games and always ends
    with the latest snapshot; in between every k-th snapshot is kept, so a chart of 100,000
    games stays light.
    """
    if bot_version_ids is not None and not bot_version_ids:
        return []
    snapshot = RatingSnapshot
    picked = sa_select(
        col(snapshot.bot_version_id),
        col(snapshot.games),
        col(snapshot.schedule_index),
        col(snapshot.mu),
        col(snapshot.sigma),
    ).where(col(snapshot.tournament_id) == tournament_id)
    if bot_version_ids is not None:
        picked = picked.where(col(snapshot.bot_version_id).in_(list(bot_version_ids)))
    if max_points is None:
        statement = picked.order_by(col(snapshot.bot_version_id), col(snapshot.schedule_index))
    else:
        bot = col(snapshot.bot_version_id)
        numbered = picked.add_columns(
            func.row_number()
            .over(partition_by=bot, order_by=col(snapshot.schedule_index).desc())
            .label("back"),
            func.count().over(partition_by=bot).label("n"),
        ).subquery("picked")
        every = max(1, max_points)
        # Every k-th snapshot counted back from the latest, k = ceil(n / max_points); the
        # window functions keep the thinning in the database (one pass over the index).
        statement = (
            sa_select(*numbered.c[:5])
            .where((numbered.c.back - 1) % ((numbered.c.n + every - 1) // every) == 0)
            .order_by(numbered.c.bot_version_id, numbered.c.schedule_index)
        )
    labels = version_labels(engine)
    prior = rating_model(model).initial()
    points: list[RatingPoint] = []
    seen: set[int] = set()
    for bot, games, index, mu, sigma in read_rows(engine, statement):
        label = labels.get(bot, str(bot))
        if bot not in seen:
            seen.add(bot)
            points.append(RatingPoint(bot, label, 0, -1, prior.mu, prior.sigma))
        points.append(RatingPoint(bot, label, games, index, mu, sigma))
    return points


def standings_json(
    tournament: str | None,
    rows: list[StandingRow],
    arena_faults: int | None = None,
    progress: Progress | None = None,
) -> dict[str, object]:
    """Every column of the standings as JSON-ready values (``arena standings --json`` and the HTTP API's standings);
    *arena_faults* counts the games the arena itself failed (``None``: not looked up), and
    *progress* gives the games stored and the games the ratings cover."""
    return {
        "tournament": tournament,
        "arena_faults": arena_faults,
        "games_stored": progress.stored if progress is not None else None,
        "games_rated": progress.rated if progress is not None else None,
        "legend": STANDINGS_LEGEND,
        "standings": [
            {
                "rank": row.rank,
                "bot": row.name,
                "version": row.version,
                "label": row.bot,
                "owner": row.owner,
                "left": row.left,
                "bot_version_id": row.bot_version_id,
                "mu": row.mu,
                "sigma": row.sigma,
                "conservative": row.conservative,
                "p_above_next": row.p_above_next,
                "rank_low": row.rank_low,
                "rank_high": row.rank_high,
                "games": row.games,
                "wins": row.wins,
                "mean_score": row.mean_score,
                "made_9": row.made_9,
                "made_5": row.made_5,
                "made_2": row.made_2,
                "faults": row.faults,
            }
            for row in rows
        ],
    }
