"""The scheduler's rules, asked directly: which job a slot gets from given facts.

Table-driven cases, one rule each (two games of one deal never at once; a deal stays with
the slot that played it; a slot keeps its processes' affinity; a generation that may have
heard a deal never plays it; claims balanced; the ladder's supply asked on demand), then
properties over random job sets and random histories of take, done, peek, lose and supply
(hypothesis, derandomized): the invariants hold after every step, and every job is played
exactly once. Each rule and each property has a control: a scheduler with that rule broken
is caught (for a property, hypothesis finds a history that shows it).
"""

from __future__ import annotations

import ast
import itertools
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from arena.tournament import scheduling
from arena.tournament.jobs import Deal, GameJob
from arena.tournament.scheduling import Generation, Scheduler, Verdict

SEATINGS = list(itertools.permutations(range(3)))
PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, database=None)
CONTROL = settings(
    max_examples=3000, derandomize=True, deadline=None, database=None, phases=[Phase.generate]
)
"""A control needs one history that shows the broken rule, not the smallest."""


def _job(index: int, deal: int, bots: str = "abc", seating: int = 0, clock: str = "") -> GameJob:
    """Game *index*: deal key *deal*, the table of *bots* under seating *seating*, time
    control *clock* (a different clock is a different settings key)."""
    order = SEATINGS[seating]
    paths = (bots[order[0]], bots[order[1]], bots[order[2]])
    return GameJob(index, deal, 0, {}, "classic", clock, paths, "", 0)


def _board_major(boards: int, seatings: int, bots: str = "abc") -> list[GameJob]:
    """One table's games in a round robin's order: every seating of board 0, then board 1."""
    return [
        _job(seatings * b + s, deal=b, bots=bots, seating=s)
        for b in range(boards)
        for s in range(seatings)
    ]


def _indexes(given: object) -> object:
    return given.schedule_index if isinstance(given, GameJob) else given


# -- 1. Two games of one deal never run at once --------------------------------------------


@pytest.mark.parametrize(
    ("separate", "expected"),
    [(True, 2), (False, 1)],  # control: without separation, board 0's other seating
    ids=["separated", "control-unseparated"],
)
def test_a_running_deal_is_never_handed_out_again(separate: bool, expected: int) -> None:
    jobs = [_job(0, 0), _job(1, 0, seating=1), _job(2, 1)]
    scheduler = Scheduler(jobs, separate_deals=separate)
    assert _indexes(scheduler.hand_out(object())) == 0
    assert _indexes(scheduler.hand_out(object())) == expected


def test_a_slot_waits_while_every_waiting_deal_runs() -> None:
    scheduler = Scheduler([_job(0, 0), _job(1, 0, seating=1)])
    first = scheduler.hand_out()
    assert isinstance(first, GameJob)
    assert scheduler.hand_out() is Verdict.WAIT
    scheduler.finished(first)
    assert _indexes(scheduler.hand_out()) == 1  # control: free once the game ends


# -- 2. A deal stays with the slot that first played it --------------------------------------


@pytest.mark.parametrize(
    ("release_first", "expected"),
    [(False, Verdict.WAIT), (True, 1)],  # control: released, its deal is free
    ids=["owned", "control-released"],
)
def test_a_deal_is_never_handed_to_another_slot_while_its_owner_lives(
    release_first: bool, expected: object
) -> None:
    first, second = object(), object()
    scheduler = Scheduler([_job(0, 0), _job(1, 0, seating=1)])
    job = scheduler.hand_out(first)
    assert isinstance(job, GameJob)
    scheduler.finished(job)  # the game ended; its processes live on in the first slot
    if release_first:
        scheduler.released(first)
    assert _indexes(scheduler.hand_out(second)) == expected


# -- 3. Affinity: a slot plays on with its processes ----------------------------------------


@pytest.mark.parametrize(
    ("prefer_last", "expected"),
    [(True, 2), (False, 1)],  # control: a new slot (no processes) gets schedule order
    ids=["affinity", "control-new-slot"],
)
def test_a_slot_gets_the_next_board_of_its_seating(prefer_last: bool, expected: int) -> None:
    jobs = _board_major(boards=3, seatings=2)
    slot = object()
    scheduler = Scheduler(jobs)
    job = scheduler.hand_out(slot)
    assert isinstance(job, GameJob)
    scheduler.finished(job)
    prefer = job.reuse_key if prefer_last else None
    if not prefer_last:
        scheduler.released(slot)  # a fresh slot: no processes, no seating
        slot = object()
    assert _indexes(scheduler.hand_out(slot, prefer)) == expected


