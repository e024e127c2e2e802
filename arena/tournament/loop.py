"""The one run loop: every format's run goes through :func:`play`, and says only what to play.

A format's run (a round robin, a ladder, a version test; a test match is a private round
robin) is a :class:`RunFormat`: a few hooks in the way of cutechess's ``Tournament`` base
(``initializePairing``, ``gamesPerCycle``, ``nextPair``). :meth:`~RunFormat.start` reads
what is stored and gives the first round's jobs, :meth:`~RunFormat.next_round` the next
round's once a round is played (a version test plays a batch of boards, then looks at its
sequential test), :meth:`~RunFormat.more` feeds the executor whenever a worker is free (a
ladder chooses its next match then), and :meth:`~RunFormat.store` stores a finished game.

Everything else is done here, once, the same way for every format:

* **the runner lock** (:mod:`arena.storage.runner_lock`): one runner per tournament, and
  the format starts under it, since what is still to play is only known once no one else
  plays;
* **the status**: ``running`` once started, ``finished`` when the format has no round
  left, ``interrupted`` when anything stops the run from inside this process (Ctrl-C, a
  worker that fails, a database error). A run killed from outside (SIGTERM, SIGKILL)
  leaves ``running``, and the next run resumes it: every game is stored as it ends;
* **arena faults**: a game the arena itself failed is counted on the tournament and
  logged, never stored or rated, and the executor plays it again;
* **progress**: after the status is set, and after every stored game;
* **the live feed** (docs/live.md): with a pool executor and unless ``ARENA_LIVE=0``, the
  public view of each game in play is kept in the live table
  (:class:`arena.tournament.live_table.LiveTable`), and no row of the run outlives it.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from sqlalchemy.engine import Engine

from arena import storage
from arena.game.rules import RuleSet
from arena.referee.process import DEFAULT_LOG_CAP
from arena.storage.models import BotVersion, Tournament
from arena.storage.runner_lock import runner_lock
from arena.tournament.executor import Executor, LocalProcessExecutor, PoolExecutor
from arena.tournament.formats import ScheduledGame
from arena.tournament.jobs import GameJob
from arena.tournament.live_feed import live_enabled
from arena.tournament.live_table import LiveTable

LOGGER = logging.getLogger(__name__)


class Progress(Protocol):
    """What the loop keeps up to date in every format's progress."""

    done: int
    """Games stored (by any run)."""
    played_now: int
    """Games stored by this run."""
    seconds: float
    """Since this run started."""


ProgressT = TypeVar("ProgressT", bound=Progress)


@dataclass
class RunProgress:
    """What a progress display needs, for a run whose games are known in advance."""

    done: int
    total: int
    """Games in the schedule."""
    played_now: int
    seconds: float


class RunFormat(ABC, Generic[ProgressT]):
    """One run of one tournament in its format: what to play, and what a finished game is.

    Made before the runner lock is taken, so it reads nothing stored that a runner
    changes: :meth:`start` does that, under the lock.
    """

    kind: ClassVar[str]
    """What it is called in log lines: ``tournament``, ``ladder``, ``version test``."""
    on_demand: ClassVar[bool] = False
    """Whether the executor asks :meth:`more` for jobs while a round plays."""

    def __init__(self, tournament_id: int, name: str, progress: ProgressT) -> None:
        self.tournament_id = tournament_id
        self.name = name
        self.progress = progress
        """Reported after every stored game; the loop counts the games in it."""

    @abstractmethod
    def start(self) -> list[GameJob] | None:
        """The first round's jobs (``None``: nothing is left to play), read under the lock
        before the status is set: a failure here changes nothing stored."""

    def next_round(self) -> list[GameJob] | None:
        """The next round's jobs once a round is played, or ``None`` when the run is over
        (by default a run is one round)."""
        return None

    async def more(self) -> Sequence[GameJob]:
        """More jobs while a round plays (:data:`~arena.tournament.executor.MoreJobs`),
        none when there are no more; asked only if :attr:`on_demand`."""
        return []

    @abstractmethod
    def store(self, job: GameJob, record: dict[str, Any]) -> None:
        """Store one finished game with its rating update."""

    def table_of(self, job: GameJob) -> int | None:
        """The schedule's table of *job* (shown on the Live page), ``None`` if unknown."""
        return None


async def play(
    engine: Engine,
    run: RunFormat[ProgressT],
    executor: Executor | None = None,
    on_progress: Callable[[ProgressT], None] | None = None,
) -> ProgressT:
    """Play *run* to its end under its tournament's runner lock (see the module); its
    final progress.

    :raises arena.storage.runner_lock.RunnerBusy: if another runner is playing it.
    :raises arena.tournament.executor.ExecutorError: if a worker fails (not a bot fault).
    :raises arena.storage.StorageError: for a database failure.
    """
    with runner_lock(engine, run.tournament_id, run.name):
        jobs = run.start()
        return await _play(engine, run, jobs, executor or LocalProcessExecutor(), on_progress)


async def _play(
    engine: Engine,
    run: RunFormat[ProgressT],
    jobs: list[GameJob] | None,
    executor: Executor,
    on_progress: Callable[[ProgressT], None] | None,
) -> ProgressT:
    """:func:`play` once *run* has started under its lock."""
    progress = run.progress
    began = time.perf_counter()
    feed = LiveTable(engine, run.tournament_id, run.table_of)
    feed.open()
    if isinstance(executor, PoolExecutor):
        executor.on_live = feed.update if live_enabled() else None

    def report() -> None:
        if on_progress is not None:
            on_progress(progress)

    def store(job: GameJob, record: dict[str, Any]) -> None:
        run.store(job, record)
        feed.end(job)
        progress.done += 1
        progress.played_now += 1
        progress.seconds = time.perf_counter() - began
        report()

    def arena_fault(job: GameJob, detail: str) -> None:
        feed.end(job)
        count = storage.count_arena_fault(engine, run.tournament_id)
        LOGGER.warning(
            "%s %s: arena fault %d in game %d, not rated, replayed: %s",
            run.kind,
            run.name,
            count,
            job.schedule_index,
            detail,
        )

    storage.set_status(engine, run.tournament_id, "running")
    report()
    try:
        while jobs is not None:
            if run.on_demand:
                await executor.run(jobs, store, arena_fault, more=run.more)
            else:
                await executor.run(jobs, store, arena_fault)
            jobs = run.next_round()
    except BaseException:
        storage.set_status(engine, run.tournament_id, "interrupted")
        raise
    finally:
        feed.close()
    storage.set_status(engine, run.tournament_id, "finished")
    return progress


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
    rating update: what every format's :meth:`RunFormat.store` does with a game's record."""
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
