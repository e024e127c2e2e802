"""Executors: where scheduled games are played.

The runner hands an executor a list of jobs and a callback; the executor plays them (in any
order, in parallel, but never two games of one deal at once) and calls back once per
finished game. A game the arena itself failed is played again, never reported as finished. :class:`LocalProcessExecutor`
runs them on a pool of worker processes on this machine; a distributed executor would
implement the same interface with remote workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol

from arena.referee.process import die_with_parent_prefix
from arena.tournament.jobs import GameJob

LOGGER = logging.getLogger(__name__)

ResultCallback = Callable[[GameJob, dict[str, Any]], Awaitable[None] | None]
ArenaFaultCallback = Callable[[GameJob, str], Awaitable[None] | None]
MoreJobs = Callable[[], Awaitable[Sequence[GameJob]]]
"""Asked for more jobs whenever a worker finds none it may start (a ladder chooses its next
match then, from the freshest ratings); an empty answer means no more will come. It may
take its time (a ladder that follows waits for new entrants): the other workers go on."""

MAX_ARENA_FAULTS: Final = 3
"""Times in a row one game may be failed by the arena before the run stops (the arena is
then broken, not unlucky: a full disk, no descriptors, a sandbox that cannot start)."""


class ExecutorError(RuntimeError):
    """A worker failed in a way that is not a bot's fault (the runner stops; resume later)."""


class Executor(Protocol):
    """Plays jobs and reports each finished game."""

    async def run(
        self,
        jobs: Sequence[GameJob],
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None = None,
        more: MoreJobs | None = None,
    ) -> None:
        """Play every job; call *on_result* once per finished game, and *on_arena_fault*
        each time the arena itself failed a game (that game is played again, up to
        :data:`MAX_ARENA_FAULTS` times in a row, then :class:`ExecutorError`). With *more*,
        play the jobs it gives too, until it gives none.

        Two jobs with the same deal (:attr:`GameJob.deal`) never run at the same time: a
        bot that reads the timing or load of its copy at another seating of the same board
        could otherwise learn the cards (docs/security.md).
        """
        ...


class _Queue:
    """Jobs waiting to run, handed out so that no two running jobs share a deal.

    A worker takes the first waiting job whose deal is not running (so the schedule order
    is kept where it can be and both workers stay busy while other boards wait), and waits
    when every waiting job's deal is running.
    """

    def __init__(
        self, jobs: Sequence[GameJob], separate_deals: bool, more: MoreJobs | None = None
    ) -> None:
        self.waiting = list(jobs)
        self.running: dict[tuple[str, int], int] = {}
        self.separate_deals = separate_deals
        self.changed = asyncio.Condition()
        self.more = more
        """Where more jobs come from (``None`` once it has given none)."""
        self.asking = False
        """A worker is asking :attr:`more` (one at a time, outside the lock)."""

    async def take(self) -> GameJob | None:
        """The next job to run, or ``None`` when nothing is left to take."""
        while True:
            async with self.changed:
                while True:
                    for i, job in enumerate(self.waiting):
                        if not self.separate_deals or job.deal not in self.running:
                            del self.waiting[i]
                            self.running[job.deal] = self.running.get(job.deal, 0) + 1
                            return job
                    if self.more is not None and not self.asking:
                        self.asking = True
                        more = self.more
                        break
                    if not self.waiting and not self.asking:
                        return None
                    await self.changed.wait()
            jobs: Sequence[GameJob] = ()
            try:
                jobs = await more()
            finally:
                async with self.changed:
                    self.asking = False
                    self.waiting.extend(jobs)
                    if not jobs:
                        self.more = None
                    self.changed.notify_all()

    async def done(self, job: GameJob, *, again: bool = False) -> None:
        """*job* stopped running; with *again* it waits to run again, first in line."""
        async with self.changed:
            count = self.running.pop(job.deal) - 1
            if count:
                self.running[job.deal] = count
            if again:
                self.waiting.insert(0, job)
            self.changed.notify_all()


class LocalProcessExecutor:
    """A pool of ``parallel`` worker processes (``python -m arena.tournament.worker``)."""

    def __init__(
        self,
        parallel: int | None = None,
        *,
        separate_deals: bool = True,
        max_arena_faults: int = MAX_ARENA_FAULTS,
    ) -> None:
        self.parallel = max(1, parallel or os.cpu_count() or 1)
        self.separate_deals = separate_deals
        """Never run two jobs with one deal at once; ``False`` only to show the danger."""
        self.max_arena_faults = max_arena_faults
        self.events: list[tuple[str, int]] = []
        """``("start" | "end", schedule_index)`` in the order they happened (tests and
        diagnostics: it shows which games overlapped)."""

    async def run(
        self,
        jobs: Sequence[GameJob],
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None = None,
        more: MoreJobs | None = None,
    ) -> None:
        queue = _Queue(jobs, self.separate_deals, more)
        workers = self.parallel if more is not None else min(self.parallel, len(jobs))
        if workers == 0:
            return
        faults: dict[int, int] = {}
        tasks = [
            asyncio.create_task(self._worker(queue, on_result, on_arena_fault, faults))
            for _ in range(workers)
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, ExecutorError):
                    await task

    async def _worker(
        self,
        queue: _Queue,
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None,
        faults: dict[int, int],
    ) -> None:
        process = await asyncio.create_subprocess_exec(
            *die_with_parent_prefix(),
            sys.executable,
            "-m",
            "arena.tournament.worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            start_new_session=False,
            limit=64 * 1024 * 1024,  # a record with bot logs can be a few MB on one line
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            while (job := await queue.take()) is not None:
                self.events.append(("start", job.schedule_index))
                again = False
                try:
                    process.stdin.write((json.dumps(job.to_json()) + "\n").encode())
                    await process.stdin.drain()
                    line = await process.stdout.readline()
                    self.events.append(("end", job.schedule_index))
                    if not line:
                        raise ExecutorError(
                            f"worker {process.pid} died playing game {job.schedule_index}"
                        )
                    reply = json.loads(line)
                    if "error" in reply:
                        raise ExecutorError(f"game {job.schedule_index}: {reply['error']}")
                    if "arena_fault" in reply:
                        again = await self._arena_fault(job, reply["arena_fault"], faults)
                        if on_arena_fault is not None:
                            outcome = on_arena_fault(job, reply["arena_fault"])
                            if outcome is not None:
                                await outcome
                        if not again:
                            raise ExecutorError(
                                f"game {job.schedule_index}: the arena failed it "
                                f"{self.max_arena_faults} times in a row "
                                f"({reply['arena_fault']}); fix that and run again"
                            )
                        continue
                    outcome = on_result(job, reply["record"])
                    if outcome is not None:
                        await outcome
                finally:
                    await queue.done(job, again=again)
        finally:
            if process.returncode is None:
                process.stdin.close()
                try:
                    await asyncio.wait_for(process.wait(), 10)
                except TimeoutError:
                    process.kill()
                    await process.wait()

    async def _arena_fault(self, job: GameJob, detail: str, faults: dict[int, int]) -> bool:
        """Note one arena fault of *job*; whether it may be played again."""
        faults[job.schedule_index] = faults.get(job.schedule_index, 0) + 1
        LOGGER.warning("arena fault in game %d (replayed): %s", job.schedule_index, detail)
        return faults[job.schedule_index] < self.max_arena_faults
