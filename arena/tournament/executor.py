"""Executors: where scheduled games are played.

The runner hands an executor a list of jobs and a callback; the executor plays them (in any
order, in parallel) and calls back once per finished game. :class:`LocalProcessExecutor`
runs them on a pool of worker processes on this machine; a distributed executor would
implement the same interface with remote workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from arena.referee.process import die_with_parent_prefix
from arena.tournament.jobs import GameJob

ResultCallback = Callable[[GameJob, dict[str, Any]], Awaitable[None] | None]


class ExecutorError(RuntimeError):
    """A worker failed in a way that is not a bot's fault (the runner stops; resume later)."""


class Executor(Protocol):
    """Plays jobs and reports each finished game."""

    async def run(self, jobs: Sequence[GameJob], on_result: ResultCallback) -> None:
        """Play every job; call *on_result* once per finished game."""
        ...


class LocalProcessExecutor:
    """A pool of ``parallel`` worker processes (``python -m arena.tournament.worker``)."""

    def __init__(self, parallel: int | None = None) -> None:
        self.parallel = max(1, parallel or os.cpu_count() or 1)

    async def run(self, jobs: Sequence[GameJob], on_result: ResultCallback) -> None:
        queue: asyncio.Queue[GameJob] = asyncio.Queue()
        for job in jobs:
            queue.put_nowait(job)
        workers = min(self.parallel, len(jobs))
        if workers == 0:
            return
        tasks = [asyncio.create_task(self._worker(queue, on_result)) for _ in range(workers)]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, ExecutorError):
                    await task

    async def _worker(self, queue: asyncio.Queue[GameJob], on_result: ResultCallback) -> None:
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
            while not queue.empty():
                job = queue.get_nowait()
                process.stdin.write((json.dumps(job.to_json()) + "\n").encode())
                await process.stdin.drain()
                line = await process.stdout.readline()
                if not line:
                    raise ExecutorError(
                        f"worker {process.pid} died playing game {job.schedule_index}"
                    )
                reply = json.loads(line)
                if "error" in reply:
                    raise ExecutorError(f"game {job.schedule_index}: {reply['error']}")
                outcome = on_result(job, reply["record"])
                if outcome is not None:
                    await outcome
        finally:
            if process.returncode is None:
                process.stdin.close()
                try:
                    await asyncio.wait_for(process.wait(), 10)
                except TimeoutError:
                    process.kill()
                    await process.wait()