def test_a_generation_joins_the_table_that_shares_the_most_bots() -> None:
    """After a game of bots a, b, c (deal 0), the slot's processes play on at the table of
    a, b, d (two of them live) before the table of d, e, f or a deal they know."""
    jobs = [_job(0, 0, "abc"), _job(1, 0, "abc", 1), _job(2, 20, "def"), _job(3, 10, "abd")]

    def after_the_first_game(who: str) -> object:
        slot = object()
        scheduler = Scheduler(jobs)
        job = scheduler.hand_out(slot)
        assert isinstance(job, GameJob)
        scheduler.finished(job)
        return _indexes(scheduler.hand_out(slot if who == "same" else object()))

    assert after_the_first_game("same") == 3
    # Control: another slot, with no live processes, takes the first it may start.
    assert after_the_first_game("other") == 2


def test_two_slots_start_on_seatings_the_other_does_not_hold() -> None:
    jobs = _board_major(boards=3, seatings=2)
    scheduler = Scheduler(jobs)
    assert _indexes(scheduler.hand_out(object())) == 0
    assert _indexes(scheduler.hand_out(object())) == 3  # seating 1, board 1
    control = Scheduler(jobs)  # anonymous slots hold nothing: schedule order
    assert [_indexes(control.hand_out()), _indexes(control.hand_out())] == [0, 2]


# -- 4. A generation that may know a deal never plays it -------------------------------------


def test_a_known_deal_starts_a_new_generation() -> None:
    jobs = [_job(0, 0), _job(1, 0, seating=1)]
    slot = object()
    scheduler = Scheduler(jobs)
    first = scheduler.hand_out(slot)
    assert isinstance(first, GameJob)
    scheduler.finished(first)
    live = scheduler.generations[slot]
    assert not live.may_play(jobs[1])  # its processes know deal 0
    scheduler.hand_out(slot)
    assert scheduler.generations[slot] is not live  # so new processes play it
    assert scheduler.generations[slot].deals == {(jobs[1].shuffle, 0)}


@pytest.mark.parametrize(
    ("lived_beside", "overheard"),
    [(True, True), (False, False)],  # control: processes started after the loss
    ids=["lived-beside", "control-started-after"],
)
def test_a_lost_slots_deal_goes_to_the_others_marked_overheard(
    lived_beside: bool, overheard: bool
) -> None:
    jobs = [_job(0, 0), _job(1, 0, seating=1), _job(2, 1), _job(3, 1, seating=1)]
    lost, other = object(), object()
    scheduler = Scheduler(jobs)
    job = scheduler.hand_out(lost)
    assert isinstance(job, GameJob) and job.seed == 0
    scheduler.finished(job)
    if lived_beside:
        job = scheduler.hand_out(other)
        assert isinstance(job, GameJob) and job.seed == 1 and not job.overheard
        scheduler.finished(job)
    scheduler.released(lost)
    job = scheduler.hand_out(other)
    assert isinstance(job, GameJob) and job.seed == 0
    assert job.overheard is overheard


@pytest.mark.parametrize(
    ("case", "may_play"),
    [
        ("new deal", True),
        ("own deal", False),
        ("overheard deal", False),
        ("other settings", False),
    ],
)
def test_what_a_generation_may_play(case: str, may_play: bool) -> None:
    live = Generation(_job(0, 0).settings_key)
    live.join(_job(0, 0))
    live.overheard.add(_job(0, 5).deal)
    job = {
        "new deal": _job(1, 1),
        "own deal": _job(1, 0, seating=1),
        "overheard deal": _job(1, 5),
        "other settings": _job(1, 1, clock="1s"),
    }[case]
    assert live.may_play(job) is may_play


# -- 5. Balancing the claims -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mine", "theirs", "unowned", "size", "slack", "may"),
    [
        (0.0, [9.0], 0.0, 5.0, 0.0, True),  # owing nothing, a slot may always claim
        (3.0, [], 0.0, 5.0, 0.0, True),  # alone, too
        (6.0, [0.0], 20.0, 6.0, 0.0, True),  # the other can still catch up: 12 <= 14
        (6.0, [0.0], 12.0, 6.0, 0.0, False),  # it cannot: 12 > 6
        (6.0, [0.0], 12.0, 6.0, 6.0, True),  # the next board of its seating: one deal's slack
        (6.0, [6.0, 0.0], 12.0, 6.0, 0.0, False),  # every other slot must catch up: 6 + 12 > 6
    ],
)
def test_a_slot_claims_a_new_deal_only_while_the_others_can_catch_up(
    mine: float, theirs: list[float], unowned: float, size: float, slack: float, may: bool
) -> None:
    holder = object()
    owed: dict[object, float] = {holder: mine} if mine else {}
    owed.update((object(), owes) for owes in theirs)
    work = scheduling._Work(owed, unowned, size)
    assert Scheduler([])._may_claim(holder, work, size, slack) is may


