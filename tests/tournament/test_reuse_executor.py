"""The generic pool: slots, a lost worker replaced, every slot closed, affinity.

Fake slots in this process (no bot processes): what any executor built on
:class:`PoolExecutor` (local worker processes, Ray actors) inherits.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable, Hashable
from typing import Any

import pytest

from arena.tournament import executor as executor_module
from arena.tournament.executor import ExecutorError, PoolExecutor, Slot, WorkerLost
from arena.tournament.jobs import GameJob
from arena.tournament.pool import _Queue


def _job(index: int, seed: int, seating: int = 0) -> GameJob:
    paths = [("a", "b", "c"), ("b", "a", "c"), ("a", "c", "b"), ("c", "b", "a"), ("b", "c", "a"),
             ("c", "a", "b")][seating]  # fmt: skip
    return GameJob(index, seed, 0, {}, "classic", "", (paths[0], paths[1], paths[2]), "", 0)


class _Slot:
    def __init__(self, pool: _Pool, number: int) -> None:
        self.pool, self.number, self.closed = pool, number, False

    async def play(self, job: GameJob) -> dict[str, Any]:
        await asyncio.sleep(0.001 if job.schedule_index else 0.0)
        self.pool.played.append((self.number, job.schedule_index))
        if self.pool.lose.get(job.schedule_index, 0) > 0:
            self.pool.lose[job.schedule_index] -= 1
            raise WorkerLost(f"slot {self.number} lost")
        return {"schedule_index": job.schedule_index, "record": {"n": job.schedule_index}}

    async def close(self) -> None:
        await asyncio.sleep(0.01)  # a slot that takes a while to stop is still awaited
        self.closed = True


class _Pool(PoolExecutor):
    def __init__(self, parallel: int, lose: dict[int, int] | None = None) -> None:
        super().__init__(parallel)
        self.lose = dict(lose or {})
        """Schedule index -> how many times its worker is lost playing it."""
        self.slots: list[_Slot] = []
        self.played: list[tuple[int, int]] = []

    async def open_slot(self) -> Slot:
        self.slots.append(_Slot(self, len(self.slots)))
        return self.slots[-1]


def _run(pool: _Pool, jobs: list[GameJob]) -> tuple[list[int], list[str]]:
    done: list[int] = []
    faults: list[str] = []
    asyncio.run(
        pool.run(
            jobs, lambda job, _r: done.append(job.schedule_index), lambda _j, d: faults.append(d)
        )
    )
    return done, faults


def test_a_lost_worker_is_replaced_and_its_game_replayed_once() -> None:
    pool = _Pool(2, lose={1: 1})
    done, faults = _run(pool, [_job(i, seed=i) for i in range(6)])
    assert sorted(done) == list(range(6))  # each game reported exactly once
    assert len(faults) == 1 and faults[0].endswith("lost")
    assert len(pool.slots) == 3 and all(slot.closed for slot in pool.slots)


def test_a_worker_lost_every_time_stops_the_run() -> None:
    pool = _Pool(1, lose={0: 99})
    with pytest.raises(ExecutorError, match="3 times in a row"):
        _run(pool, [_job(0, 0)])
    assert len(pool.slots) == 3 and all(slot.closed for slot in pool.slots)


def test_every_slot_is_closed_before_run_returns_when_one_fails() -> None:
    """The runner's callback fails on game 0 while the other slot is busy: run() raises
    only after both slots are closed (the other task used to be left unawaited)."""
    pool = _Pool(2)

    def store(job: GameJob, _record: dict[str, Any]) -> None:
        if job.schedule_index == 0:
            raise RuntimeError("disk full")

    async def scenario() -> list[bool]:
        with pytest.raises(RuntimeError, match="disk full"):
            await pool.run([_job(i, seed=i) for i in range(8)], store)
        return [slot.closed for slot in pool.slots]

    assert asyncio.run(scenario()) == [True, True]


def test_a_slot_keeps_to_its_seating_while_deals_allow() -> None:
    """Boards 0-3 of two seatings, in board-major order: a slot plays its seating's boards
    first (affinity), so its bot processes are kept."""
    jobs = [_job(2 * b + s, seed=b, seating=s) for b in range(4) for s in range(2)]
    pool = _Pool(1)
    _run(pool, jobs)
    order = [index for _, index in pool.played]
    assert [jobs[i].reuse_key for i in order[:4]] == [jobs[0].reuse_key] * 4
    # Control: the plain order (no affinity) would have switched seating every game.
    assert jobs[0].reuse_key != jobs[1].reuse_key


def test_two_slots_do_not_split_one_seating_between_them() -> None:
    """Two seatings of 3 boards, board-major order, two slots: the second slot starts on
    the seating the first does not hold, so each seating stays with one slot's processes."""
    jobs = [_job(2 * b + s, seed=b, seating=s) for b in range(3) for s in range(2)]

    async def hand_out() -> tuple[GameJob, GameJob]:
        queue = _Queue(jobs, separate_deals=True)
        first, second = object(), object()
        a = await queue.take(None, first)
        b = await queue.take(None, second)
        assert a is not None and b is not None
        return a, b

    a, b = asyncio.run(hand_out())
    assert (a.schedule_index, b.schedule_index) == (0, 3)  # seating 0 board 0, seating 1 board 1
    assert a.reuse_key != b.reuse_key
    # Control: a slot that names no identity gets the first startable job, the other seating's
    # board 1 being behind seating 0's board 1 in schedule order.
    queue = _Queue(jobs, separate_deals=True)

    async def anonymous() -> int:
        await queue.take()
        job = await queue.take()
        assert job is not None
        return job.schedule_index

    assert asyncio.run(anonymous()) == 2


