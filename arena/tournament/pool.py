"""The pool every executor of slots shares: one task per slot around one scheduler.

:class:`PoolExecutor` keeps every executor's promises in one place: the jobs handed out by
:class:`arena.tournament.scheduling.Scheduler` (deals separated, affinity of a slot for the
bot processes it keeps, the work balanced, more jobs on demand), one task per slot,
arena-fault accounting, replacing a lost slot and, with ``prestart``, telling a slot which
job it will likely take next (so it can start that job's bot processes during the current
game: :mod:`arena.tournament.player`). A subclass only says how a slot is opened: a local
worker process (:mod:`arena.tournament.local_workers`), a Ray actor
(:mod:`arena.tournament.ray_executor`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence

from arena.tournament.executor_api import (
    MAX_ARENA_FAULTS,
    ArenaFaultCallback,
    ExecutorError,
    MoreJobs,
    PrestartSlot,
    ResultCallback,
    Slot,
    WorkerLost,
)
from arena.tournament.jobs import GameJob
from arena.tournament.live_feed import LiveCallback
from arena.tournament.replies import WorkerReply
from arena.tournament.scheduling import Scheduler, Verdict

LOGGER = logging.getLogger(__name__)


class _Queue(Scheduler):
    """The scheduler for slots that run as asyncio tasks: a slot that may start nothing
    waits here until a game ends, a slot is released or jobs arrive; the slot the scheduler
    sends to the supply (:data:`Verdict.ASK`) awaits *more* outside the lock, so the others
    go on. Every choice is the scheduler's."""

    def __init__(
        self, jobs: Sequence[GameJob], separate_deals: bool, more: MoreJobs | None = None
    ) -> None:
        super().__init__(jobs, separate_deals, supply=more is not None)
        self.more = more
        self.changed = asyncio.Condition()

    _startable = Scheduler.choose
    """The choice under its former name (the pool's tests ask it whether a slot would wait)."""

    async def take(
        self, prefer: Hashable | None = None, holder: object = None, then: Hashable | None = None
    ) -> GameJob | None:
        """The next job to run (:meth:`Scheduler.hand_out`), or ``None`` when nothing is
        left to take."""
        while True:
            async with self.changed:
                while (given := self.hand_out(holder, prefer, then)) is Verdict.WAIT:
                    await self.changed.wait()
            if isinstance(given, GameJob):
                return given
            if given is Verdict.FINISHED or self.more is None:
                return None
            jobs: Sequence[GameJob] = ()
            try:
                jobs = await self.more()
            finally:
                async with self.changed:
                    self.supplied(jobs)
                    self.changed.notify_all()

    async def release(self, holder: object) -> None:
        """:meth:`Scheduler.released`, waking the slots that wait."""
        async with self.changed:
            self.released(holder)
            self.changed.notify_all()

    async def done(self, job: GameJob, *, again: bool = False, hands: int = 0) -> None:
        """:meth:`Scheduler.finished`, waking the slots that wait."""
        async with self.changed:
            self.finished(job, again=again, hands=hands)
            self.changed.notify_all()


