"""The runner lock across a lost connection, and who holds it (arena.storage.runner_lock),
on SQLite and a real PostgreSQL server.

On PostgreSQL the lock is a session advisory lock: a server restart, or an administrator
terminating the lock's backend (``pg_terminate_backend``, SQLSTATE 57P01, what a restart
does to every session), drops it. :meth:`RunnerLock.check` then takes it again on a new
connection; if another runner took it in the gap, the run must stop (the control).
Releasing a lock whose connection is dead raises nothing (the issue's second, chained
failure came from ``pg_advisory_unlock`` on a dead connection).
"""

from __future__ import annotations

import os
import socket

import pytest
from sqlalchemy import text

from arena.storage.database import make_engine
from arena.storage.runner_lock import Holder, RunnerBusy, lock_holder, runner_lock


def test_the_lock_says_who_holds_it(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        assert lock_holder(engine, 7) is None
        with runner_lock(engine, 7, "cup"):
            holder = lock_holder(engine, 7)
            assert holder == Holder(os.getpid(), socket.gethostname()) and holder.local
            assert lock_holder(engine, 8) is None  # control: another tournament is free
        assert lock_holder(engine, 7) is None
    finally:
        engine.dispose()


def _terminate_lock_sessions(engine_url: str) -> int:
    """Terminate the backends holding this process's runner locks; how many."""
    admin = make_engine(engine_url)
    try:
        with admin.connect() as connection:
            return len(
                connection.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE application_name = :me AND pid <> pg_backend_pid()"
                    ),
                    {"me": f"arena runner {os.getpid()}@{socket.gethostname()}"},
                ).all()
            )
    finally:
        admin.dispose()


@pytest.mark.postgres
def test_a_lock_dropped_with_its_connection_is_taken_again(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    try:
        with runner_lock(engine, 7, "cup") as lock:
            assert _terminate_lock_sessions(postgres_url) == 1
            assert lock_holder(engine, 7) is None  # the server dropped it
            lock.check()
            assert lock_holder(engine, 7) == Holder(os.getpid(), socket.gethostname())
            assert _terminate_lock_sessions(postgres_url) == 1
        # Released on a dead connection: no error, and the lock is free.
        assert lock_holder(engine, 7) is None
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_control_another_runner_in_the_gap_stops_this_one(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    try:
        with runner_lock(engine, 7, "cup") as lock:
            _terminate_lock_sessions(postgres_url)
            # Another runner takes the free tournament meanwhile.
            with runner_lock(engine, 7, "cup"), pytest.raises(RunnerBusy):
                lock.check()
    finally:
        engine.dispose()