def test_a_deal_stays_with_the_slot_that_played_it() -> None:
    """A slot's kept processes may know the deals it played: another slot never gets a job
    of those deals (not even after the game ended) until that slot is released."""
    jobs = [_job(2 * b + s, seed=b, seating=s) for b in range(2) for s in range(2)]

    async def hand_out() -> tuple[int, list[int]]:
        queue = _Queue(jobs, separate_deals=True)
        first, second = object(), object()
        a = await queue.take(None, first)  # seating 0, board 0
        assert a is not None and a.schedule_index == 0
        await queue.done(a)  # game over; first's processes still live
        b = await queue.take(None, second)
        assert b is not None
        await queue.done(b)
        await queue.release(first)
        after_release = []
        while queue.waiting:  # the second slot's own board first, then the freed one
            c = await queue.take(None, second)
            assert c is not None
            after_release.append(c.schedule_index)
            await queue.done(c)
        return b.schedule_index, after_release

    taken, after_release = asyncio.run(hand_out())
    assert jobs[taken].seed != 0  # board 1, never board 0 that the first slot knows
    assert 0 in {jobs[i].seed for i in after_release}  # free once released

    # Control: without deal separation the second slot takes board 0's other seating.
    async def unguarded() -> int:
        queue = _Queue(jobs, separate_deals=False)
        a = await queue.take(None, object())
        assert a is not None
        await queue.done(a)
        b = await queue.take(None, object())
        assert b is not None
        return b.schedule_index

    assert jobs[asyncio.run(unguarded())].seed == 0


def _claims(jobs: list[GameJob]) -> dict[str, set[int]]:
    """Two workers, the second slow to start: the first plays six games while the second
    plays its first (as when its bots take longer to start), then they take turns. Which
    boards (deals) each ends up owning."""

    async def hand_out() -> dict[str, set[int]]:
        queue = _Queue(jobs, separate_deals=True)
        fast, slow = object(), object()
        boards: dict[str, set[int]] = {"fast": set(), "slow": set()}
        prefer: dict[str, object] = {}

        async def take(name: str, who: object) -> GameJob | None:
            job = await queue.take(prefer.get(name), who)
            if job is not None:
                boards[name].add(job.seed)
                prefer[name] = job.reuse_key
            return job

        first_of_slow = await take("slow", slow)
        assert first_of_slow is not None
        for _ in range(6):
            job = await take("fast", fast)
            assert job is not None
            await queue.done(job)
        await queue.done(first_of_slow)
        while queue.waiting:
            for name, who in (("fast", fast), ("slow", slow)):
                # A worker with nothing it may start now would wait: it skips its turn.
                if queue._startable(prefer.get(name), who) is not None:
                    job = await take(name, who)
                    assert job is not None
                    await queue.done(job)
        return boards

    return asyncio.run(hand_out())


