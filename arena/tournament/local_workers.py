"""The pool on this machine: each slot a worker process (``python -m arena.tournament.worker``).

A worker reads one job as a JSON line on its stdin and writes one reply line on its stdout
(:mod:`arena.tournament.worker`); it runs under a parent-death signal, so a killed runner
takes its workers, and their bots, with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any, Final

from arena.referee.process import die_with_parent_prefix
from arena.tournament.executor_api import MAX_ARENA_FAULTS, ExecutorError, Slot, WorkerLost
from arena.tournament.jobs import GameJob
from arena.tournament.live_feed import LiveCallback
from arena.tournament.player import Reuse, reuse_scheme
from arena.tournament.pool import PoolExecutor
from arena.tournament.replies import WorkerReply, parse_reply

WORKER_STOP_S: Final = 10.0
"""How long a local worker may take to stop its bots and exit once its stdin closes."""


class LocalProcessExecutor(PoolExecutor):
    """A pool of ``parallel`` worker processes (``python -m arena.tournament.worker``).

    By default (*reuse* ``True``) a worker keeps its bot processes for every later game
    whose deal none of them may know (:attr:`Reuse.SAFE`, :mod:`arena.tournament.player`):
    a seating's boards, and other tables' boards in the same generation; ``False`` starts fresh
    ones for every game (``arena tournament run --no-reuse``). With *prestart* a worker
    starts the next job's bot processes during the current game when that job needs fresh
    ones and no live process of the worker knows its deal (``--prestart``).
    """

    def __init__(
        self,
        parallel: int | None = None,
        *,
        separate_deals: bool = True,
        max_arena_faults: int = MAX_ARENA_FAULTS,
        reuse: bool | Reuse = True,
        prestart: bool = False,
    ) -> None:
        super().__init__(
            parallel,
            separate_deals=separate_deals,
            max_arena_faults=max_arena_faults,
            prestart=prestart,
        )
        self.reuse = reuse_scheme(reuse)
        """Which games share bot processes in a worker (tests alone pass the unsafe
        :attr:`Reuse.ANY_DEAL`, to show its danger)."""

    async def open_slot(self) -> Slot:
        """Start a worker process under a parent-death signal (a killed runner takes its
        workers, and their bots, with it)."""
        argv = [*die_with_parent_prefix(), sys.executable, "-m", "arena.tournament.worker"]
        argv += ["--reuse", self.reuse.value]
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                start_new_session=False,
                limit=64 * 1024 * 1024,  # a record with bot logs can be a few MB on one line
            )
        except OSError as exc:
            raise ExecutorError(f"cannot start a worker process: {exc}") from None
        return _WorkerProcess(process, self.on_live)


class _WorkerProcess:
    """A local worker process as a :class:`PrestartSlot`: one JSON line each way per job,
    and before the reply, with *on_live*, the game's live lines (:mod:`arena.tournament.worker`)."""

    def __init__(
        self, process: asyncio.subprocess.Process, on_live: LiveCallback | None = None
    ) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.stdin = process.stdin
        self.stdout = process.stdout
        self.on_live = on_live

    async def play(self, job: GameJob) -> WorkerReply:
        return await self._ask({"job": job.to_json()}, job)

    async def play_and_prestart(self, job: GameJob, upcoming: GameJob) -> WorkerReply:
        return await self._ask({"job": job.to_json(), "upcoming": upcoming.to_json()}, job)

    async def _ask(self, message: dict[str, Any], job: GameJob) -> WorkerReply:
        """Send *message* (one line, :mod:`arena.tournament.worker`) and read the reply.

        :raises WorkerLost: if the worker died.
        :raises ExecutorError: if its reply is not one (the arena's bug).
        """
        if self.on_live is not None:
            message["live"] = True
        try:
            self.stdin.write((json.dumps(message) + "\n").encode())
            await self.stdin.drain()
            while True:
                line = await self.stdout.readline()
                if not line:
                    break
                try:
                    data = json.loads(line)
                except ValueError as exc:
                    raise ExecutorError(f"worker {self.process.pid}: {exc}") from None
                if not (isinstance(data, dict) and "live" in data):
                    break
                await self._live(job, data)
        except (ConnectionError, BrokenPipeError) as exc:
            raise WorkerLost(f"worker {self.process.pid} is gone ({exc})") from None
        if not line:
            raise WorkerLost(f"worker {self.process.pid} died playing game {job.schedule_index}")
        try:
            return parse_reply(data)
        except ValueError as exc:  # not a reply (MalformedReply)
            raise ExecutorError(f"worker {self.process.pid}: {exc}") from None

    async def _live(self, job: GameJob, data: dict[str, Any]) -> None:
        """Pass one live line of *job* to the runner (a stray one, of another game or not
        an object, is dropped: the feed is best effort, the game goes on)."""
        view, at = data["live"], data.get("at")
        if self.on_live is None or data.get("schedule_index") != job.schedule_index:
            return
        if isinstance(view, dict) and isinstance(at, int | float):
            outcome = self.on_live(job, view, float(at))
            if outcome is not None:
                await outcome

    async def close(self) -> None:
        if self.process.returncode is not None:
            return
        with contextlib.suppress(OSError):
            self.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), WORKER_STOP_S)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
