"""Playing game jobs inside one worker, keeping bot processes alive between them safely.

Starting three bot processes is most of a short game's cost, so a worker (a local worker
process, a Ray actor) keeps them for the next game when that is fair. The rule that makes
it fair: **a bot process never meets the same deal twice.** A :class:`GamePlayer` keeps a
set of processes per *reuse key* (:attr:`GameJob.reuse_key`: the exact stored version in
each seat, the rules, the time control, the log cap and the shuffle). One table's seating
is one key, and its boards have different deals, so a set plays that seating across the
boards (and across a ladder's matches on that table); another seating of the same board,
which has the same deals, is another key and gets its own new processes with a fresh
private directory. Belt and braces, each set remembers the deals it has played, and a job
whose deal it has seen (two entries of one stored version at one table share a key) gets
a fresh set. A set in which anything went wrong (a bot's fault of any kind, an arena
fault) is stopped; the next game starts new processes. Only a few idle sets are kept; the
queue's affinity (:class:`arena.tournament.executor._Queue`) makes the next job of a slot
usually the current set's.

Each game is announced to the bots exactly as it would be with fresh processes (game 1 of
1, its own game id) and its record is the same; only a bot's own use of its memory (which
now spans the boards of its seating, never a deal it has seen) can differ.

A bot's processes are children of the thread that runs the player's event loop: their
parent-death signal fires when that thread ends, so run it in the main thread of the
worker process (as :mod:`arena.tournament.worker` does).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Final

from arena.game.rules import RuleSet
from arena.referee.config import GameSetup
from arena.referee.errors import ArenaFault
from arena.referee.manifest import load_manifest
from arena.referee.match import Match, MatchConfig
from arena.referee.timecontrol import TimeControl
from arena.tournament.jobs import GameJob, VersionChangedError, verify_versions

LOGGER = logging.getLogger(__name__)

IDLE_SETS: Final = 2
"""Process sets a player keeps at most (the current one and one more): the queue hands a
slot the current key's next board first, so more would mostly sit idle holding memory."""


class Reuse(enum.Enum):
    """Which games may share bot processes."""

    NONE = "none"
    """Fresh processes for every game."""
    SEATING = "seating"
    """One set per exact seating, never the same deal twice (the default, safe)."""
    BOARD = "board"
    """UNSAFE, for tests only: one set per table for all its seatings and boards, so a
    bot meets every deal once per seating. Kept to show the danger the safe scheme avoids
    (like ``separate_deals=False``); never selectable from the command line."""


def reuse_scheme(reuse: bool | Reuse) -> Reuse:
    """The scheme an executor's ``reuse`` setting names: ``True`` is the safe default
    (:attr:`Reuse.SEATING`), ``False`` is :attr:`Reuse.NONE` (``--no-reuse``)."""
    if isinstance(reuse, Reuse):
        return reuse
    return Reuse.SEATING if reuse else Reuse.NONE


@dataclass
class _Set:
    """One set of live bot processes: an open match between three stored versions."""

    match: Match
    paths: tuple[str, str, str]
    """Per seat of the match as opened, the stored version's directory."""
    deals: set[tuple[str, int]] = field(default_factory=set)
    """Every deal this set's processes have played."""


