"""Executors: where scheduled games are played. The one import for code that runs games.

An :class:`Executor` plays the jobs the runner hands it, in any order and in parallel but
never two games of one deal at once, and reports each finished game once; a game the arena
itself failed is played again (:mod:`arena.tournament.executor_api`). The executors:

* :class:`LocalProcessExecutor`: a pool of worker processes on this machine
  (:mod:`arena.tournament.local_workers`);
* :class:`arena.tournament.ray_executor.RayExecutor`: the same pool over Ray actors on a
  cluster's nodes (docs/scaling.md);
* :class:`arena.tournament.inprocess.InProcessExecutor`: games played one at a time in this
  process by Python policies, no bot processes (tests, an author's quick local runs).

The pools share :class:`PoolExecutor` (:mod:`arena.tournament.pool`): one task per slot, arena
faults, a lost slot replaced. Which job each slot plays next is decided by one pure
scheduler for all of them (:mod:`arena.tournament.scheduling`): deals separated, a slot's
affinity for the bot processes it keeps, the work balanced, more jobs asked for on demand.
"""

from __future__ import annotations

from arena.tournament.executor_api import (
    MAX_ARENA_FAULTS,
    ArenaFaultCallback,
    Executor,
    ExecutorError,
    MoreJobs,
    PrestartSlot,
    ResultCallback,
    Slot,
    WorkerLost,
)
from arena.tournament.local_workers import WORKER_STOP_S, LocalProcessExecutor
from arena.tournament.pool import PoolExecutor
from arena.tournament.replies import WorkerReply
from arena.tournament.scheduling import Generation

_Generation = Generation
"""The scheduler's model of a slot's live processes, under its former name here (the pool's
tests patch it to show what affinity saves)."""

__all__ = [
    "MAX_ARENA_FAULTS",
    "WORKER_STOP_S",
    "ArenaFaultCallback",
    "Executor",
    "ExecutorError",
    "Generation",
    "LocalProcessExecutor",
    "MoreJobs",
    "PoolExecutor",
    "PrestartSlot",
    "ResultCallback",
    "Slot",
    "WorkerLost",
    "WorkerReply",
]
