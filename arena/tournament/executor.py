"""Executors: where scheduled games are played.

The runner hands an executor a list of jobs and a callback; the executor plays them (in any
order, in parallel, but never two games of one deal at once) and calls back once per
finished game. A game the arena itself failed is played again, never reported as finished.

:class:`PoolExecutor` is the part every executor shares: the queue (deal separation, more
jobs on demand, affinity of a slot for the seating it last played), one task per slot,
arena-fault accounting, replacing a lost slot and, with ``prestart``, telling a slot which
job it will likely take next (so it can start that job's bot processes during the current
game: :mod:`arena.tournament.player`). A subclass only says how a slot is opened:
:class:`LocalProcessExecutor` runs each slot as a worker process on this machine
(``python -m arena.tournament.worker``); a distributed executor opens remote workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import sys
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from arena.referee.process import die_with_parent_prefix
from arena.tournament.jobs import Deal, GameJob
from arena.tournament.player import Reuse, reuse_scheme

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

WORKER_STOP_S: Final = 10.0
"""How long a local worker may take to stop its bots and exit once its stdin closes."""


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

    async def play(self, job: GameJob) -> dict[str, Any]:
        """The worker's reply for one job: ``{"schedule_index": i, "record": {...}}``,
        ``{"schedule_index": i, "arena_fault": "..."}`` or ``{"schedule_index": i,
        "error": "..."}``.

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

    async def play_and_prestart(self, job: GameJob, upcoming: GameJob) -> dict[str, Any]:
        """Play *job* as :meth:`Slot.play` does; meanwhile pre-start *upcoming*'s set if it
        will need a fresh one and that is safe. The reply may say ``"prestarted": true``
        (a set was pre-started) and ``"warm": true`` (*job* was played on one).

        :raises WorkerLost: if the worker died.
        """
        ...


@dataclasses.dataclass
class _Generation:
    """What a worker's live bot processes may have played, as the queue sees it: their
    settings, the deals handed to the worker since they started, and their bot versions
    (:class:`arena.tournament.player.GamePlayer` keeps its processes the same way)."""

    settings: Hashable
    deals: set[Deal] = dataclasses.field(default_factory=set)
    bots: set[str] = dataclasses.field(default_factory=set)
    """The stored versions (their directories) of the live processes."""
    overheard: set[Deal] = dataclasses.field(default_factory=set)
    """Deals another worker played while these processes lived, freed when that worker
    was lost: these processes may have heard them (the machine's load), so never play
    them."""

    def may_play(self, job: GameJob) -> bool:
        """Whether these processes may play *job* (its deal is new to them)."""
        deal = job.deal
        known = deal in self.deals or deal in self.overheard
        return not known and job.settings_key == self.settings

    def shared(self, job: GameJob) -> int:
        """How many of *job*'s seats a live process could take."""
        bots, (a, b, c) = self.bots, job.bot_paths
        return (a in bots) + (b in bots) + (c in bots)


@dataclasses.dataclass(frozen=True)
class _Work:
    """The waiting work at one hand-out, in hands (:meth:`_Queue._work`)."""

    owed: dict[object, float]
    unowned: float
    largest: float