def test_the_boards_are_shared_out_evenly_between_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deal stays with the worker that first played it, so how the deals are first
    claimed decides how the work is split: a worker may claim a new one only while it owes
    no more games than the other, so 6 boards split 3 and 3 however the workers start.
    Control: greedy claims (any free deal, any time) let the worker that got going first
    claim 5 of the 6 boards, its partner then waiting idle for most of the round robin."""
    jobs = [_job(6 * b + s, seed=b, seating=s) for b in range(6) for s in range(6)]
    claims = _claims(jobs)
    assert claims["fast"].isdisjoint(claims["slow"])
    assert sorted(len(boards) for boards in claims.values()) == [3, 3]

    monkeypatch.setattr(_Queue, "_may_claim", lambda *_args: True)
    greedy = _claims(jobs)
    assert sorted(len(boards) for boards in greedy.values()) == [1, 5]


def _table_jobs(tables: int, boards: int) -> list[GameJob]:
    """*tables* tables of a round robin (bots a, b, c, then a, b, d, ...) of *boards* boards
    under 6 seatings, every table's board with its own deal (per-table deals), board-major
    as a round robin's schedule is."""
    jobs: list[GameJob] = []
    for board in range(boards):
        for table, bots in enumerate(
            itertools.islice(itertools.combinations("abcdefg", 3), tables)
        ):
            for seat in itertools.permutations(range(3)):
                paths = (bots[seat[0]], bots[seat[1]], bots[seat[2]])
                jobs.append(
                    GameJob(len(jobs), 100 * table + board, 0, {}, "classic", "", paths, "", 0)
                )
    return jobs


def _clocked(
    jobs: list[GameJob],
    game_s: tuple[float, ...],
    start_s: float,
    hands: Callable[[GameJob], int] | None = None,
) -> tuple[int, float, list[int]]:
    """Workers taking jobs on a simulated clock, keeping bot processes as
    :class:`GamePlayer` does: a worker's live processes (one per bot) play on while the
    deals it is handed are new to them, and all end when a deal comes round again. Worker
    *w* plays a game in ``game_s[w]`` seconds, plus *start_s* when the game starts a
    process; a worker the queue has nothing for waits for the next game to end. With
    *hands*, a game lasts that many times as long, and the queue is told its hands. The
    bot processes started, when the last game ends, and the games each worker played."""

    async def hand_out() -> tuple[int, float, list[int]]:
        queue = _Queue(jobs, separate_deals=True)
        workers = [object() for _ in game_s]
        last: list[Hashable | None] = [None] * len(game_s)
        deals: list[set[Any]] = [set() for _ in game_s]
        bots: list[set[str]] = [set() for _ in game_s]
        running: dict[int, GameJob] = {}
        clock = [(0.0, w) for w in range(len(game_s))]
        started, played, now, idle = 0, [0] * len(game_s), 0.0, set()
        while clock:
            now, who = heapq.heappop(clock)
            if who in running:
                finished = running.pop(who)
                await queue.done(finished, hands=hands(finished) if hands else 0)
                clock.extend((now, w) for w in idle)
                heapq.heapify(clock)
                idle.clear()
            if queue._startable(last[who], workers[who]) is None:
                if queue.waiting:
                    idle.add(who)
                continue
            job = await queue.take(last[who], workers[who])
            assert job is not None
            if job.deal in deals[who]:
                deals[who], bots[who] = set(), set()
            new = set(job.bot_paths) - bots[who]
            deals[who].add(job.deal)
            bots[who] |= new
            started += len(new)
            length = hands(job) if hands else 1
            seconds = game_s[who] * length + (start_s if new else 0.0)
            last[who], running[who], played[who] = job.reuse_key, job, played[who] + 1
            heapq.heappush(clock, (now + seconds, who))
        return started, now, played

    return asyncio.run(hand_out())


