"""The liveness rule (:mod:`arena.storage.runner_liveness`): a run is alive iff its runner
lock is held, on SQLite and PostgreSQL; probing never disturbs a runner, never blocks,
and creates nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.storage.database import make_engine
from arena.storage.runner_liveness import NO_RUNNER, lock_file, runner_alive, shown_status
from arena.storage.runner_lock import RunnerBusy, runner_lock
from tests.tournament.test_runner_lock import HOLDER  # a process that holds tournament 7

ROOT = Path(__file__).resolve().parents[2]


def test_alive_exactly_while_the_lock_is_held(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        assert runner_alive(engine, 7) is False  # never run
        with runner_lock(engine, 7, "cup"):
            assert runner_alive(engine, 7) is True
            assert runner_alive(engine, 7) is True  # probing twice changes nothing
            assert runner_alive(engine, 8) is False  # another tournament
            # The probe left the runner's lock as it was: a second runner is still refused.
            with pytest.raises(RunnerBusy), runner_lock(engine, 7, "cup"):
                pass
        assert runner_alive(engine, 7) is False
        # Control: a probe of a free lock keeps nothing either: a runner takes it at once.
        with runner_lock(engine, 7, "cup"):
            pass
    finally:
        engine.dispose()


def test_a_probe_of_a_never_run_sqlite_tournament_creates_nothing(tmp_path: Path) -> None:
    database = tmp_path / "arena.db"
    engine = make_engine(f"sqlite:///{database}")
    try:
        assert runner_alive(engine, 3) is False
        assert not lock_file(database, 3).parent.exists()
        # Control: the path is the runner lock's own: a held lock is found there.
        with runner_lock(engine, 3, "cup"):
            assert lock_file(database, 3).exists()
            assert runner_alive(engine, 3) is True
    finally:
        engine.dispose()


def test_an_in_memory_database_cannot_tell() -> None:
    engine = make_engine("sqlite://")
    try:
        assert runner_alive(engine, 1) is None
    finally:
        engine.dispose()


def test_a_killed_holder_is_dead_at_once(database_url: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, database_url],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    engine = make_engine(database_url)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        assert runner_alive(engine, 7) is True  # control: another process holds it
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        # The kernel drops a flock with its process; PostgreSQL drops the advisory lock
        # when it sees the client's connection close, which may take a moment.
        deadline = time.monotonic() + 30
        while runner_alive(engine, 7):
            assert time.monotonic() < deadline, "a killed runner still counts as alive"
            time.sleep(0.1)
    finally:
        holder.kill()
        holder.wait()
        engine.dispose()


@pytest.mark.parametrize(
    ("stored", "alive", "shown"),
    [
        ("running", False, NO_RUNNER),  # killed: the stored status is stale
        ("running", True, "running"),
        ("running", None, "running"),  # cannot tell: the stored status stands
        ("created", True, "running"),  # started a moment ago
        ("finished", False, "finished"),
        ("interrupted", False, "interrupted"),
    ],
)
def test_shown_status(stored: str, alive: bool | None, shown: str) -> None:
    assert shown_status(stored, alive) == shown
