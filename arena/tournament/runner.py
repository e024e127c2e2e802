"""The tournament runner: plays what is missing from a tournament's schedule, exactly once.

Crash safety comes from three facts: the schedule is a pure function of the tournament's
settings; a game is written together with its rating update in one transaction, under a
uniqueness constraint on its schedule index; and the runner plays only the indexes that
are not stored yet. Kill it at any moment and run it again: finished games stay, unfinished
ones are played again from the same board seeds (derived from the tournament's stored
secret), and the ratings are those of the stored prefix.

:func:`run` plays any tournament, whatever its format, through the one run loop
(:mod:`arena.tournament.loop`): a fixed schedule here (:class:`RoundRobinRun`), a ladder
(:mod:`arena.tournament.ladder`), a version test (:mod:`arena.tournament.compare`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Engine

from arena import storage
from arena.storage.database import StorageError
from arena.storage.models import Tournament
from arena.storage.tournaments import stored_rules
from arena.tournament import compare, ladder
from arena.tournament.deals import table_seeds
from arena.tournament.executor import Executor
from arena.tournament.formats import ScheduledGame, get_format
from arena.tournament.jobs import GameJob
from arena.tournament.ladder import LadderProgress
from arena.tournament.loop import RunFormat, RunProgress, game_job, play, store_game
from arena.tournament.outage import OutageWait

__all__ = [
    "RoundRobinRun",
    "RunProgress",
    "game_job",
    "plan",
    "run",
    "run_tournament",
    "store_game",
    "tournament_rules",
]

LOGGER = logging.getLogger(__name__)

tournament_rules = stored_rules
"""The stored rules of a tournament: :func:`arena.storage.tournaments.stored_rules`, the one
reader (an unreadable column raises its one-line error, a ``ValueError`` too)."""


def plan(engine: Engine, name: str) -> tuple[Tournament, list[ScheduledGame], list[GameJob]]:
    """The tournament, its whole schedule, and the jobs still to play.

    :raises arena.storage.StorageError: if there is no such tournament, or its stored
        rules are unreadable.
    """
    tournament = storage.get_tournament(engine, name)
    tournament_id = storage.row_id(tournament)
    versions = storage.entries(engine, tournament_id)
    fmt = get_format(tournament.format)
    seeds = table_seeds(
        tournament.shuffle, tournament.seed, tournament.deal_secret, tournament.deal_scope
    )
    schedule = fmt.schedule(len(versions), tournament.boards, seeds)
    stored = storage.stored_indexes(engine, tournament_id)
    rules = stored_rules(tournament)

    jobs = [
        game_job(tournament, rules, game, versions)
        for game in schedule
        if game.schedule_index not in stored
    ]
    return tournament, schedule, jobs


class RoundRobinRun(RunFormat[RunProgress]):
    """A run of a tournament with a fixed schedule (a round robin): one round, the games
    of its schedule that are not stored yet."""

    kind = "tournament"

    def __init__(self, engine: Engine, tournament: Tournament) -> None:
        super().__init__(storage.row_id(tournament), tournament.name, RunProgress(0, 0, 0, 0.0))
        self.engine = engine
        self.games: dict[int, tuple[ScheduledGame, list[int]]] = {}
        """Schedule index -> the game and its seats (bot version ids)."""
        self.board_size = 0

    def start(self) -> list[GameJob]:
        tournament, schedule, jobs = plan(self.engine, self.name)
        versions = storage.entries(self.engine, self.tournament_id)
        for game in schedule:
            seats = [storage.row_id(versions[e]) for e in game.entrants]
            self.games[game.schedule_index] = (game, seats)
        self.board_size = get_format(tournament.format).board_size
        self.progress.done = len(schedule) - len(jobs)
        self.progress.total = len(schedule)
        return jobs

    def table_of(self, job: GameJob) -> int | None:
        game = self.games.get(job.schedule_index)
        return None if game is None else game[0].table_index

    def store(self, job: GameJob, record: dict[str, Any]) -> None:
        game, seats = self.games[job.schedule_index]
        store_game(self.engine, self.tournament_id, game, seats, record, self.board_size)


async def run_tournament(
    engine: Engine,
    name: str,
    executor: Executor | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
    outage: OutageWait | None = None,
) -> RunProgress:
    """Play every game of tournament *name* that is not stored yet, storing each as it ends.

    A game the arena itself failed is counted as an arena fault, not stored or rated, and
    played again (the executor gives up after a few in a row). One runner plays a
    tournament at a time (:mod:`arena.storage.runner_lock`).

    :raises arena.tournament.executor.ExecutorError: if a worker fails (not a bot fault).
    :raises arena.storage.runner_lock.RunnerBusy: if another runner is playing it.
    """
    found = storage.get_tournament(engine, name)
    return await play(engine, RoundRobinRun(engine, found), executor, on_progress, outage)


async def run(
    engine: Engine,
    name: str,
    executor: Executor | None = None,
    on_progress: Callable[[RunProgress | LadderProgress], None] | None = None,
    *,
    follow: bool = False,
    outage: OutageWait | None = None,
) -> RunProgress | LadderProgress:
    """Play (or resume) tournament *name*, whatever its format, through the one run loop;
    its final progress (*outage*: how a database outage is waited out, see
    :mod:`arena.tournament.outage`). Only a ladder may *follow* (:func:`arena.tournament.ladder.run_ladder`);
    a version test plays until its sequential test decides, as
    :func:`arena.tournament.compare.run_version_test`, reporting games like a round robin.

    :raises ValueError: for *follow* on another format than a ladder.
    :raises arena.storage.StorageError: if there is no such tournament, its rules or a
        version test's settings are unreadable, or the database fails.
    :raises arena.storage.runner_lock.RunnerBusy: if another runner is playing it.
    :raises arena.tournament.executor.ExecutorError: if a worker fails (not a bot fault).
    :raises arena.tournament.outage.DatabaseGone: if the database stays unreachable past
        the retry limit (a later run resumes).
    """
    found = storage.get_tournament(engine, name)
    if found.format == storage.LADDER_FORMAT:
        return await ladder.run_ladder(
            engine, name, executor, on_progress, follow=follow, outage=outage
        )
    if follow:
        raise ValueError("only a ladder can follow")
    if found.format != compare.FORMAT:
        return await play(engine, RoundRobinRun(engine, found), executor, on_progress, outage)
    spec = compare.load_spec(engine, storage.row_id(found))
    if spec is None:
        raise StorageError("this version test's settings are not stored; start a new one")
    test = compare.VersionTestRun(engine, spec, executor)
    return await play(engine, test, test.executor, on_progress, outage)