def test_claims_are_free_while_the_others_can_still_catch_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four tables of 6 boards, one worker twice as fast as the other, a process start
    costing two games: claims are free while the other worker could still catch up from
    the unclaimed deals, and a strict balance of the games owed at the end, so both
    workers share the work. Control: claims held to that strict balance from the start
    (the rule before) finish later."""
    jobs = _table_jobs(4, 6)
    _, finished, played = _clocked(jobs, (1.0, 2.0), 2.0)
    assert sum(played) == 144 and min(played) >= 48

    def strict(self: _Queue, holder: object, work: Any, _size: float = 0, slack: float = 0) -> bool:
        mine = work.owed.get(holder, 0)
        others = [owed for who, owed in work.owed.items() if who is not holder]
        return mine == 0 or not others or mine <= min(others) + slack

    monkeypatch.setattr(_Queue, "_may_claim", strict)
    _, control_finished, _ = _clocked(jobs, (1.0, 2.0), 2.0)
    assert control_finished > finished


def test_a_worker_plays_on_at_every_table_its_processes_may_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The queue hands a worker the jobs its live processes may play (deals new to them,
    the most of their bots first), so a generation plays one seating of every table the
    worker owns: 4 tables of 6 boards (4 bots) on two equal workers start 48 processes, 6
    generations of 4 bots per worker, the fewest possible; 10 tables of 4 boards (7 bots)
    start 66. Control: a queue blind to the live processes (the next board of the seating
    just played, else the next job in schedule order) starts 68 and 167."""
    small, large = _table_jobs(4, 6), _table_jobs(10, 4)
    started, _, played = _clocked(small, (1.0, 1.0), 2.0)
    assert started == 48 and played == [72, 72]
    assert _clocked(large, (1.0, 1.0), 2.0)[0] <= 66

    monkeypatch.setattr(executor_module._Generation, "may_play", lambda self, job: False)
    assert _clocked(small, (1.0, 1.0), 2.0)[0] >= 68
    assert _clocked(large, (1.0, 1.0), 2.0)[0] >= 160


def test_a_lost_workers_deals_go_to_new_processes_in_the_others() -> None:
    """Deals freed by a lost worker were played while the other worker's processes lived
    (they may have heard them through the machine's load): the other worker gets such a
    deal marked overheard, so it plays it on new processes. Control: a worker whose
    processes started after the loss gets it unmarked."""
    jobs = [_job(2 * b + s, seed=b, seating=s) for b in range(2) for s in range(2)]

    async def board_zero_for_the_other(lived_beside: bool) -> GameJob:
        queue = _Queue(jobs, separate_deals=True)
        lost, other = object(), object()
        job = await queue.take(None, lost)  # board 0
        assert job is not None and job.seed == 0
        await queue.done(job)
        if lived_beside:
            job = await queue.take(None, other)  # board 1, while the lost worker's live
            assert job is not None and job.seed == 1 and not job.overheard
            await queue.done(job)
        await queue.release(lost)  # board 0 is free again
        job = await queue.take(None, other)
        assert job is not None and job.seed == 0
        return job

    assert asyncio.run(board_zero_for_the_other(lived_beside=True)).overheard
    assert not asyncio.run(board_zero_for_the_other(lived_beside=False)).overheard


def test_claims_weigh_a_deal_by_the_hands_of_its_first_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first table's deals make long games (three times the hands: the same cards
    under every seating make every game of a deal about as long), two equal workers:
    claims weighed by the hands of each deal's first game leave the worker that holds the
    long deals fewer games, so both finish sooner. Control: claims counted in games give
    both workers about as many games, and the one with the long deals finishes later."""
    jobs = _table_jobs(4, 6)

    def hands(job: GameJob) -> int:
        return 3 if job.seed < 100 else 1  # table 0's boards

    _, finished, played = _clocked(jobs, (1.0, 1.0), 2.0, hands)
    assert max(played) - min(played) >= 36  # the worker with the long deals plays fewer

    original = _Queue.done

    async def games_only(
        self: _Queue, job: GameJob, *, again: bool = False, hands: int = 0
    ) -> None:
        await original(self, job, again=again)

    monkeypatch.setattr(_Queue, "done", games_only)
    _, control_finished, _ = _clocked(jobs, (1.0, 1.0), 2.0, hands)
    assert control_finished > finished
