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
  left, ``interrupted`` when anything stops the run from inside this process (Ctrl-C or
  SIGTERM through :mod:`arena.tournament.polite_stop`, a worker that fails, a database
  error). A run killed with SIGKILL leaves ``running``, and the next run resumes it: every
  game is stored as it ends;
* **database outages** (:mod:`arena.tournament.outage`): every database call of the run
  goes through one :class:`~arena.tournament.outage.OutageWait`. Finished games' results
  are held in memory, in the order they finished, and stored one after another by whichever
  slot holds the store's turn; a slot waiting for its turn starts no new game, so within
  one game per worker nothing new starts while the database is away. Before each store the
  runner lock is checked (and taken again on a new connection if the server dropped it).
  A game the database says is already stored after an outage was committed just before
  the connection died: it counts as stored, once. Past the retry limit the run stops with
  :class:`~arena.tournament.outage.DatabaseGone`; the held games are played again by the
  next run. A full disk stops it at once (:class:`~arena.storage.outage.DatabaseFull`).
  Cleanup after such a stop never raises a second error on top of the first;
* **arena faults**: a game the arena itself failed is counted on the tournament and
  logged, never stored or rated, and the executor plays it again;
* **progress**: after the status is set, and after every stored game;
* **the live feed** (docs/live.md): with a pool executor and unless ``ARENA_LIVE=0``, the
  public view of each game in play is kept in the live table
  (:class:`arena.tournament.live_table.LiveTable`), and no row of the run outlives it.
