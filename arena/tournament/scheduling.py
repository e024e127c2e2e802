"""Which job a slot plays next: the pool's rules of fair play and of reuse, as one pure object.

Every executor hands out its jobs through a :class:`Scheduler`: the pool of worker
processes or Ray actors (through the asyncio queue of :mod:`arena.tournament.pool`, which
only waits and wakes around it) and the in-process executor
(:mod:`arena.tournament.inprocess`, which drives it directly). It holds the facts (the
waiting jobs in schedule order, the deals running, per slot the bot processes it keeps and
the deals it owns, the work left, whether more jobs may come) and makes one choice from
them, :meth:`Scheduler.choose`; the other methods record what happened. No asyncio, no I/O,
no clock: the same facts always give the same job, so each rule is tested directly
(``tests/tournament/test_scheduling.py``). The rules, in the order they decide:

1. **Two games of one deal never run at once** (docs/security.md, section 10): a job whose
   deal is running is never handed out.
2. **A deal stays with the slot that first played it** until that slot is released: its
   kept bot processes may know the deal (:attr:`Scheduler.owners`). A released slot's
   deals are free again, marked :attr:`GameJob.overheard` for a slot whose processes
   lived beside its games: that slot's player ends its generation before playing them.
3. **Affinity.** A slot gets first a job its live bot processes may play on (a
   :class:`Generation` that does not know the deal): the next board of the seating it
   played last, else the job with the most of its bots among theirs. Only when there is
   none does its generation end: then a job with the key it looked ahead at, else one
   whose key no other slot holds or expects, else the first that may start.
4. **Balancing.** A slot claims a deal nobody owns only while every other slot could still
   catch up with what it would then owe (:meth:`Scheduler._may_claim`).
5. **Supply on demand.** When no waiting job may start, the first slot to find so asks for
   more (a ladder chooses its next match then: :data:`Verdict.ASK`); the others wait.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import Counter
from collections.abc import Hashable, Sequence

from arena.tournament.jobs import Deal, GameJob


class Verdict(enum.Enum):
    """What :meth:`Scheduler.hand_out` says when it hands out no job."""

    ASK = "ask"
    """No waiting job may start and more may come: ask the supply for more, then tell the
    scheduler what it gave (:meth:`Scheduler.supplied`). Only one slot asks at a time."""
    WAIT = "wait"
    """Nothing may start now: wait until a game ends, a slot is released or jobs arrive."""
    FINISHED = "finished"
    """Nothing is waiting, nothing more will come: the slot's work is over."""


@dataclasses.dataclass
class Generation:
    """A worker's live bot processes, which may have heard each other through the
    machine's load: the settings they run under, every deal any of them may know, and
    their bot versions. The one model of process reuse's safety rule: the scheduler keeps
    one per slot to predict which jobs a slot's processes may play on, and
    :class:`arena.tournament.player.GamePlayer` keeps one to decide it."""

    settings: Hashable
    deals: set[Deal] = dataclasses.field(default_factory=set)
    """Every deal these processes may know: played by one of them, or while they lived."""
    bots: set[str] = dataclasses.field(default_factory=set)
    """The stored versions (their directories) of the live processes."""
    overheard: set[Deal] = dataclasses.field(default_factory=set)
    """Deals another worker played while these processes lived, freed when that worker
    was lost: these processes may have heard them (the machine's load), so never play
    them."""

    def knows(self, deal: Deal) -> bool:
        """Whether these processes may know *deal*."""
        return deal in self.deals or deal in self.overheard

    def may_play(self, job: GameJob) -> bool:
        """Whether these processes may play *job* (its deal is new to them)."""
        return not self.knows(job.deal) and job.settings_key == self.settings

    def shared(self, job: GameJob) -> int:
        """How many of *job*'s seats a live process could take."""
        bots, (a, b, c) = self.bots, job.bot_paths
        return (a in bots) + (b in bots) + (c in bots)

    def join(self, job: GameJob) -> None:
        """*job* is played by these processes: from now on they may know its deal."""
        self.deals.add(job.deal)
        self.bots.update(job.bot_paths)


