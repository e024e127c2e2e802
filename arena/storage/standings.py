"""The read models both the CLI and the dashboard show: standings and rating history.

Standings carry the leaderboard's own doubt (:mod:`arena.ratings.confidence`): each row's
chance of being better than the row below it, and a 95% interval of its true rank.

``arena standings`` and the dashboard's Standings page call the same :func:`standings`;
the Rating history page and any CLI view of it call :func:`rating_history`. So the two
front ends cannot disagree on a number. Aggregates come from ``bot_tally`` (the sums of
``game_seat``, kept as each game is stored: :mod:`arena.storage.tallies`) and the
``rating_snapshot`` index, never from loading game records nor from scanning every game:
a public ladder's million games cost what its few entrants do.

:raises StorageError: from every function, for a database failure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, Executable, Select, TextClause, func, text
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from arena.ratings.confidence import p_above_next, rank_intervals
from arena.ratings.trueskill_model import Rating as Skill
from arena.ratings.trueskill_model import RatingModel
from arena.storage.bots import version_labels
from arena.storage.database import database_errors, read_rows, read_session
from arena.storage.models import (
    Bot,
    BotTally,
    BotVersion,
    Entry,
    Rating,
    RatingSnapshot,
    Tournament,
    User,
)
from arena.storage.ratings import rating_model
from arena.storage.tallies import SUMS
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
    """Games won outright or with a shared first place, faulted games included (where the
    autopilot finished the game for the bot): what the JSON's ``wins`` has always said.
    The tables show :attr:`clean_wins`."""
    mean_score: float
    """Mean final score per game, faulted games included (0.0 before the first game).
    The tables show :attr:`clean_mean_score`."""
    made_9: float | None
    """Fraction of hands in the 9 seat where the bot made its contract; ``None`` if none."""
    made_5: float | None
    made_2: float | None
    faults: int
    """Games in which the bot faulted at least once. Each counts as last place for its
    rating (below every seat that did not fault: :data:`FAULT_RULE`)."""
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
    clean_games: int = 0
    """Games without a fault of the bot's: ``games - faults``."""
    clean_wins: int = 0
    """Wins in :attr:`clean_games` only: never what the autopilot won after a fault."""
    clean_mean_score: float | None = None
    """Mean final score over :attr:`clean_games`; ``None`` when there is none."""

    @property
    def retired(self) -> bool:
        """A ladder version replaced by a newer version of the same bot: hidden from the
        standings unless asked for (``arena standings --all``)."""
        return self.left == "retired"


STANDINGS_LEGEND = (
    "rating = mu - 3 sigma (the sort key; JSON field conservative); P(>next) = chance this "
    "bot's skill is above the next row's; rank 95% = the ranks its true skill would take in "
    "95 of 100 draws from the ratings' posteriors"
)
"""The one line that says what the confidence columns mean (CLI and dashboard)."""

FAULT_RULE = (
    "faulted games count as last place: a game in which a bot faulted ranks it below every "
    "bot that did not (for its rating), whatever the autopilot then scored for it; faults "
    "= such games; wins and score/game count only the games without a fault"
)
"""The rule of faults, said beside every standings table (CLI, dashboard, JSON); the
reasons are in docs/bots.md section 9."""

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
        stats = {row[0]: row[1:] for row in session.execute(_tally_query(tournament_id))}
    prior = rating_model(model).initial()
    rows: list[StandingRow] = []
    for bot_id, label, bot_name, version, owner, left in entrants:
        assert bot_id is not None
        rated = current.get(bot_id)
        mu, sigma = (rated.mu, rated.sigma) if rated is not None else (prior.mu, prior.sigma)
        games, wins, score, h9, m9, h5, m5, h2, m2, faults, clean_wins, clean_score = (
            int(v or 0) for v in stats.get(bot_id, (0,) * 12)
        )
        clean_games = games - faults
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
                clean_games=clean_games,
                clean_wins=clean_wins,
                clean_mean_score=clean_score / clean_games if clean_games else None,
            )
        )
    rows.sort(key=lambda r: (-r.conservative, -r.mu, r.bot))
    return _ranked(rows)


def without_retired(rows: Sequence[StandingRow]) -> list[StandingRow]:
    """*rows* less the retired ladder versions, ranked again among themselves (ranks,
    P(>next) and rank intervals compare only the rows shown)."""
    return _ranked([row for row in rows if not row.retired])


def _ranked(rows: Sequence[StandingRow]) -> list[StandingRow]:
    """*rows* (best first) with their rank and rank confidence among themselves."""
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