def test_a_slot_that_owes_too_much_plays_its_own_deals_first() -> None:
    """Slot A owns deal 0 (5 games left), B owns deal 1 (1 left); deal 2 (6 games) would
    leave B unable to catch up, so A gets its own deal's game. Control: under greedy
    claims, A's processes play on at deal 2 (new to them)."""
    jobs = [_job(i, 2, seating=i) for i in range(6)]
    jobs += [_job(6 + i, 0, "abd", seating=i) for i in range(6)]
    jobs += [_job(12 + i, 1, "abe", seating=i) for i in range(2)]

    def second_take(scheduler: Scheduler) -> int:
        a, b = object(), object()
        assert _indexes(scheduler.hand_out(a, prefer=jobs[6].reuse_key)) == 6
        assert _indexes(scheduler.hand_out(b, prefer=jobs[12].reuse_key)) == 12
        for deal in (0, 1):
            scheduler.finished(_job(0, deal))
        taken = scheduler.hand_out(a)
        assert isinstance(taken, GameJob)
        return taken.seed

    assert second_take(Scheduler(jobs)) == 0

    class Greedy(Scheduler):
        def _may_claim(self, *_args: Any) -> bool:
            return True

    assert second_take(Greedy(jobs)) == 2


# -- 6. The ladder's supply, on demand -------------------------------------------------------


def test_the_supply_is_asked_only_when_nothing_may_start_and_by_one_slot_at_a_time() -> None:
    first, second = object(), object()
    scheduler = Scheduler([_job(0, 0)], supply=True)
    job = scheduler.hand_out(first)
    assert isinstance(job, GameJob)  # a startable job comes before asking (control below)
    assert scheduler.hand_out(second) is Verdict.ASK
    assert scheduler.hand_out(object()) is Verdict.WAIT  # one asks; the others wait
    scheduler.supplied([_job(1, 1)])
    assert _indexes(scheduler.hand_out(second)) == 1
    assert scheduler.hand_out(object()) is Verdict.ASK
    scheduler.supplied([])  # no more will come
    assert scheduler.hand_out(object()) is Verdict.FINISHED
    # Control: a scheduler that asks first, whatever waits, asks with a job ready.
    assert _AsksEagerly([_job(0, 0)], supply=True).hand_out(object()) is Verdict.ASK


def test_the_scheduler_is_pure() -> None:
    """No asyncio, no I/O, no clock in the scheduler's own imports. Control: the pool
    around it imports asyncio, and the check sees it."""
    forbidden = {"asyncio", "subprocess", "socket", "os", "time", "threading", "sqlalchemy"}

    def imports(module: str) -> set[str]:
        path = Path(scheduling.__file__).with_name(f"{module}.py")
        tree = ast.parse(path.read_text())
        found = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                 for a in n.names}  # fmt: skip
        found |= {n.module.split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, ast.ImportFrom) and n.module}  # fmt: skip
        return found

    assert imports("scheduling") & forbidden == set()
    assert imports("pool") & forbidden == {"asyncio", "os"}


# -- Properties over random histories --------------------------------------------------------


@dataclass
class _Processes:
    """A slot's live bot processes as its player keeps them (the model the scheduler must
    satisfy, written independently of it)."""

    settings: Hashable
    played: set[Deal] = field(default_factory=set)
    heard: set[Deal] = field(default_factory=set)
    """Every deal started anywhere (this slot included) while these processes lived."""


@dataclass
class _Slot:
    holder: object = field(default_factory=object)
    prefer: Hashable | None = None
    then: Hashable | None = None
    playing: GameJob | None = None
    asking: bool = False
    processes: _Processes | None = None


