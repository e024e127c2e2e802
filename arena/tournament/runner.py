"""The tournament runner: plays what is missing from a tournament's schedule, exactly once.

Crash safety comes from three facts: the schedule is a pure function of the tournament's
settings; a game is written together with its rating update in one transaction, under a
uniqueness constraint on its schedule index; and the runner plays only the indexes that
are not stored yet. Kill it at any moment and run it again: finished games stay, unfinished
ones are played again from the same board seeds (derived from the tournament's stored
secret), and the ratings are those of the stored prefix.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from arena import storage
from arena.game.rules import RuleSet
from arena.referee.process import DEFAULT_LOG_CAP
from arena.storage.models import BotVersion, Tournament
from arena.storage.runner_lock import runner_lock
from arena.tournament.deals import table_seeds
from arena.tournament.executor import Executor, LocalProcessExecutor
from arena.tournament.formats import ScheduledGame, get_format
from arena.tournament.jobs import GameJob

LOGGER = logging.getLogger(__name__)


@dataclass
class RunProgress:
    """What a progress display needs."""

    done: int
    total: int
    played_now: int
    seconds: float


def plan(engine: Engine, name: str) -> tuple[Tournament, list[ScheduledGame], list[GameJob]]:
    """The tournament, its whole schedule, and the jobs still to play.

    :raises arena.storage.StorageError: if there is no such tournament.
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
    rules = tournament_rules(tournament)

    jobs = [
        game_job(tournament, rules, game, versions)
        for game in schedule
        if game.schedule_index not in stored
    ]
    return tournament, schedule, jobs


def game_job(
    tournament: Tournament,
    rules: RuleSet,
    game: ScheduledGame,
    versions: Sequence[BotVersion],
    id_prefix: str | None = None,
) -> GameJob:
    """The job of one scheduled *game*; *versions* are the entrants in entry order. Its
    game id is ``<id_prefix>-<schedule index>``, the prefix being the tournament's name
    unless given."""
    a, b, c = (versions[e] for e in game.entrants)
    return GameJob(
        schedule_index=game.schedule_index,
        seed=game.seed,
        first_dealer=game.first_dealer,
        rules=rules.to_json(),
        ruleset=tournament.ruleset,
        time_control=tournament.time_control,
        bot_paths=(a.path, b.path, c.path),
        game_id=f"{id_prefix or tournament.name}-{game.schedule_index:06d}",
        log_cap=DEFAULT_LOG_CAP,
        shuffle=tournament.shuffle,
        checksums=(a.checksum, b.checksum, c.checksum),
        labels=(a.label, b.label, c.label),
    )


def store_game(
    engine: Engine,
    tournament_id: int,
    game: ScheduledGame,
    seats: Sequence[int],
    record: dict[str, Any],
    board_size: int,
) -> None:
    """Store one finished scheduled *game* (bot version ids by seat in *seats*) with its
    rating update: what every format's runner does with a game's record."""
    storage.record_game(
        engine,
        tournament_id,
        schedule_index=game.schedule_index,
        table_index=game.table_index,
        board_index=game.board_index,
        seating_index=game.seating_index,
        seed=game.seed,
        seats=list(seats),
        record=record,
        board_size=board_size,
    )


def tournament_rules(tournament: Tournament) -> RuleSet:
    """The stored rules of *tournament*."""
    return RuleSet.from_json(_json(tournament.rules), name=tournament.ruleset)


def _json(text: str) -> dict[str, Any]:
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


async def run_tournament(
    engine: Engine,
    name: str,
    executor: Executor | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
) -> RunProgress:
    """Play every game of tournament *name* that is not stored yet, storing each as it ends.

    A game the arena itself failed is counted as an arena fault, not stored or rated, and
    played again (the executor gives up after a few in a row). One runner plays a
    tournament at a time (:mod:`arena.storage.runner_lock`).

    :raises arena.tournament.executor.ExecutorError: if a worker fails (not a bot fault).
    :raises arena.storage.runner_lock.RunnerBusy: if another runner is playing it.
    """
    found = storage.get_tournament(engine, name)
    with runner_lock(engine, storage.row_id(found), found.name):
        # Planned under the lock: what is still to play is only known once no one else plays.
        tournament, schedule, jobs = plan(engine, name)
        executor = executor or LocalProcessExecutor()
        return await _run(engine, tournament, schedule, jobs, executor, on_progress)


async def _run(
    engine: Engine,
    tournament: Tournament,
    schedule: Sequence[ScheduledGame],
    jobs: list[GameJob],
    executor: Executor,
    on_progress: Callable[[RunProgress], None] | None,
) -> RunProgress:
    """:func:`run_tournament` once its runner lock is held."""
    tournament_id = storage.row_id(tournament)
    versions = storage.entries(engine, tournament_id)
    by_index = {game.schedule_index: game for game in schedule}
    board_size = get_format(tournament.format).board_size
    progress = RunProgress(len(schedule) - len(jobs), len(schedule), 0, 0.0)
    start = time.perf_counter()
    storage.set_status(engine, tournament_id, "running")
    if on_progress is not None:
        on_progress(progress)

    def store(job: GameJob, record: dict[str, Any]) -> None:
        game = by_index[job.schedule_index]
        seats = [storage.row_id(versions[e]) for e in game.entrants]
        store_game(engine, tournament_id, game, seats, record, board_size)
        progress.done += 1
        progress.played_now += 1
        progress.seconds = time.perf_counter() - start
        if on_progress is not None:
            on_progress(progress)

    def arena_fault(job: GameJob, detail: str) -> None:
        count = storage.count_arena_fault(engine, tournament_id)
        LOGGER.warning(
            "tournament %s: arena fault %d in game %d, not rated, replayed: %s",
            tournament.name,
            count,
            job.schedule_index,
            detail,
        )

    try:
        await executor.run(jobs, store, arena_fault)
    except BaseException:
        storage.set_status(engine, tournament_id, "interrupted")
        raise
    storage.set_status(engine, tournament_id, "finished")
    return progress