class GamePlayer:
    """Plays jobs one at a time, reusing bot processes as *reuse* allows."""

    def __init__(self, reuse: Reuse = Reuse.SEATING) -> None:
        self.reuse = reuse
        self._sets: OrderedDict[Hashable, _Set] = OrderedDict()
        self._closing: dict[asyncio.Task[None], set[tuple[str, int]]] = {}
        """Sets being stopped in the background (the reply does not wait for them), with
        the deals their processes know."""

    async def play(self, job: GameJob) -> dict[str, Any]:
        """Play *job*; the worker's reply (``record``, ``arena_fault`` or ``error``). Never
        raises for a bot's or the arena's fault."""
        index = job.schedule_index
        try:
            verify_versions(job)
            return {"schedule_index": index, "record": await self._play(job)}
        except ArenaFault as exc:
            return {"schedule_index": index, "arena_fault": _one_line(exc)}
        except VersionChangedError as exc:
            return {"schedule_index": index, "error": _one_line(exc)}
        except Exception as exc:  # reported to the runner, which stops the tournament
            LOGGER.exception("game %d failed", index)
            return {"schedule_index": index, "error": f"{type(exc).__name__}: {exc}"}

    async def aclose(self) -> None:
        """Stop every bot process the player holds (and wait for those being stopped)."""
        while self._sets:
            self._retire(self._sets.popitem()[1])
        await asyncio.gather(*self._closing)

    def _retire(self, kept: _Set) -> None:
        """Stop *kept* in the background: its processes are done with, and the next game
        need not wait for their exit and the sandbox's cleanup (unless it plays a deal
        they know: :meth:`_forget`)."""
        task = asyncio.create_task(_close(kept))
        self._closing[task] = kept.deals
        task.add_done_callback(lambda done: self._closing.pop(done, None))

    async def _forget(self, deal: tuple[str, int], keep: Hashable | None) -> None:
        """Stop, and wait until they are gone, every process that knows *deal* except the
        set under *keep*: a live process that has played a deal must not run beside a
        game of it, idle or not (it could signal what it saw through the machine's load,
        the danger :attr:`arena.tournament.executor.PoolExecutor.separate_deals` closes
        between workers)."""
        for key in [k for k, kept in self._sets.items() if k != keep and deal in kept.deals]:
            self._retire(self._sets.pop(key))
        knowing = [task for task, deals in self._closing.items() if deal in deals]
        if knowing:
            await asyncio.gather(*knowing)

    async def _play(self, job: GameJob) -> dict[str, Any]:
        key = self._key(job)
        kept = self._sets.pop(key, None) if key is not None else None
        if kept is not None and self.reuse is Reuse.SEATING and job.deal in kept.deals:
            self._retire(kept)  # never the same deal twice in one process
            kept = None
        if self.reuse is not Reuse.BOARD:
            await self._forget(job.deal, key)
        if kept is None:
            kept = await self._open(job)
        ok = False
        try:
            if self.reuse is Reuse.BOARD:
                kept.match.reseat(_order(kept.paths, job.bot_paths))
                kept.paths = job.bot_paths
            setup = GameSetup(
                seed=job.seed,
                first_dealer=job.first_dealer,
                game_id=job.game_id,
                match_id=job.game_id,
                number=1,
                games=1,
            )
            record = await kept.match.play(0, setup)
            kept.deals.add(job.deal)
            ok = not record.get("faults")
            return record
        finally:
            if ok and key is not None:
                self._sets[key] = kept
                self._evict()
            else:
                self._retire(kept)

    def _key(self, job: GameJob) -> Hashable | None:
        """The key the job's processes are kept under (``None``: not kept)."""
        if self.reuse is Reuse.SEATING:
            return job.reuse_key
        if self.reuse is Reuse.BOARD:
            seats, *settings = job.reuse_key
            return (tuple(sorted(seats, key=str)), *settings)
        return None

    async def _open(self, job: GameJob) -> _Set:
        """A new set of processes for *job*'s seating (started by its first game)."""
        rules = RuleSet.from_json(job.rules, name=job.ruleset)
        config = MatchConfig(
            rules=rules,
            games=1,
            seed=job.seed,
            time_control=TimeControl.parse(job.time_control),
            log_cap=job.log_cap,
            fresh_process_per_game=self.reuse is Reuse.NONE,
            first_dealers=(job.first_dealer,),
            match_id=job.game_id,
            shuffle=job.shuffle,
        )
        match = Match([load_manifest(path) for path in job.bot_paths], config)
        try:
            await match.open()
        except BaseException:
            await match.close()
            raise
        return _Set(match, job.bot_paths)

    def _evict(self) -> None:
        """Stop the least recently used sets beyond :data:`IDLE_SETS`."""
        while len(self._sets) > IDLE_SETS:
            self._retire(self._sets.popitem(last=False)[1])


async def _close(kept: _Set) -> None:
    with contextlib.suppress(Exception):
        await kept.match.close()


def _order(current: tuple[str, str, str], wanted: tuple[str, str, str]) -> list[int]:
    """For each seat of *wanted*, the seat of *current* holding that version."""
    free = list(range(3))
    order = []
    for path in wanted:
        seat = next(i for i in free if current[i] == path)
        free.remove(seat)
        order.append(seat)
    return order


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