class PoolExecutor(ABC):
    """An executor over ``parallel`` slots that each play one job at a time.

    Subclasses open the slots (:meth:`open_slot`); everything else is here, so that every
    executor keeps the same promises: deals separated, each finished game reported once,
    arena faults and lost workers replayed a bounded number of times.
    """

    def __init__(
        self,
        parallel: int | None = None,
        *,
        separate_deals: bool = True,
        max_arena_faults: int = MAX_ARENA_FAULTS,
        prestart: bool = False,
    ) -> None:
        self.parallel = max(1, parallel or os.cpu_count() or 1)
        self.separate_deals = separate_deals
        """Never run two jobs with one deal at once; ``False`` only to show the danger."""
        self.max_arena_faults = max_arena_faults
        self.events: list[tuple[str, int]] = []
        """``("start" | "end", schedule_index)`` in the order they happened (tests and
        diagnostics: it shows which games overlapped)."""
        self.prestart = prestart
        """Tell each slot that can pre-start (:class:`PrestartSlot`) the job it will likely
        take next, so it starts that job's bot processes during the current game."""
        self.prestarts = {"started": 0, "used": 0}
        """Sets pre-started, and games played on one (diagnostics and the benchmark)."""
        self.started = 0
        """Bot processes started by the games themselves (not pre-started): what process
        reuse saves, counted from the slots' replies."""
        self.on_live: LiveCallback | None = None
        """Told the public view of each game in play, throttled (the live feed,
        :mod:`arena.tournament.live_feed`); set by the run loop before :meth:`run`. Slots
        that cannot feed it (a Ray actor) ignore it."""

    @abstractmethod
    async def open_slot(self) -> Slot:
        """A new slot, ready to play.

        :raises ExecutorError: if no slot can be opened.
        """

    async def run(
        self,
        jobs: Sequence[GameJob],
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None = None,
        more: MoreJobs | None = None,
    ) -> None:
        """See :meth:`arena.tournament.executor_api.Executor.run`."""
        queue = _Queue(jobs, self.separate_deals, more)
        workers = self.parallel if more is not None else min(self.parallel, len(jobs))
        if workers == 0:
            return
        faults: dict[int, int] = {}
        tasks = [
            asyncio.create_task(self._drive(queue, on_result, on_arena_fault, faults))
            for _ in range(workers)
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            # gather() leaves the others running when one raises: cancel and await them all,
            # so that every slot (and every bot process behind it) is closed before we return.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _drive(
        self,
        queue: _Queue,
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None,
        faults: dict[int, int],
    ) -> None:
        """One slot's loop: take a job, play it, report it; a lost slot is replaced."""
        slot: Slot | None = None
        prefer: Hashable | None = None
        then: Hashable | None = None
        """The reuse key of the job the slot looked ahead at (it may have pre-started it)."""
        holder = object()
        """This slot's identity in the queue; a replaced slot is a new one."""
        try:
            while (job := await queue.take(prefer, holder, then)) is not None:
                again, hands = False, 0
                try:
                    if slot is None:
                        slot = await self.open_slot()
                    self.events.append(("start", job.schedule_index))
                    try:
                        reply, then = await self._play(slot, job, queue, holder)
                    except WorkerLost as exc:
                        self.events.append(("end", job.schedule_index))
                        lost, slot, prefer, then = slot, None, None, None
                        with contextlib.suppress(Exception):
                            await lost.close()
                        await queue.release(holder)
                        holder = object()
                        reply = {"schedule_index": job.schedule_index, "arena_fault": str(exc)}
                    else:
                        self.events.append(("end", job.schedule_index))
                        prefer = job.reuse_key
                    again = await self._report(job, reply, on_result, on_arena_fault, faults)
                    hands = _hands(reply)
                finally:
                    await queue.done(job, again=again, hands=hands)
        finally:
            if slot is not None:
                await _close(slot)
            await queue.release(holder)

    async def _play(
        self, slot: Slot, job: GameJob, queue: _Queue, holder: object
    ) -> tuple[WorkerReply, Hashable | None]:
        """*slot*'s reply for *job*, and the reuse key of the job it was told to pre-start.

        :raises WorkerLost: if the slot's worker died.
        """
        ahead = slot if self.prestart and isinstance(slot, PrestartSlot) else None
        upcoming = None if ahead is None else queue.peek(job, holder)
        if ahead is not None and upcoming is not None:
            reply = await ahead.play_and_prestart(job, upcoming)
        else:
            reply = await slot.play(job)
        self.prestarts["started"] += bool(reply.get("prestarted"))
        self.prestarts["used"] += bool(reply.get("warm"))
        self.started += int(reply.get("started", 0))
        return reply, None if upcoming is None else upcoming.reuse_key

    async def _report(
        self,
        job: GameJob,
        reply: WorkerReply,
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None,
        faults: dict[int, int],
    ) -> bool:
        """Hand *reply* to the callbacks; whether *job* must be played again.

        :raises ExecutorError: for an error reply or one arena fault too many.
        """
        if "error" in reply:
            raise ExecutorError(f"game {job.schedule_index}: {reply['error']}")
        if "arena_fault" in reply:
            detail = str(reply["arena_fault"])
            again = self._arena_fault(job, detail, faults)
            if on_arena_fault is not None:
                outcome = on_arena_fault(job, detail)
                if outcome is not None:
                    await outcome
            if not again:
                raise ExecutorError(
                    f"game {job.schedule_index}: the arena failed it "
                    f"{self.max_arena_faults} times in a row ({detail}); fix that and run again"
                )
            return True
        outcome = on_result(job, reply["record"])
        if outcome is not None:
            await outcome
        return False

    def _arena_fault(self, job: GameJob, detail: str, faults: dict[int, int]) -> bool:
        """Note one arena fault of *job*; whether it may be played again."""
        faults[job.schedule_index] = faults.get(job.schedule_index, 0) + 1
        LOGGER.warning("arena fault in game %d (replayed): %s", job.schedule_index, detail)
        return faults[job.schedule_index] < self.max_arena_faults


def _hands(reply: WorkerReply) -> int:
    """The hands a finished game's record says it played (0 if it says nothing usable)."""
    record = reply.get("record")
    result = record.get("result") if isinstance(record, dict) else None
    hands = result.get("hands_played") if isinstance(result, dict) else None
    return hands if isinstance(hands, int) and hands > 0 else 0


async def _close(slot: Slot) -> None:
    """Close *slot* even when the run is being cancelled meanwhile (the cancellation goes on
    once the slot, and every bot process behind it, is stopped)."""
    closing = asyncio.ensure_future(slot.close())
    try:
        await asyncio.shield(closing)
    except asyncio.CancelledError:
        await closing
        raise