@dataclass
class _Run:
    """One history played against a scheduler, with every violation it showed."""

    scheduler: Scheduler
    slots: list[_Slot]
    chunks: list[list[GameJob]]
    faults: Counter[int] = field(default_factory=Counter)
    played_by: dict[Deal, set[object]] = field(default_factory=dict)
    """Per deal, the live slots that have been handed it."""
    finished: Counter[int] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)

    def take(self, slot: _Slot) -> None:
        if slot.playing is not None or slot.asking:
            return
        choice = self.scheduler.choose(slot.prefer, slot.holder, slot.then)
        given = self.scheduler.hand_out(slot.holder, slot.prefer, slot.then)
        if isinstance(given, GameJob):
            self._handed(slot, given)
        elif given is Verdict.ASK:
            if choice is not None:
                self.violations.append("asked for more while a job could start")
            if any(other.asking for other in self.slots):
                self.violations.append("two slots asking at once")
            slot.asking = True
        elif given is Verdict.WAIT:
            self._check_wait(slot)
        elif self.scheduler.waiting or self.scheduler.supplying:
            self.violations.append("finished with work left")

    def _handed(self, slot: _Slot, job: GameJob) -> None:
        deal = job.deal
        if any(other.playing is not None and other.playing.deal == deal for other in self.slots):
            self.violations.append(f"deal {deal} twice at once")
        if self.played_by.get(deal, set()) - {slot.holder}:
            self.violations.append(f"deal {deal} handed to a second live slot")
        live = slot.processes
        if (
            live is None
            or deal in live.played
            or job.overheard
            or job.settings_key != live.settings
        ):
            running = {other.playing.deal for other in self.slots if other.playing is not None}
            live = slot.processes = _Processes(job.settings_key, heard=running)
        elif deal in live.heard:
            self.violations.append(f"processes that may have heard deal {deal} play it")
        live.played.add(deal)
        for other in self.slots:
            if other.processes is not None:
                other.processes.heard.add(deal)
        self.played_by.setdefault(deal, set()).add(slot.holder)
        slot.playing = job

    def _check_wait(self, slot: _Slot) -> None:
        owned = {d for d, who in self.scheduler.owners.items() if who is slot.holder}
        if any(job.deal in owned for job in self.scheduler.waiting):
            self.violations.append("a slot waits while it owes a game it alone may play")
        busy = any(other.playing is not None or other.asking for other in self.slots)
        idle = [other for other in self.slots if other.playing is None and not other.asking]
        if not busy and all(
            self.scheduler.choose(o.prefer, o.holder, o.then) is None for o in idle
        ):
            self.violations.append("every slot waits: deadlock")

    def end(self, slot: _Slot, again: bool, hands: int) -> None:
        job = slot.playing
        if job is None:
            return
        again = again and self.faults[job.schedule_index] < 2
        self.faults[job.schedule_index] += again
        slot.playing, slot.prefer = None, job.reuse_key
        self.scheduler.finished(job, again=again, hands=hands)
        if not again:
            self.finished[job.schedule_index] += 1

    def lose(self, slot: _Slot) -> None:
        job = slot.playing
        if job is None:
            return
        self.scheduler.released(slot.holder)
        for holders in self.played_by.values():
            holders.discard(slot.holder)
        slot.holder, slot.prefer, slot.then = object(), None, None
        slot.playing = slot.processes = None
        self.scheduler.finished(job, again=True)

    def peek(self, slot: _Slot) -> None:
        if slot.playing is not None:
            ahead = self.scheduler.peek(slot.playing, slot.holder)
            slot.then = None if ahead is None else ahead.reuse_key

    def supply(self, slot: _Slot) -> None:
        if slot.asking:
            slot.asking = False
            self.scheduler.supplied(self.chunks.pop(0) if self.chunks else [])


@st.composite
def _job_sets(draw: st.DrawFn) -> tuple[list[GameJob], list[list[GameJob]]]:
    """A round robin's games, or part of one: 1-3 tables of 3 of bots a-e, 1-3 boards, some
    seatings, deals of their own per table or shared by every table's board, some tables
    under another time control; board-major or reversed; some held back for the supply."""
    tables = draw(st.lists(st.sampled_from(["abc", "abd", "cde", "bce"]), min_size=1, max_size=3))
    boards = draw(st.integers(1, 3))
    seatings = draw(st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True))
    shared = draw(st.booleans())
    clocks = [draw(st.sampled_from(["", "", "1s"])) for _ in tables]
    jobs: list[GameJob] = []
    for board in range(boards):
        for t, bots in enumerate(tables):
            deal = board if shared else 100 * t + board
            for s in seatings:
                jobs.append(_job(len(jobs), deal, bots, s, clocks[t]))
    if draw(st.booleans()):
        jobs.reverse()
    held = draw(st.integers(0, len(jobs) - 1))
    first, rest = jobs[: len(jobs) - held], jobs[len(jobs) - held :]
    size = draw(st.integers(1, 6))
    return first, [rest[i : i + size] for i in range(0, len(rest), size)]


_OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["take", "take", "end", "end", "peek", "lose", "supply"]),
        st.integers(0, 2),
        st.booleans(),
        st.integers(1, 9),
    ),
    max_size=60,
)


