"""The run loop across a database outage, in this process: a format whose stores fail as an
unreachable server for a while (real games of the built-in policies, a real SQLite
database behind the failing calls). The held results are stored once each, in the order
the games finished; a game the database committed just before the connection died counts
once; and past the limit the run stops with one error, cleanup raising nothing more.
The real thing (a PostgreSQL server killed mid-run, bot processes) is test_postgres_restart.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from arena import storage
from arena.storage.database import StorageError, open_database
from arena.storage.games import GameAlreadyStored
from arena.tournament.jobs import GameJob
from arena.tournament.loop import play
from arena.tournament.outage import DatabaseGone, OutageWait, RetryPolicy
from tests.migrated_sqlite import migrated_sqlite_url
from tests.tournament.test_run_loop import ALL, FakeRun, InProcessExecutor, _version

REFUSED = "record_game: database error: connection refused"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_database(migrated_sqlite_url(tmp_path / "arena.db"))
    ids = [storage.row_id(_version(engine, name)) for name in ("a", "b", "c")]
    storage.create_tournament(
        engine, name="cup", ruleset="classic", rules_json="{}", time_control="decision=1000",
        boards=1, seed=7, rating_mode="board", entries=ids, games_total=6,
    )  # fmt: skip
    yield engine
    engine.dispose()


class OutageRun(FakeRun):
    """Stores fail as an unreachable server *failures* times from game *at* on; with
    *committed*, the first failing store had committed before its connection died."""

    def __init__(self, engine: Engine, failures: int, at: int = 2, committed: bool = False) -> None:
        super().__init__(engine, "cup", ALL)
        self.failures = failures
        self.at = at
        self.committed = committed
        self.attempts: list[int] = []

    def store(self, job: GameJob, record: dict[str, Any]) -> None:
        self.attempts.append(job.schedule_index)
        if job.schedule_index >= self.at and self.failures:
            self.failures -= 1
            if self.committed:
                self.committed = False
                super().store(job, record)
            raise StorageError(REFUSED)
        super().store(job, record)


class NoWait:
    """A wait that takes no time: the clock moves by what is slept."""

    def __init__(self) -> None:
        self.now = 0.0

    async def sleep(self, seconds: float) -> None:
        self.now += seconds

    def wait(self, retry_for: float, lines: list[str]) -> OutageWait:
        return OutageWait(RetryPolicy(retry_for=retry_for), say=lines.append,
                          sleep=self.sleep, clock=lambda: self.now)  # fmt: skip


def _stored(engine: Engine) -> list[int]:
    tournament = storage.get_tournament(engine, "cup")
    return sorted(storage.stored_indexes(engine, storage.row_id(tournament)))


def test_an_outage_is_waited_out_and_every_game_stored_once(engine: Engine) -> None:
    lines: list[str] = []
    run = OutageRun(engine, failures=4)
    asyncio.run(play(engine, run, InProcessExecutor(), outage=NoWait().wait(180, lines)))
    assert _stored(engine) == [0, 1, 2, 3, 4, 5]
    assert run.stored == [0, 1, 2, 3, 4, 5]  # in the order they finished
    assert storage.get_tournament(engine, "cup").status == "finished"
    assert sum(line.startswith("database unreachable (connection refused)") for line in lines) == 4
    assert run.progress.done == 6


def test_a_game_committed_before_the_connection_died_counts_once(engine: Engine) -> None:
    lines: list[str] = []
    run = OutageRun(engine, failures=1, committed=True)
    asyncio.run(play(engine, run, InProcessExecutor(), outage=NoWait().wait(180, lines)))
    assert _stored(engine) == [0, 1, 2, 3, 4, 5]
    assert run.attempts.count(2) == 2  # stored, "refused", tried again: already there


def test_control_already_stored_without_an_outage_is_still_an_error(engine: Engine) -> None:
    class Twice(FakeRun):
        def store(self, job: GameJob, record: dict[str, Any]) -> None:
            super().store(job, record)
            if job.schedule_index == 1:
                super().store(job, record)

    with pytest.raises(GameAlreadyStored):
        asyncio.run(play(engine, Twice(engine, "cup", ALL), InProcessExecutor()))


def test_past_the_limit_the_run_stops_with_one_error(engine: Engine) -> None:
    lines: list[str] = []
    run = OutageRun(engine, failures=10_000)
    with pytest.raises(DatabaseGone) as caught:
        asyncio.run(play(engine, run, InProcessExecutor(), outage=NoWait().wait(30, lines)))
    assert "connection refused" in str(caught.value) and "for 30 s" in str(caught.value)
    assert "played again by the next run" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # no chain
    assert _stored(engine) == [0, 1]
    assert storage.get_tournament(engine, "cup").status == "interrupted"
    # Control: with the limit at 0 it stops at the first refusal, without a wait.
    lines.clear()
    with pytest.raises(DatabaseGone, match="no wait"):
        again = OutageRun(engine, failures=10_000)
        asyncio.run(play(engine, again, InProcessExecutor(), outage=NoWait().wait(0, lines)))
    assert lines == []