"""

from __future__ import annotations

import asyncio
import functools
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
from arena.storage.database import StorageError
from arena.storage.games import GameAlreadyStored
from arena.storage.models import BotVersion, Tournament
from arena.storage.outage import DatabaseFull, full_disk, full_disk_message
from arena.storage.runner_lock import RunnerLock, runner_lock
from arena.tournament.executor import Executor, LocalProcessExecutor, PoolExecutor
from arena.tournament.formats import ScheduledGame
from arena.tournament.jobs import GameJob
from arena.tournament.live_feed import live_enabled
from arena.tournament.live_table import LiveTable
from arena.tournament.outage import DatabaseGone, OutageWait

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
T = TypeVar("T")


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
    outage: OutageWait | None = None,
) -> ProgressT:
    """Play *run* to its end under its tournament's runner lock (see the module); its
    final progress. *outage* says how long and how to wait out a database outage (by
    default :class:`~arena.tournament.outage.OutageWait`'s: 3 minutes, lines logged).

    :raises arena.storage.runner_lock.RunnerBusy: if another runner is playing it.
    :raises arena.tournament.executor.ExecutorError: if a worker fails (not a bot fault).
    :raises arena.tournament.outage.DatabaseGone: if the database stays unreachable
        past the retry limit.
    :raises arena.storage.outage.DatabaseFull: if a game cannot be stored on a full disk.
    :raises arena.storage.StorageError: for another database failure.
    """
    wait = outage or OutageWait()
    with runner_lock(engine, run.tournament_id, run.name) as lock:
        wait.probe = lock.check
        jobs = run.start()
        return await _play(
            engine, run, jobs, executor or LocalProcessExecutor(), on_progress, wait, lock
        )


async def _play(
    engine: Engine,
    run: RunFormat[ProgressT],
    jobs: list[GameJob] | None,
    executor: Executor,
    on_progress: Callable[[ProgressT], None] | None,
    wait: OutageWait,
    lock: RunnerLock,
) -> ProgressT:
    """:func:`play` once *run* has started under its lock."""
    feed = LiveTable(engine, run.tournament_id, run.table_of)
    feed.open()
    if isinstance(executor, PoolExecutor):
        executor.on_live = feed.update if live_enabled() else None
    played = _Played(engine, run, on_progress, wait, lock, feed)
    await played.set_status("running")
    played.report()
    try:
        while jobs is not None:
            if run.on_demand:
                await executor.run(jobs, played.store, played.arena_fault, more=played.more)
            else:
                await executor.run(jobs, played.store, played.arena_fault)
            jobs = await played.call(run.next_round, "the next round")
    except BaseException:
        _mark_interrupted(engine, run)
        raise
    finally:
        feed.close()
    await played.set_status("finished")
    return run.progress


class _Played(Generic[ProgressT]):
    """The executor's callbacks of one run: each goes to the database through the run's
    :class:`OutageWait` (see the module)."""

    def __init__(
        self,
        engine: Engine,
        run: RunFormat[ProgressT],
        on_progress: Callable[[ProgressT], None] | None,
        wait: OutageWait,
        lock: RunnerLock,
        feed: LiveTable,
    ) -> None:
        self.engine = engine
        self.run = run
        self.on_progress = on_progress
        self.wait = wait
        self.lock = lock
        self.feed = feed
        self.began = time.perf_counter()
        self.held: list[tuple[GameJob, dict[str, Any]]] = []
        """Finished games not stored yet, in the order they finished."""
        self.turn = asyncio.Lock()
        """The store's turn: one slot stores (and waits out an outage) at a time."""

    def report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.run.progress)

    async def store(self, job: GameJob, record: dict[str, Any]) -> None:
        """Hold *job*'s result, then store every held one in order (the executor's
        result callback: the slot starts no new game until this returns)."""
        self.held.append((job, record))
        async with self.turn:
            while self.held:
                first = self.held[0]
                try:
                    await self.call(
                        functools.partial(self._store_one, *first),
                        f"game {first[0].schedule_index}",
                    )
                except DatabaseGone as exc:
                    raise DatabaseGone(
                        f"{exc}; {len(self.held)} finished game(s) not stored are played "
                        "again by the next run"
                    ) from None
                self.held.pop(0)
                self.feed.end(first[0])
                progress = self.run.progress
                progress.done += 1
                progress.played_now += 1
                progress.seconds = time.perf_counter() - self.began
                self.report()

    async def call(self, operation: Callable[[], T], what: str) -> T:
        """*operation* (a database call) across an outage; a full disk stops the run.

        :raises DatabaseGone: past the retry limit.
        :raises DatabaseFull: for a full disk (waiting would free no space).
        """
        try:
            return await self.wait.call(operation, what)
        except StorageError as exc:
            if full_disk(exc):
                raise DatabaseFull(full_disk_message(self.engine, exc)) from None
            raise

    def _store_one(self, job: GameJob, record: dict[str, Any]) -> None:
        self.lock.check()
        try:
            self.run.store(job, record)
        except GameAlreadyStored:
            if not self.wait.in_outage:
                raise
            # Committed just before the connection died; the unique index kept it once.
            LOGGER.info("game %d was stored before the outage", job.schedule_index)

    async def arena_fault(self, job: GameJob, detail: str) -> None:
        """Count an arena fault (the executor plays the game again)."""
        self.feed.end(job)
        run = self.run
        count = await self.call(
            lambda: storage.count_arena_fault(self.engine, run.tournament_id), "an arena fault"
        )
        LOGGER.warning(
            "%s %s: arena fault %d in game %d, not rated, replayed: %s",
            run.kind,
            run.name,
            count,
            job.schedule_index,
            detail,
        )

    async def more(self) -> Sequence[GameJob]:
        """:meth:`RunFormat.more`, across an outage."""
        try:
            return await self.wait.call_async(self.run.more, "the next match")
        except StorageError as exc:
            if full_disk(exc):
                raise DatabaseFull(full_disk_message(self.engine, exc)) from None
            raise

    async def set_status(self, status: str) -> None:
        await self.call(
            lambda: storage.set_status(self.engine, self.run.tournament_id, status),
            f"status {status}",
        )


def _mark_interrupted(engine: Engine, run: RunFormat[Any]) -> None:
    """Set the status to ``interrupted`` if the database lets us; never raise: the error
    that stopped the run is the one to report (a dead database would only add a second,
    chained one). A status left at ``running`` is resumed by the next run all the same."""
    try:
        storage.set_status(engine, run.tournament_id, "interrupted")
    except StorageError as exc:
        LOGGER.info("%s %s: status not set to interrupted: %s", run.kind, run.name, exc)


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
