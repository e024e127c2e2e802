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

**What a set may know.** Besides the deals its processes played (:attr:`_Set.deals`), a
set counts as knowing every deal that any process living beside its own in this worker
may know (:attr:`_Set.heard`): the machine's load is a channel between live processes
(docs/security.md, section 9), so a process that heard about a deal could use it when it
plays that deal later. A set never plays a deal it knows either way, and every set that
knows a deal is stopped before another plays it (:meth:`GamePlayer._forget`).

**Pre-start** (:meth:`GamePlayer.play` told the job the slot will likely take next): while
a game is played, the next job's set is started (processes up, Hello said) when that job
needs a fresh set and no live process of the worker knows its deal, so its game need not
wait for start-up. In a round robin with reuse, the next seating plays the boards the
current set has played, so it is not pre-started (it starts once that set is gone, as
without pre-start); with fresh processes per game (:attr:`Reuse.NONE`) the next game is
usually another board, and its set is pre-started (every other game: the set after a
pre-started one has heard the deal it replays). A pre-started set that the very next job
does not use is stopped. A pre-start's failure is charged to no one: the set is dropped
and the job opens its own, where a failure counts as it would without pre-start.

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
from arena.tournament.jobs import Deal, GameJob, VersionChangedError, verify_versions

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
    deals: set[Deal] = field(default_factory=set)
    """Every deal this set's processes have played."""
    heard: set[Deal] = field(default_factory=set)
    """Deals known by processes that lived beside this set's in the worker (it may have
    learnt them through the machine's load): never played by this set either."""
    starting: asyncio.Task[None] | None = None
    """A pre-start in flight (its processes starting), awaited before the set plays."""

    @property
    def known(self) -> set[Deal]:
        """Every deal this set's processes may know."""
        return self.deals | self.heard