def _play(
    make: Callable[[Sequence[GameJob], bool], Scheduler],
    jobs: tuple[list[GameJob], list[list[GameJob]]],
    slots: int,
    operations: list[tuple[str, int, bool, int]],
) -> _Run:
    """Play *operations* (each on slot ``n % slots``), then every slot takes and ends games
    in turn until all are finished; the run and what it violated."""
    first, chunks = jobs
    run = _Run(make(first, bool(chunks)), [_Slot() for _ in range(slots)], list(chunks))
    for name, number, again, hands in operations:
        slot = run.slots[number % slots]
        if name == "take":
            run.take(slot)
        elif name == "end":
            run.end(slot, again and hands % 3 == 0, hands)
        elif name == "lose":
            run.lose(slot)
        elif name == "peek":
            run.peek(slot)
        else:
            run.supply(slot)
    while (
        run.scheduler.waiting
        or run.scheduler.supplying
        or any(slot.playing is not None or slot.asking for slot in run.slots)
    ):
        for slot in run.slots:
            run.supply(slot)
            run.take(slot)
            run.peek(slot)
        idle = all(slot.playing is None and not slot.asking for slot in run.slots)
        if idle and (run.scheduler.waiting or run.scheduler.supplying):
            run.violations.append("the run never finished")
            break
        for slot in run.slots:
            run.end(slot, again=False, hands=3)
    every = [job.schedule_index for job in first] + [j.schedule_index for c in chunks for j in c]
    if run.finished != Counter(every):
        run.violations.append("a game not played exactly once")
    return run


def _scheduler(jobs: Sequence[GameJob], supply: bool) -> Scheduler:
    return Scheduler(jobs, supply=supply)


@PROPERTY
@given(_job_sets(), st.integers(1, 3), _OPERATIONS)
def test_every_history_keeps_every_invariant(
    jobs: tuple[list[GameJob], list[list[GameJob]]],
    slots: int,
    operations: list[tuple[str, int, bool, int]],
) -> None:
    assert _play(_scheduler, jobs, slots, operations).violations == []


class _Unseparated(Scheduler):
    """Rules 1 and 2 off (``separate_deals=False``, the danger they close)."""

    def __init__(self, jobs: Sequence[GameJob], *, supply: bool = False) -> None:
        super().__init__(jobs, separate_deals=False, supply=supply)


class _IgnoresOwners(Scheduler):
    def hand_out(
        self, holder: object = None, prefer: Hashable | None = None, then: Any = None
    ) -> GameJob | Verdict:
        given = super().hand_out(holder, prefer, then)
        self.owners.clear()  # a deal played is free again for any slot
        return given


class _NeverOverhears(Scheduler):
    def released(self, holder: object) -> None:
        lived = {who: set(live.overheard) for who, live in self.generations.items()}
        super().released(holder)
        for who, live in self.generations.items():
            live.overheard = lived[who]


class _ClaimsBeforeOwning(Scheduler):
    def _deal_free(self, job: GameJob, holder: object, *rest: Any) -> bool:
        if self.owners.get(job.deal) is holder and not self._may_claim(
            holder, self._work(), self.left[job.deal] * self._weight(job.deal)
        ):
            return False
        return super()._deal_free(job, holder, *rest)


class _AsksEagerly(Scheduler):
    def hand_out(
        self, holder: object = None, prefer: Hashable | None = None, then: Any = None
    ) -> GameJob | Verdict:
        if self.supplying and not self.asking:
            self.asking = True
            return Verdict.ASK
        return super().hand_out(holder, prefer, then)


@pytest.mark.parametrize(
    ("broken", "caught"),
    [
        (_Unseparated, "twice at once"),
        (_IgnoresOwners, "second live slot"),
        pytest.param(_NeverOverhears, "may have heard", marks=pytest.mark.slow),
        (_ClaimsBeforeOwning, "owes a game it alone may play"),
        (_AsksEagerly, "asked for more while a job could start"),
    ],
    ids=lambda value: value if isinstance(value, str) else value.__name__,
)
def test_control_the_property_catches_a_broken_rule(broken: type[Scheduler], caught: str) -> None:
    def shows_it(example: tuple[Any, int, list[tuple[str, int, bool, int]]]) -> bool:
        jobs, slots, operations = example
        run = _play(lambda j, s: broken(j, supply=s), jobs, slots, operations)
        return any(caught in violation for violation in run.violations)

    strategy = st.tuples(_job_sets(), st.integers(1, 3), _OPERATIONS)
    assert find(strategy, shows_it, settings=CONTROL)  # raises if no history shows it
