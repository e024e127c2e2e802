"""The one run loop (:mod:`arena.tournament.loop`) on its own: a fake format over one table's
board, played by an in-process executor (real one-hand games of the built-in policies,
no bot processes). Every format runs through this loop, so what it owns is checked once
here: the status (running, then finished; interrupted when stopped; unchanged when it
never started), arena faults counted while the game is played again, interruption keeping
the stored games for the next run to resume, the lock refusing a second runner, rounds and
on-demand jobs, and progress after every stored game; and ``runner.run`` taking a version
test through it like any tournament. Each hostile case has its control.

Parametrized over SQLite and a real PostgreSQL server (``tests/conftest.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from arena import storage
from arena.game.observation import observe
from arena.game.policies import GreedyPolicy, Policy, RandomPolicy
from arena.game.record import game_record
from arena.game.rules import RuleSet, get_ruleset
from arena.game.state import GameState
from arena.ratings.sprt import SprtSettings
from arena.storage.database import StorageError, open_database
from arena.storage.models import BotVersion
from arena.storage.runner_lock import RunnerBusy, runner_lock
from arena.tournament import compare, runner
from arena.tournament.executor import ArenaFaultCallback, MoreJobs, ResultCallback
from arena.tournament.formats import ScheduledGame, board_games
from arena.tournament.jobs import GameJob
from arena.tournament.loop import RunFormat, RunProgress, game_job, play, store_game


class InProcessExecutor:
    """The :class:`~arena.tournament.executor.Executor` protocol in this process: plays
    each job at once (asking *more* when it has none left, as the pool does); a job in
    *fail_once* fails by the arena's fault the first time (reported, then played again,
    as the pool does); after *stop_after* games it raises ``KeyboardInterrupt`` (a
    Ctrl-C)."""

    def __init__(self, fail_once: Sequence[int] = (), stop_after: int | None = None) -> None:
        self.fail_once = set(fail_once)
        self.stop_after = stop_after
        self.played: list[int] = []
        self.asked_more: list[bool] = []
        """Per call of :meth:`run`, whether it was given *more*."""

    async def run(
        self,
        jobs: Sequence[GameJob],
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None = None,
        more: MoreJobs | None = None,
    ) -> None:
        self.asked_more.append(more is not None)
        waiting = list(jobs)
        while True:
            if not waiting:
                waiting = list(await more()) if more is not None else []
                if not waiting:
                    return
            job = waiting.pop(0)
            if self.stop_after is not None and len(self.played) >= self.stop_after:
                raise KeyboardInterrupt
            self.played.append(job.schedule_index)
            if job.schedule_index in self.fail_once:
                self.fail_once.discard(job.schedule_index)
                assert on_arena_fault is not None
                await _settled(on_arena_fault(job, "the worker died"))
                waiting.insert(0, job)  # played again
                continue
            await _settled(on_result(job, _play(job)))


async def _settled(outcome: object) -> None:
    if inspect.isawaitable(outcome):
        await outcome


def _play(job: GameJob) -> dict[str, Any]:
    """One hand of the job's game, seat 0 greedy and the others random."""
    rules = RuleSet.from_json(job.rules, name=job.ruleset).replace(max_hands=1)
    state = GameState(rules, job.seed, first_dealer=job.first_dealer, shuffle=job.shuffle)
    policies: list[Policy] = [GreedyPolicy(), RandomPolicy(1), RandomPolicy(2)]
    while not state.is_over:
        seat = state.current_seat
        state.apply_decision(policies[seat].act(observe(state, seat)))
    return game_record(state, list(job.labels))