def _tally_query(tournament_id: int) -> Select[*tuple[Any, ...]]:
    """Per bot version of a tournament: games, wins, score and contract sums, faults, then
    wins and score of the games without a fault (``bot_tally``: one row per entrant, kept
    as games are stored; :mod:`arena.storage.tallies`)."""
    return sa_select(
        col(BotTally.bot_version_id), *(getattr(BotTally, name) for name in SUMS)
    ).where(col(BotTally.tournament_id) == tournament_id)


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
    """Each bot's rating over its games, by bot, at most *max_points* points per bot
    (``None``: every stored snapshot).

    Starts with the prior (*model*'s, default ``DEFAULT_MODEL``) at 0 games and always ends
    with the latest snapshot. Past *max_points* schedule slots, the chart takes *max_points*
    evenly spaced schedule indexes counted back from the last rated game, and each bot's
    latest snapshot at or before each of them: one index seek per point on the
    ``(tournament_id, bot_version_id, schedule_index)`` index, so the cost is the points
    drawn, not the millions of snapshots stored (a window over every snapshot took seconds
    at a million games).
    """
    if bot_version_ids is not None and not bot_version_ids:
        return []
    snapshot = RatingSnapshot
    columns = (
        col(snapshot.bot_version_id),
        col(snapshot.games),
        col(snapshot.schedule_index),
        col(snapshot.mu),
        col(snapshot.sigma),
    )
    of_tournament = col(snapshot.tournament_id) == tournament_id
    ((last,),) = read_rows(
        engine,
        sa_select(func.max(col(Rating.rated_through))).where(
            col(Rating.tournament_id) == tournament_id
        ),
    )
    statement: Executable
    if max_points is None or last is None or int(last) + 1 <= max_points:
        every = sa_select(*columns).where(of_tournament)
        if bot_version_ids is not None:
            every = every.where(col(snapshot.bot_version_id).in_(list(bot_version_ids)))
        statement = every.order_by(col(snapshot.bot_version_id), col(snapshot.schedule_index))
    else:
        statement = _thinned(tournament_id, bot_version_ids, int(last), max(1, max_points))
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


def _thinned(
    tournament_id: int, bot_version_ids: Sequence[int] | None, last: int, points: int
) -> TextClause:
    """Each bot's latest snapshot at or before each of *points* schedule indexes spaced
    evenly back from *last* (duplicates merged): a correlated ``LIMIT 1`` per (bot, index),
    which both databases answer with one seek on the snapshot's unique index."""
    step = -(-(last + 1) // points)  # ceil
    targets = ", ".join(f"({last - j * step})" for j in range(points) if last - j * step >= 0)
    bots = "SELECT bot_version_id FROM rating WHERE tournament_id = :t"
    if bot_version_ids is not None:
        bots += " AND bot_version_id IN (" + ", ".join(str(int(b)) for b in bot_version_ids) + ")"
    return text(
        "SELECT s.bot_version_id, s.games, s.schedule_index, s.mu, s.sigma "
        "FROM rating_snapshot s WHERE s.tournament_id = :t AND s.id IN ("
        " SELECT (SELECT p.id FROM rating_snapshot p"
        "  WHERE p.tournament_id = :t AND p.bot_version_id = b.bot_version_id"
        "  AND p.schedule_index <= v.column1"
        "  ORDER BY p.schedule_index DESC LIMIT 1)"
        f" FROM ({bots}) b CROSS JOIN (VALUES {targets}) v)"
        " ORDER BY s.bot_version_id, s.schedule_index"
    ).bindparams(t=tournament_id)


def standings_json(
    tournament: str | None,
    rows: list[StandingRow],
    arena_faults: int | None = None,
    progress: Progress | None = None,
    retired_hidden: int = 0,
) -> dict[str, object]:
    """Every column of the standings as JSON-ready values (``arena standings --json`` and the HTTP API's standings);
    *arena_faults* counts the games the arena itself failed (``None``: not looked up), and
    *progress* gives the games stored and the games the ratings cover; *retired_hidden*
    counts the retired ladder versions left out of *rows*.

    Compatible with what it gave before: every earlier field keeps its meaning (``wins``
    and ``mean_score`` still count faulted games); ``clean_*``, ``retired``, ``fault_rule``
    and ``retired_hidden`` are new."""
    return {
        "tournament": tournament,
        "arena_faults": arena_faults,
        "games_stored": progress.stored if progress is not None else None,
        "games_rated": progress.rated if progress is not None else None,
        "legend": STANDINGS_LEGEND,
        "fault_rule": FAULT_RULE,
        "retired_hidden": retired_hidden,
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
                "clean_games": row.clean_games,
                "clean_wins": row.clean_wins,
                "clean_mean_score": row.clean_mean_score,
                "retired": row.retired,
            }
            for row in rows
        ],
    }