class GamePlayer:
    """Plays jobs one at a time, reusing bot processes as *reuse* allows, and pre-starting
    the next job's processes when it is told that job and that is safe."""

    def __init__(self, reuse: Reuse = Reuse.SEATING) -> None:
        self.reuse = reuse
        self._sets: OrderedDict[Hashable, _Set] = OrderedDict()
        self._next: tuple[Hashable, _Set] | None = None
        """The set pre-started for the next job, under that job's reuse key."""
        self._closing: dict[asyncio.Task[None], set[Deal]] = {}
        """Sets being stopped in the background (the reply does not wait for them), with
        the deals their processes may know."""

    async def play(self, job: GameJob, upcoming: GameJob | None = None) -> dict[str, Any]:
        """Play *job*; the worker's reply (``record``, ``arena_fault`` or ``error``; and
        ``warm``: it was played on a pre-started set, ``prestarted``: a set was pre-started
        for *upcoming* meanwhile, ``opened``: a new set was started for it). Never raises
        for a bot's or the arena's fault.

        *upcoming* is the job the slot will likely take next: its set is started during
        this game if it will need a fresh one and no live process here knows its deal.
        """
        index = job.schedule_index
        flags: dict[str, bool] = {}
        try:
            verify_versions(job)
            return {
                "schedule_index": index,
                "record": await self._play(job, upcoming, flags),
            } | flags
        except ArenaFault as exc:
            return {"schedule_index": index, "arena_fault": _one_line(exc)} | flags
        except VersionChangedError as exc:
            return {"schedule_index": index, "error": _one_line(exc)} | flags
        except Exception as exc:  # reported to the runner, which stops the tournament
            LOGGER.exception("game %d failed", index)
            return {"schedule_index": index, "error": f"{type(exc).__name__}: {exc}"} | flags

    async def aclose(self) -> None:
        """Stop every bot process the player holds (and wait for those being stopped)."""
        if self._next is not None:
            self._retire(self._next[1])
            self._next = None
        while self._sets:
            self._retire(self._sets.popitem()[1])
        await asyncio.gather(*self._closing)

    def _retire(self, kept: _Set) -> None:
        """Stop *kept* in the background: its processes are done with, and the next game
        need not wait for their exit and the sandbox's cleanup (unless it plays a deal
        they may know: :meth:`_forget`)."""
        task = asyncio.create_task(_close(kept))
        self._closing[task] = kept.known
        task.add_done_callback(lambda done: self._closing.pop(done, None))

    async def _forget(self, deal: Deal, keep: Hashable | None) -> None:
        """Stop, and wait until they are gone, every process that may know *deal* except
        the set under *keep*: a live process that has played a deal must not run beside a
        game of it, idle or not (it could signal what it saw through the machine's load,
        the danger :attr:`arena.tournament.executor.PoolExecutor.separate_deals` closes
        between workers)."""
        for key in [k for k, kept in self._sets.items() if k != keep and deal in kept.known]:
            self._retire(self._sets.pop(key))
        knowing = [task for task, deals in self._closing.items() if deal in deals]
        if knowing:
            await asyncio.gather(*knowing)

    async def _play(
        self, job: GameJob, upcoming: GameJob | None, flags: dict[str, bool]
    ) -> dict[str, Any]:
        key = self._key(job)
        kept = self._sets.pop(key, None) if key is not None else None
        if kept is not None and self.reuse is Reuse.SEATING and job.deal in kept.known:
            self._retire(kept)  # never the same deal twice in one process, nor one it heard
            kept = None
        ready = self._take_next(job)
        if ready is not None and kept is None:
            kept, flags["warm"] = ready, True
        elif ready is not None:
            self._retire(ready)
        if self.reuse is not Reuse.BOARD:
            await self._forget(job.deal, key)
        if kept is not None and kept.starting is not None:
            kept = await self._started(kept, job)
            flags["warm"] = kept is not None
        if kept is None:
            kept, flags["opened"] = await self._open(job), True
        if upcoming is not None and self._wants_prestart(job, kept, upcoming):
            self._next = self._prestart(upcoming)
            flags["prestarted"] = self._next is not None
        self._mingle(kept, job.deal)
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

    def _config(self, job: GameJob, *, fresh_per_game: bool) -> MatchConfig:
        """The settings of a set of processes opened for *job*."""
        return MatchConfig(
            rules=RuleSet.from_json(job.rules, name=job.ruleset),
            games=1,
            seed=job.seed,
            time_control=TimeControl.parse(job.time_control),
            log_cap=job.log_cap,
            fresh_process_per_game=fresh_per_game,
            first_dealers=(job.first_dealer,),
            match_id=job.game_id,
            shuffle=job.shuffle,
        )

    async def _open(self, job: GameJob) -> _Set:
        """A new set of processes for *job*'s seating (started by its first game)."""
        config = self._config(job, fresh_per_game=self.reuse is Reuse.NONE)
        match = Match([load_manifest(path) for path in job.bot_paths], config)
        try:
            await match.open()
        except BaseException:
            await match.close()
            raise
        return _Set(match, job.bot_paths)

    def _wants_prestart(self, job: GameJob, playing: _Set, upcoming: GameJob) -> bool:
        """Whether *upcoming* will need a fresh set that may be started now, beside the
        game of *job* on *playing*: no kept set will play it, and no live process here
        may know its deal (the new set would hear it, and could then never play it)."""
        if self.reuse is Reuse.BOARD or upcoming.deal == job.deal:
            return False
        live = set().union(playing.known, *(s.known for s in self._sets.values()))
        if upcoming.deal in live.union(*self._closing.values()):
            return False
        key = self._key(upcoming)
        return key is None or (key != self._key(job) and key not in self._sets)

    def _prestart(self, upcoming: GameJob) -> tuple[Hashable, _Set] | None:
        """A set for *upcoming*, its processes starting in the background (``None`` if it
        cannot even be made: the job will open its own set and meet the problem there)."""
        try:
            config = self._config(upcoming, fresh_per_game=False)  # started for its one game
            match = Match([load_manifest(path) for path in upcoming.bot_paths], config)
        except Exception as exc:
            LOGGER.warning("no pre-start for game %d: %s", upcoming.schedule_index, exc)
            return None
        ready = _Set(match, upcoming.bot_paths)
        ready.starting = asyncio.create_task(_start(match))
        return upcoming.reuse_key, ready

    def _take_next(self, job: GameJob) -> _Set | None:
        """The set pre-started for *job*, if it may play it; a pre-started set that the
        very next job does not use is stopped."""
        if self._next is None:
            return None
        key, ready = self._next
        self._next = None
        if key == job.reuse_key and job.deal not in ready.known:
            return ready
        self._retire(ready)
        return None

    async def _started(self, ready: _Set, job: GameJob) -> _Set | None:
        """*ready* once its processes are up, or ``None`` (and it is stopped) if they did
        not start: never a fault of the game, which then opens a set of its own."""
        starting, ready.starting = ready.starting, None
        try:
            if starting is not None:
                await starting
        except Exception as exc:  # the game's own start meets the problem, if it persists
            LOGGER.warning("pre-start for game %d failed: %s", job.schedule_index, exc)
            self._retire(ready)
            return None
        return ready

    def _mingle(self, playing: _Set, deal: Deal) -> None:
        """*playing* is about to play *deal*: every live set (kept, pre-started, playing)
        may from now on know what any live process may know, *deal* included."""
        live = [playing, *self._sets.values()]
        if self._next is not None:
            live.append(self._next[1])
        known = set().union(*(s.known for s in live), *self._closing.values(), {deal})
        for kept in live:
            kept.heard |= known

    def _evict(self) -> None:
        """Stop the least recently used sets beyond :data:`IDLE_SETS`."""
        while len(self._sets) > IDLE_SETS:
            self._retire(self._sets.popitem(last=False)[1])


async def _start(match: Match) -> None:
    """Open *match* and start its bots (each up and its Hello said), as its first game
    would; that game then finds them ready."""
    await match.open()
    await match.start_bots()


async def _close(kept: _Set) -> None:
    """Stop *kept*'s processes; a pre-start in flight is let finish first (never cancelled:
    a spawn cut short could leave a process no one stops)."""
    if kept.starting is not None:
        with contextlib.suppress(Exception):  # a failed pre-start is nobody's fault here
            await kept.starting
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