class FakeRun(RunFormat[RunProgress]):
    """One table's board (6 games) in *rounds* of schedule indexes; with *on_demand*, the
    rounds after the first come from :meth:`more` instead of :meth:`next_round`."""

    kind = "fake"

    def __init__(
        self, engine: Engine, name: str, rounds: list[list[int]], on_demand: bool = False
    ) -> None:
        tournament = storage.get_tournament(engine, name)
        super().__init__(storage.row_id(tournament), name, RunProgress(0, 6, 0, 0.0))
        self.engine = engine
        self.tournament = tournament
        self.rounds = list(rounds)
        self.on_demand = on_demand  # type: ignore[misc]  # a class setting, per test here
        self.games: dict[int, ScheduledGame] = {
            g.schedule_index: g for g in board_games(0, 0, 0, 7, (0, 1, 2))
        }
        self.started = False
        self.stored: list[int] = []

    def start(self) -> list[GameJob]:
        self.started = True
        self.progress.done = len(storage.stored_indexes(self.engine, self.tournament_id))
        return self._next()

    def next_round(self) -> list[GameJob] | None:
        return None if self.on_demand or not self.rounds else self._next()

    async def more(self) -> list[GameJob]:
        return self._next() if self.rounds else []

    def _next(self) -> list[GameJob]:
        stored = storage.stored_indexes(self.engine, self.tournament_id)
        versions = storage.entries(self.engine, self.tournament_id)
        rules = get_ruleset("classic")
        wanted = [i for i in self.rounds.pop(0) if i not in stored]
        return [game_job(self.tournament, rules, self.games[i], versions) for i in wanted]

    def store(self, job: GameJob, record: dict[str, Any]) -> None:
        versions = storage.entries(self.engine, self.tournament_id)
        game = self.games[job.schedule_index]
        seats = [storage.row_id(versions[e]) for e in game.entrants]
        store_game(self.engine, self.tournament_id, game, seats, record, 6)
        self.stored.append(job.schedule_index)


def _version(engine: Engine, name: str) -> BotVersion:
    manifest = {"name": name, "version": "1", "language": "python", "run": "python bot.py"}
    checksum = hashlib.sha256(name.encode()).hexdigest()
    version, _ = storage.add_bot_version(engine, manifest, checksum, f"/nowhere/{name}")
    return version


@pytest.fixture
def engine(database_url: str) -> Engine:
    engine = open_database(database_url)
    ids = [storage.row_id(_version(engine, name)) for name in ("a", "b", "c")]
    rules = get_ruleset("classic")
    storage.create_tournament(
        engine,
        name="cup",
        ruleset=rules.name,
        rules_json=json.dumps(rules.to_json()),
        time_control="decision=1000",
        boards=1,
        seed=7,
        rating_mode="board",
        entries=ids,
        games_total=6,
    )
    return engine


def _status(engine: Engine) -> str:
    return storage.get_tournament(engine, "cup").status


def _stored(engine: Engine) -> list[int]:
    return sorted(
        storage.stored_indexes(engine, storage.row_id(storage.get_tournament(engine, "cup")))
    )


def _faults(engine: Engine) -> int:
    return storage.get_tournament(engine, "cup").arena_faults


ALL = [[0, 1, 2, 3, 4, 5]]


def test_the_status_is_running_while_it_plays_then_finished(engine: Engine) -> None:
    seen: list[tuple[str, int, int]] = []

    def report(progress: RunProgress) -> None:
        seen.append((_status(engine), progress.done, progress.played_now))

    assert _status(engine) == "created"  # control: nothing ran yet
    final = asyncio.run(play(engine, FakeRun(engine, "cup", ALL), InProcessExecutor(), report))
    assert _status(engine) == "finished"
    # Reported once when the status is set, then after every stored game, while running.
    assert seen == [("running", n, n) for n in range(7)]
    assert (final.done, final.played_now) == (6, 6)
    assert _stored(engine) == [0, 1, 2, 3, 4, 5]


def test_an_arena_fault_is_counted_and_its_game_played_again(engine: Engine) -> None:
    executor = InProcessExecutor(fail_once=[2])
    run = FakeRun(engine, "cup", ALL)
    asyncio.run(play(engine, run, executor))
    assert _faults(engine) == 1
    assert executor.played == [0, 1, 2, 2, 3, 4, 5]  # the failed game again, at once
    assert run.stored == [0, 1, 2, 3, 4, 5] and _stored(engine) == [0, 1, 2, 3, 4, 5]
    assert _status(engine) == "finished"
    # Control: a run without a fault counts none.
    storage.set_status(engine, storage.row_id(storage.get_tournament(engine, "cup")), "created")
    asyncio.run(play(engine, FakeRun(engine, "cup", ALL), InProcessExecutor()))
    assert _faults(engine) == 1


