"""What every executor promises, and what a pool of slots plays on.

The runner hands an :class:`Executor` a list of jobs and a callback; the executor plays them
(in any order, in parallel, but never two games of one deal at once) and calls back once per
finished game. A game the arena itself failed is played again, never reported as finished.
A pool (:class:`arena.tournament.pool.PoolExecutor`) plays on :class:`Slot`\\ s: a local
worker process, a Ray actor. Everything here is imported again by
:mod:`arena.tournament.executor`, the one import for code that runs games.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from arena.tournament.jobs import GameJob
from arena.tournament.replies import WorkerReply

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


class WorkerLost(RuntimeError):
    """The slot's worker (a local worker process, a Ray actor on a lost node) is gone while
    playing a job: the arena's fault, never a bot's. The job goes back to the queue, first in
    line, counted like an arena fault (:data:`MAX_ARENA_FAULTS` in a row then
    :class:`ExecutorError`), and the executor opens a new slot in its place."""


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


class Slot(Protocol):
    """One place where jobs are played one at a time (a worker process, a Ray actor)."""

    async def play(self, job: GameJob) -> WorkerReply:
        """The worker's reply for one job (:class:`WorkerReply`: its record, an arena
        fault or an error), checked by :func:`arena.tournament.replies.parse_reply` if it
        came from another process.

        :raises WorkerLost: if the worker died.
        """
        ...

    async def close(self) -> None:
        """Stop the worker and every bot process it holds."""
        ...


@runtime_checkable
class PrestartSlot(Slot, Protocol):
    """A slot that can start the bot processes of the job it will likely take next while it
    plays the current one (a local worker process; :meth:`GamePlayer.play`)."""

    async def play_and_prestart(self, job: GameJob, upcoming: GameJob) -> WorkerReply:
        """Play *job* as :meth:`Slot.play` does; meanwhile pre-start *upcoming*'s set if it
        will need a fresh one and that is safe. The reply may say ``"prestarted": true``
        (a set was pre-started) and ``"warm": true`` (*job* was played on one).

        :raises WorkerLost: if the worker died.
        """
        ...