@dataclasses.dataclass(frozen=True)
class _Work:
    """The waiting work at one hand-out, in hands (:meth:`Scheduler._work`)."""

    owed: dict[object, float]
    unowned: float
    largest: float


class Scheduler:
    """Jobs waiting to run, handed out so that no two running jobs share a deal.

    A slot takes the first waiting job whose deal is not running (so the schedule order is
    kept where it can be and every slot stays busy while other boards wait), and waits
    when every waiting job's deal is running. A slot that names itself (*holder*, any
    object; ``None`` is an anonymous slot that keeps no processes) gets, first, a job its
    live bot processes may play on (:attr:`generations`): the next board of the seating
    it played last (*prefer*), else the job whose deal is new to them with the most of its
    bots among theirs (another table of the same bots). Only when there is none does its
    generation end: then a job with the key it looked ahead at (*then*), else the first
    whose key no other slot holds or expects, else the first that may start. So one
    generation plays one seating of every table the slot owns, with one process per bot.
    A deal a slot has played stays that slot's until it is released (:attr:`owners`). A
    slot may look ahead (:meth:`peek`) at the job it would take next, to pre-start its
    processes; that job's key then counts as the slot's too.

    **Claims stay balanced, in the end.** Since a deal stays with the slot that first
    played it, the deals are split between the slots as they are first taken, and a slot
    ends idle once its own are played. Left greedy, the slot that got going first (the
    other still starting its bots) claimed every board its seating's processes reached:
    5 of 6 boards of a round robin, its partner playing 24 of 144 games and then waiting.
    So a slot claims a new deal only while every other slot could still catch up with
    what it would then owe, from the deals nobody owns yet (:meth:`_may_claim`): freely
    while many are left, by a strict balance of the work owed at the end. Work is counted
    in hands, each deal's from its first finished game (its seatings deal the same cards,
    so their games are about as long; one deal's games can take twice another's). Every
    slot that owes games has one it may start (its deals run nowhere else), so nobody
    waits for this. The next board of the seating a slot holds may be claimed up to one
    deal's games beyond that, so its processes play on.
    """

    def __init__(
        self, jobs: Sequence[GameJob], separate_deals: bool = True, *, supply: bool = False
    ) -> None:
        self.waiting = list(jobs)
        """The jobs not handed out yet, in schedule order (a replayed one first)."""
        self.running: dict[Deal, int] = {}
        """Per deal, its games running now."""
        self.separate_deals = separate_deals
        """Rules 1 and 2 (``False`` only to show the danger they close)."""
        self.supplying = supply
        """More jobs may come (:data:`Verdict.ASK`); ``False`` once the supply gave none."""
        self.asking = False
        """A slot is asking the supply (one at a time)."""
        self.holding: dict[object, Hashable] = {}
        """Per slot, the reuse key of the job it took last (its bot processes' key)."""
        self.expecting: dict[object, Hashable] = {}
        """Per slot, the reuse key of the job it looked ahead at (:meth:`peek`): it may
        have pre-started processes for it."""
        self.owners: dict[Deal, object] = {}
        """Per deal, the slot that has played it: its kept bot processes may know the
        deal, so no other slot plays it until that slot is released (:meth:`released`)."""
        self.left: Counter[Deal] = Counter(job.deal for job in self.waiting)
        """Per deal, the jobs waiting."""
        self.hands: dict[Deal, int] = {}
        """Per deal, the hands of its first finished game: its seatings deal the same
        cards, so its other games are about as long (:meth:`_weight`)."""
        self.hands_total = 0
        """The sum of :attr:`hands` (their mean weighs the deals not measured yet)."""
        self.generations: dict[object, Generation] = {}
        """Per slot, what its live bot processes may have played (the deals handed to it
        since it last took a job of a deal among them): the jobs they may play on."""

    def choose(
        self,
        prefer: Hashable | None,
        holder: object,
        then: Hashable | None = None,
        finishing: GameJob | None = None,
    ) -> int | None:
        """The index in :attr:`waiting` of the job to hand *holder* now (or, with
        *finishing*, once that running job is done), if any may start. First one
        *holder*'s live processes may play on: one with key *prefer*, else the one whose
        bots most are live there. Then, ending the generation: one with key *then*, else
        one whose key no other slot holds or expects, else the first that may start.
        Nothing is changed."""
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

    def hand_out(
        self, holder: object = None, prefer: Hashable | None = None, then: Hashable | None = None
    ) -> GameJob | Verdict:
        """The job *holder* plays next (:meth:`choose`), now running; or, if none may
        start, what the slot does instead (:class:`Verdict`)."""
        i = self.choose(prefer, holder, then)
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
        if self.supplying and not self.asking:
            self.asking = True
            return Verdict.ASK
        if not self.waiting and not self.asking:
            return Verdict.FINISHED
        return Verdict.WAIT

    def peek(self, current: GameJob, holder: object) -> GameJob | None:
        """The job *holder*, now playing *current*, would take next if nothing changed
        meanwhile (``None`` if none may start then); it now counts as the key *holder*
        expects, so other slots prefer other keys. Nothing is handed out."""
        i = self.choose(current.reuse_key, holder, finishing=current)
        if i is None:
            self.expecting.pop(holder, None)
            return None
        job = self.waiting[i]
        self.expecting[holder] = job.reuse_key
        return job

    def supplied(self, jobs: Sequence[GameJob]) -> None:
        """The supply answered the slot that asked (:data:`Verdict.ASK`): *jobs* wait
        after the others; none means no more will come."""
        self.asking = False
        self.waiting.extend(jobs)
        for job in jobs:
            self._count(job, +1)
        if not jobs:
            self.supplying = False

    def finished(self, job: GameJob, *, again: bool = False, hands: int = 0) -> None:
        """*job* stopped running; with *again* it waits to run again, first in line. A
        finished game's *hands* measure its deal's work (:meth:`_weight`)."""
        if hands > 0 and job.deal not in self.hands:
            self.hands[job.deal] = hands
            self.hands_total += hands
        count = self.running.pop(job.deal) - 1
        if count:
            self.running[job.deal] = count
        if again:
            self.waiting.insert(0, job)
            self._count(job, +1)

    def released(self, holder: object) -> None:
        """*holder*'s bot processes are gone: the deals it played are free for others,
        though not for the processes that lived meanwhile in another slot (they may have
        heard those games through the machine's load): each other slot plays them only on
        new processes."""
        self.holding.pop(holder, None)
        self.expecting.pop(holder, None)
        self.generations.pop(holder, None)
        freed = [d for d, who in self.owners.items() if who is holder]
        for deal in freed:
            del self.owners[deal]
        for live in self.generations.values():
            live.overheard.update(freed)

    def _join(self, holder: object, job: GameJob) -> GameJob:
        """*holder* took *job*: its processes play on if they may, else a new generation
        of processes starts with it (as :class:`arena.tournament.player.GamePlayer` does).
        The job as handed out: marked :attr:`GameJob.overheard` if its deal is one the
        live processes may have heard from a lost slot's games (the player cannot know
        that, and ends its generation for it)."""
        live = self.generations.get(holder)
        if live is not None and job.deal in live.overheard:
            job = dataclasses.replace(job, overheard=True)
        if live is None or not live.may_play(job):
            self.generations[holder] = live = Generation(job.settings_key)
        live.join(job)
        return job

    def _count(self, job: GameJob, change: int) -> None:
        """*job* joined (+1) or left (-1) the waiting jobs: its deal's count."""
        self.left[job.deal] += change
        if not self.left[job.deal]:
            del self.left[job.deal]

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
        no other slot owns it, and *holder* owns it, may claim a new deal, or continues
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
        """The waiting work now: per slot that owns deals (none waiting, perhaps), of the
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
        owes none, or when every other slot could still catch up with what it would then
        owe (plus *slack*) from the work nobody owns after the claim. Early in a run that
        leaves claims free; at the end, it is a strict balance of the work owed. Work, not
        games: a deal's games are as long as its cards make them, and one deal's games can
        take twice another's hands (benchmark round robin: two workers of 78 and 66 games
        held 372 and 690 hands). Claims held to a strict balance from the start (the rule
        before) finish later when slots differ in speed."""
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