def test_an_interruption_leaves_it_interrupted_and_keeps_the_stored_games(
    engine: Engine,
) -> None:
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(play(engine, FakeRun(engine, "cup", ALL), InProcessExecutor(stop_after=4)))
    assert _status(engine) == "interrupted"
    assert _stored(engine) == [0, 1, 2, 3]
    # Control: the next run resumes, plays only what is missing, and finishes.
    again = InProcessExecutor()
    final = asyncio.run(play(engine, FakeRun(engine, "cup", ALL), again))
    assert again.played == [4, 5]
    assert (final.done, final.played_now) == (6, 2)
    assert _status(engine) == "finished" and _stored(engine) == [0, 1, 2, 3, 4, 5]


def test_the_lock_refuses_a_second_runner_before_it_starts(engine: Engine) -> None:
    run = FakeRun(engine, "cup", ALL)
    executor = InProcessExecutor()
    tournament_id = storage.row_id(storage.get_tournament(engine, "cup"))
    with runner_lock(engine, tournament_id, "cup"), pytest.raises(RunnerBusy):
        asyncio.run(play(engine, run, executor))
    assert not run.started and executor.played == []
    assert _status(engine) == "created" and _stored(engine) == []
    # Control: once the other runner is gone, the same run plays.
    asyncio.run(play(engine, run, executor))
    assert _status(engine) == "finished" and _stored(engine) == [0, 1, 2, 3, 4, 5]


def test_a_run_that_cannot_start_changes_nothing(engine: Engine) -> None:
    class Broken(FakeRun):
        def start(self) -> list[GameJob]:
            raise StorageError("unreadable")

    with pytest.raises(StorageError):
        asyncio.run(play(engine, Broken(engine, "cup", ALL), InProcessExecutor()))
    assert _status(engine) == "created"
    # Control: a failure once it plays marks it interrupted.
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(play(engine, FakeRun(engine, "cup", ALL), InProcessExecutor(stop_after=0)))
    assert _status(engine) == "interrupted"


def test_rounds_follow_one_another_each_an_executor_run(engine: Engine) -> None:
    executor = InProcessExecutor()
    asyncio.run(play(engine, FakeRun(engine, "cup", [[0, 1, 2], [3, 4], [5]]), executor))
    assert executor.played == [0, 1, 2, 3, 4, 5]
    assert executor.asked_more == [False, False, False]  # one executor run per round
    assert _status(engine) == "finished"


def test_an_on_demand_format_is_fed_by_more_in_one_executor_run(engine: Engine) -> None:
    executor = InProcessExecutor()
    run = FakeRun(engine, "cup", [[0, 1, 2], [3, 4], [5]], on_demand=True)
    asyncio.run(play(engine, run, executor))
    assert executor.played == [0, 1, 2, 3, 4, 5]
    assert executor.asked_more == [True]
    assert run.rounds == [] and _status(engine) == "finished"


def test_runner_run_plays_a_version_test_through_the_loop(engine: Engine) -> None:
    _version(engine, "d")
    spec = compare.create_version_test(
        engine,
        candidate="a",
        baseline="b",
        opponents=["c", "d"],
        sprt=SprtSettings(margin=1.0, min_boards=3),
        max_boards=2,
        name="vt",
    )
    seen: list[int] = []
    executor = InProcessExecutor()
    final = asyncio.run(
        runner.run(engine, "vt", executor, lambda progress: seen.append(progress.done))
    )
    assert isinstance(final, RunProgress) and (final.done, final.total) == (24, 24)
    assert seen == list(range(25)) and executor.played == list(range(24))
    assert storage.get_tournament(engine, spec.tournament).status == "finished"
    # Control: only a ladder may follow; refused before anything runs.
    with pytest.raises(ValueError, match="only a ladder can follow"):
        asyncio.run(runner.run(engine, "cup", InProcessExecutor(), follow=True))
    assert _status(engine) == "created"