class _Queue:
    """Jobs waiting to run, handed out so that no two running jobs share a deal.

    A worker takes the first waiting job whose deal is not running (so the schedule order
    is kept where it can be and both workers stay busy while other boards wait), and waits
    when every waiting job's deal is running. A worker that names itself (*holder*) gets,
    first, a job its live bot processes may play on (:attr:`generations`, kept as
    :class:`arena.tournament.player.GamePlayer` keeps them): the next board of the seating
    it played last (*prefer*), else the job whose deal is new to them with the most of its
    bots among theirs (another table of the same bots). Only when there is none does its
    generation end: then a job with the key it looked ahead at (*then*), else the first
    whose key no other worker holds or expects, else the first that may start. So one
    generation plays one seating of every table the worker owns, with one process per bot.
    A deal a worker has played stays that worker's until it is gone (:attr:`owners`): its
    kept processes may know the deal. A worker may look ahead (:meth:`peek`) at the job it
    would take next, to pre-start its processes; that job's key then counts as the
    worker's too.

    **Claims stay balanced, in the end.** Since a deal stays with the worker that first
    played it, the deals are split between the workers as they are first taken, and a
    worker ends idle once its own are played. Left greedy, the worker that got going first
    (the other still starting its bots) claimed every board its seating's processes reached:
    5 of 6 boards of a round robin, its partner playing 24 of 144 games and then waiting.
    So a worker claims a new deal only while every other worker could still catch up with
    what it would then owe, from the deals nobody owns yet (:meth:`_may_claim`): freely
    while many are left, by a strict balance of the work owed at the end. Work is counted
    in hands, each deal's from its first finished game (its seatings deal the same cards,
    so their games are about as long; one deal's games can take twice another's). Every worker
    that owes games has one it may start (its deals run nowhere else), so nobody waits for
    this. The next board of the seating a worker holds may be claimed up to one deal's
    games beyond that, so its processes play on. Claims held to a strict balance from the
    start (the rule before) finish later when workers differ in speed
    (``test_claims_are_free_while_the_others_can_still_catch_up``).
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
        self.holding: dict[object, Hashable] = {}
        """Per worker, the reuse key of the job it took last (its bot processes' key)."""
        self.expecting: dict[object, Hashable] = {}
        """Per worker, the reuse key of the job it looked ahead at (:meth:`peek`): it may
        have pre-started processes for it."""
        self.owners: dict[tuple[str, int], object] = {}
        """Per deal, the worker that has played it: its kept bot processes may know the
        deal, so no other worker plays it until that worker is gone (:meth:`release`)."""
        self.left: Counter[Deal] = Counter(job.deal for job in self.waiting)
        """Per deal, the jobs waiting."""
        self.hands: dict[Deal, int] = {}
        """Per deal, the hands of its first finished game: its seatings deal the same
        cards, so its other games are about as long (:meth:`_weight`)."""
        self.hands_total = 0
        """The sum of :attr:`hands` (their mean weighs the deals not measured yet)."""
        self.generations: dict[object, _Generation] = {}
        """Per worker, what its live bot processes may have played (the deals handed to it
        since it last took a job of a deal among them): the jobs they may play on."""

    def _startable(
        self,
        prefer: Hashable | None,
        holder: object,
        then: Hashable | None = None,
        finishing: GameJob | None = None,
    ) -> int | None:
        """The index of the job to hand out now (or, with *finishing*, once that running
        job is done), if any. First one *holder*'s live processes may play on (its deal
        new to their generation, :attr:`generations`): one with key *prefer*, else the one
        whose bots most are live there (a table sharing bots with the tables played). Then,
        ending the generation: one with key *then*, else one whose key no other worker holds
        or expects, else the first that may start."""
        held = {key for who, key in self.holding.items() if who is not holder}
        held.update(key for who, key in self.expecting.items() if who is not holder)
        live = self.generations.get(holder)
        work = self._work()
        # The rule is monotone in a deal's work: if the largest deal may be claimed, any.
        claims = {(0.0, 0.0): self._may_claim(holder, work, work.largest)}
        found = (
            None if prefer is None else self._continuation(prefer, holder, finishing, claims, work)
        )
        if found is not None:
            return found
        first = second = unheld = joining = None
        overlap = -1
        for i, job in enumerate(self.waiting):
            key = job.reuse_key
            if self.separate_deals and not self._deal_free(
                job, holder, prefer, finishing, claims, work
            ):
                continue
            if live is not None and live.may_play(job):
                shared = live.shared(job)
                if shared == 3:
                    return i  # every seat's process plays on: none is better
                if shared > overlap:
                    joining, overlap = i, shared
                continue
            if second is None and then is not None and key == then:
                second = i
            if unheld is None and key not in held:
                if prefer is None and then is None and live is None:
                    return i
                unheld = i
            if first is None:
                first = i
        return next((i for i in (joining, second, unheld) if i is not None), first)

    def _continuation(
        self,
        prefer: Hashable,
        holder: object,
        finishing: GameJob | None,
        claims: dict[tuple[float, float], bool],
        work: _Work,
    ) -> int | None:
        """The index of the first job with key *prefer* (the next board of the seating
        *holder* just played: its deal is new to the processes) that may start, if any. A
        pass of its own: comparing keys is cheap, and it usually ends early."""
        for i, job in enumerate(self.waiting):
            if job.reuse_key == prefer and (
                not self.separate_deals
                or self._deal_free(job, holder, prefer, finishing, claims, work)
            ):
                return i
        return None

    def _deal_free(
        self,
        job: GameJob,
        holder: object,
        prefer: Hashable | None,
        finishing: GameJob | None,
        claims: dict[tuple[float, float], bool],
        work: _Work,
    ) -> bool:
        """Whether *holder* may play *job*'s deal now: nobody plays it (*finishing* aside),
        no other worker owns it, and *holder* owns it, may claim a new deal, or continues
        its processes (*prefer*) onto it within one deal's work of the balance. *claims*
        holds the claim rule's answers so far, per (work, slack), with (0, 0) for "any
        deal": a queue of a large round robin asks for thousands of jobs at each
        hand-out."""
        if self._busy(job.deal, finishing):
            return False
        owner = self.owners.get(job.deal)
        if owner is not None:
            return owner is holder  # another's processes may know the deal
        if claims[0.0, 0.0]:
            return True
        size = self.left[job.deal] * self._weight(job.deal)
        slack = size if job.reuse_key == prefer else 0.0
        answer = claims.get((size, slack))
        if answer is None:
            answer = claims[size, slack] = self._may_claim(holder, work, size, slack)
        return answer

    def _weight(self, deal: Deal) -> float:
        """The work of one waiting game of *deal*, in hands: those of its first finished
        game, or the mean of every deal's so far while none of its games has finished."""
        known = self.hands.get(deal)
        return self._mean_hands() if known is None else known

    def _mean_hands(self) -> float:
        return self.hands_total / len(self.hands) if self.hands else 1.0

    def _work(self) -> _Work:
        """The waiting work now: per worker that owns deals (none waiting, perhaps), of the
        deals it owns; of the deals nobody owns; and of the largest of those."""
        owed = dict.fromkeys(self.owners.values(), 0.0)
        unowned = largest = 0.0
        mean = self._mean_hands()
        for deal, count in self.left.items():
            size = count * self.hands.get(deal, mean)
            owner = self.owners.get(deal)
            if owner is None:
                unowned += size
                largest = max(largest, size)
            else:
                owed[owner] += size
        return _Work(owed, unowned, largest)

    def _may_claim(
        self, holder: object, work: _Work, size: float = 0.0, slack: float = 0.0
    ) -> bool:
        """Whether *holder* may claim a deal nobody owns yet, of *size* waiting work: when it
        owes none, or when every other worker could still catch up with what it would then
        owe (plus *slack*) from the work nobody owns after the claim. Early in a run that
        leaves claims free; at the end, it is a strict balance of the work owed. Work, not
        games: a deal's games are as long as its cards make them, and one deal's games can
        take twice another's hands (benchmark round robin: two workers of 78 and 66 games
        held 372 and 690 hands)."""
        mine = work.owed.get(holder, 0.0)
        others = [owed for who, owed in work.owed.items() if who is not holder]
        if mine == 0 or not others:
            return True
        behind = sum(max(0.0, mine + size - slack - owed) for owed in others)
        return behind <= work.unowned - size

    def _busy(self, deal: Deal, finishing: GameJob | None) -> bool:
        """Whether a game of *deal* is running, *finishing* aside."""
        running = self.running.get(deal, 0)
        if finishing is not None and finishing.deal == deal:
            running -= 1
        return running > 0

    def peek(self, current: GameJob, holder: object) -> GameJob | None:
        """The job *holder*, now playing *current*, would take next if nothing changed
        meanwhile (``None`` if none may start then); it now counts as the key *holder*
        expects, so other workers prefer other keys. Nothing is taken."""
        i = self._startable(current.reuse_key, holder, finishing=current)
        if i is None:
            self.expecting.pop(holder, None)
            return None
        job = self.waiting[i]
        self.expecting[holder] = job.reuse_key
        return job

    async def take(
        self, prefer: Hashable | None = None, holder: object = None, then: Hashable | None = None
    ) -> GameJob | None:
        """The next job to run, or ``None`` when nothing is left to take.

        A job with reuse key *prefer* comes first if one may start, then one with key
        *then* (that of a pre-started set), then one whose key no other *holder* (a
        worker's identity) took last or expects.
        """
        while True:
            async with self.changed:
                while True:
                    i = self._startable(prefer, holder, then)
                    if i is not None:
                        job = self.waiting.pop(i)
                        if holder is not None:
                            self.expecting.pop(holder, None)
                            self.holding[holder] = job.reuse_key
                            job = self._join(holder, job)
                            if self.separate_deals and job.deal not in self.owners:
                                self.owners[job.deal] = holder
                        self._count(job, -1)
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
                    for job in jobs:
                        self._count(job, +1)
                    if not jobs:
                        self.more = None
                    self.changed.notify_all()

    async def release(self, holder: object) -> None:
        """*holder*'s bot processes are gone: the deals it played are free for others,
        though not for the processes that lived meanwhile in another worker (they may
        have heard those games through the machine's load): each other worker plays them
        only on new processes."""
        async with self.changed:
            self.holding.pop(holder, None)
            self.expecting.pop(holder, None)
            self.generations.pop(holder, None)
            freed = [d for d, who in self.owners.items() if who is holder]
            for deal in freed:
                del self.owners[deal]
            for live in self.generations.values():
                live.overheard.update(freed)
            self.changed.notify_all()

    def _join(self, holder: object, job: GameJob) -> GameJob:
        """*holder* took *job*: its processes play on if they may, else a new generation
        of processes starts with it (as :class:`arena.tournament.player.GamePlayer` does).
        The job as handed out: marked :attr:`GameJob.overheard` if its deal is one the
        live processes may have heard from a lost worker's games (the player cannot know
        that, and ends its generation for it)."""
        live = self.generations.get(holder)
        if live is not None and job.deal in live.overheard:
            job = dataclasses.replace(job, overheard=True)
        if live is None or not live.may_play(job):
            self.generations[holder] = live = _Generation(job.settings_key)
        live.deals.add(job.deal)
        live.bots.update(job.bot_paths)
        return job

    def _count(self, job: GameJob, change: int) -> None:
        """*job* joined (+1) or left (-1) the waiting jobs: its deal's count."""
        self.left[job.deal] += change
        if not self.left[job.deal]:
            del self.left[job.deal]

    async def done(self, job: GameJob, *, again: bool = False, hands: int = 0) -> None:
        """*job* stopped running; with *again* it waits to run again, first in line. A
        finished game's *hands* measure its deal's work (:meth:`_weight`)."""
        async with self.changed:
            if hands > 0 and job.deal not in self.hands:
                self.hands[job.deal] = hands
                self.hands_total += hands
            count = self.running.pop(job.deal) - 1
            if count:
                self.running[job.deal] = count
            if again:
                self.waiting.insert(0, job)
                self._count(job, +1)
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
        """See :meth:`Executor.run`."""
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
    ) -> tuple[dict[str, Any], Hashable | None]:
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
        reply: dict[str, Any],
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


def _hands(reply: dict[str, Any]) -> int:
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
        return _WorkerProcess(process)


class _WorkerProcess:
    """A local worker process as a :class:`PrestartSlot`: one JSON line each way per job."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.stdin = process.stdin
        self.stdout = process.stdout

    async def play(self, job: GameJob) -> dict[str, Any]:
        return await self._ask({"job": job.to_json()}, job)

    async def play_and_prestart(self, job: GameJob, upcoming: GameJob) -> dict[str, Any]:
        return await self._ask({"job": job.to_json(), "upcoming": upcoming.to_json()}, job)

    async def _ask(self, message: dict[str, Any], job: GameJob) -> dict[str, Any]:
        """Send *message* (one line, :mod:`arena.tournament.worker`) and read the reply."""
        try:
            self.stdin.write((json.dumps(message) + "\n").encode())
            await self.stdin.drain()
            line = await self.stdout.readline()
        except (ConnectionError, BrokenPipeError) as exc:
            raise WorkerLost(f"worker {self.process.pid} is gone ({exc})") from None
        if not line:
            raise WorkerLost(f"worker {self.process.pid} died playing game {job.schedule_index}")
        reply: dict[str, Any] = json.loads(line)
        return reply

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
