"""Which database errors are waited out, and how (arena.storage.outage,
arena.tournament.outage), on real driver errors where one can be had without a server: a
PostgreSQL socket that refuses connections, a SQLite file that another writer holds, a
SQLite file on a full filesystem is in test_full_disk.py. The waiting runs on a fake
clock: what is checked is the sequence of waits and lines, not time.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from arena.storage.database import StorageError, database_errors
from arena.storage.outage import full_disk, unreachable_reason
from arena.tournament.outage import (
    DatabaseGone,
    OutageWait,
    RetryPolicy,
    duration,
    policy_from_env,
)


def _refused(tmp_path: Path) -> StorageError:
    """The real error of a PostgreSQL server that is down: nothing listens on its socket."""
    engine = create_engine(f"postgresql+psycopg://postgres@/arena?host={tmp_path}")

    @database_errors
    def record_game() -> None:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    with pytest.raises(StorageError) as caught:
        record_game()
    return caught.value


def test_a_server_that_is_down_is_unreachable(tmp_path: Path) -> None:
    error = _refused(tmp_path)
    assert unreachable_reason(error) == "the server's socket is gone"
    (tmp_path / ".s.PGSQL.5432").touch()  # a socket file nobody listens on: refused
    assert unreachable_reason(_refused(tmp_path)) in (
        "connection refused",
        "the server's socket is gone",
    )


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("server closed the connection unexpectedly", "the server closed the connection"),
        ("FATAL: terminating connection due to administrator command", "the server was shut down"),
        ("FATAL: the database system is starting up", "the server is starting up"),
        ("cannot execute INSERT in a read-only transaction", "a read-only standby answered (failover)"),
        ("consuming input failed: EOF detected", "the connection was lost"),
    ],
)  # fmt: skip
def test_the_words_of_a_restart_or_failover_are_unreachable(message: str, reason: str) -> None:
    error = StorageError(f"record_game: database error: {message}")
    assert unreachable_reason(error) == reason


def test_control_a_locked_sqlite_file_and_a_bad_query_are_not_outages(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.05})
    with pytest.raises(OperationalError) as locked, engine.begin() as connection:
        connection.execute(text("INSERT INTO t VALUES (1)"))
    holder.close()
    assert "locked" in str(locked.value)
    assert unreachable_reason(locked.value) is None
    assert unreachable_reason(StorageError("record_game: no such table: game")) is None
    assert not full_disk(locked.value)


def test_a_full_disk_is_its_own_case() -> None:
    error = StorageError("record_game: database error: database or disk is full")
    assert full_disk(error) and unreachable_reason(error) is None
    assert full_disk(OSError(28, "No space left on device"))
    assert not full_disk(StorageError("connection refused"))  # control


def test_the_backoff_grows_to_its_cap_with_jitter() -> None:
    policy = RetryPolicy(retry_for=600, first_wait=0.5, max_wait=15.0)
    rng = random.Random(1)
    waits = [policy.wait(attempt, rng) for attempt in range(8)]
    steps = [0.5, 1, 2, 4, 8, 15, 15, 15]
    assert all(step / 2 <= wait <= step for wait, step in zip(waits, steps, strict=True))
    # Jitter: two runners that lost the same server do not knock in step.
    other = [policy.wait(attempt, random.Random(2)) for attempt in range(8)]
    assert waits != other


class FakeTime:
    """A clock that only the waits move."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def _waiter(retry_for: float, lines: list[str], fake: FakeTime) -> OutageWait:
    return OutageWait(
        RetryPolicy(retry_for=retry_for),
        say=lines.append,
        rng=random.Random(0),
        sleep=fake.sleep,
        clock=fake.clock,
    )


def _down_for(seconds: float, fake: FakeTime) -> Callable[[], str]:
    """An operation that fails as an unreachable server until *seconds* have passed."""

    def operation() -> str:
        if fake.now < seconds:
            raise StorageError("record_game: database error: connection refused")
        return "stored"

    return operation


def test_an_outage_shorter_than_the_limit_is_waited_out_one_line_a_wait() -> None:
    fake, lines = FakeTime(), list[str]()
    probes: list[float] = []
    wait = _waiter(180, lines, fake)
    wait.probe = lambda: probes.append(fake.now)
    assert asyncio.run(wait.call(_down_for(20, fake))) == "stored"
    assert lines[0].startswith("database unreachable (connection refused); retrying in ")
    assert lines[0].endswith("giving up in 3 min")
    assert lines[-1].startswith("database reachable again after ")
    assert len(probes) == len(lines) - 1  # the lock is retaken before every retry
    assert wait.outages == 1 and not wait.in_outage


def test_past_the_limit_it_gives_up_with_one_error() -> None:
    fake, lines = FakeTime(), list[str]()
    with pytest.raises(DatabaseGone, match=r"unreachable \(connection refused\) for 1 min"):
        asyncio.run(_waiter(60, lines, fake).call(_down_for(10_000, fake), "game 3"))
    assert 59 <= fake.now <= 60
    assert len(lines) > 3 and all(line.startswith("database unreachable (") for line in lines)


def test_control_with_no_patience_it_dies_at_once_as_before() -> None:
    fake, lines = FakeTime(), list[str]()
    with pytest.raises(DatabaseGone, match="no wait"):
        asyncio.run(_waiter(0, lines, fake).call(_down_for(1, fake)))
    assert lines == [] and fake.now == 0


def test_an_error_that_is_no_outage_goes_up_at_once() -> None:
    fake, lines = FakeTime(), list[str]()

    def broken() -> None:
        raise StorageError("record_game: outside the schedule 0..5")

    with pytest.raises(StorageError, match="outside the schedule"):
        asyncio.run(_waiter(180, lines, fake).call(broken))
    assert lines == []


def test_the_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DB_RETRY_FOR", "42")
    assert policy_from_env().retry_for == 42
    assert policy_from_env(7).retry_for == 7
    monkeypatch.setenv("ARENA_DB_RETRY_FOR", "soon")
    with pytest.raises(ValueError, match="ARENA_DB_RETRY_FOR='soon' is not a number"):
        policy_from_env()


def test_durations_read_as_people_say_them() -> None:
    assert [duration(s) for s in (0.4, 4, 60, 170, 3900)] == [
        "0 s",
        "4 s",
        "1 min",
        "2 min 50 s",
        "1 h 5 min",
    ]
