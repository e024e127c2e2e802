"""Whether a tournament's runner is alive: the one rule the CLI and the dashboard share.

A run is alive if and only if its runner lock (:mod:`arena.storage.runner_lock`) is held.
The stored status cannot say so: a runner killed with ``kill -9`` (or by a power cut)
leaves ``running`` behind, and ``arena tournament status`` used to repeat it. The lock is
dropped by the operating system or the database server when its holder dies, so asking
whether it is held is the true answer.

The probe never waits and never keeps anything:

* **SQLite**: a shared, non-blocking ``flock`` on the runner's lock file, released at once;
  a missing lock file (no run ever started) is a dead run, and the probe creates nothing.
  A shared lock conflicts only with the runner's exclusive one, so probes (the dashboard
  polls every 2 s) never block each other.
* **PostgreSQL**: ``pg_try_advisory_lock_shared`` on the runner's key, in autocommit,
  unlocked at once when it was granted.

For the instant a probe holds its lock, a runner starting at that very moment is refused
as busy (:class:`arena.storage.runner_lock.RunnerBusy`) and may simply be started again;
a runner already running is never disturbed.

An in-memory SQLite database lives in one process, which has no lock to probe: there,
:func:`runner_alive` answers ``None`` (unknown).
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path
from typing import Final

from sqlalchemy import Engine, text

from arena.storage.database import StorageError, database_errors
from arena.storage.runner_lock import ADVISORY_CLASS

RUNNING: Final = "running"
"""The stored status of a tournament whose runner started and has not ended it."""

NO_RUNNER: Final = "stopped (runner gone)"
"""What a ``running`` tournament without a live runner is shown as."""


def lock_file(database: Path, tournament_id: int) -> Path:
    """The runner lock file of *tournament_id* beside SQLite file *database* (the path
    :mod:`arena.storage.runner_lock` uses)."""
    return database.with_name(database.name + ".locks") / f"runner-{tournament_id}.lock"


@database_errors
def runner_alive(engine: Engine, tournament_id: int) -> bool | None:
    """Whether a runner holds tournament *tournament_id* now (``None``: cannot be known,
    for an in-memory SQLite database).

    :raises StorageError: if the lock cannot be probed (an unreadable lock file, a
        database that does not answer).
    """
    if engine.dialect.name == "postgresql":
        return _advisory_lock_held(engine, tournament_id)
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        return None
    return _file_lock_held(lock_file(Path(database), tournament_id))


def shown_status(stored: str, alive: bool | None) -> str:
    """The status to show for a tournament stored as *stored* whose runner is *alive*:
    ``running`` only while a runner holds it; a ``running`` one whose runner is gone is
    :data:`NO_RUNNER` (a run from before a crash, to resume)."""
    if stored == RUNNING and alive is False:
        return NO_RUNNER
    if stored != RUNNING and alive:
        return RUNNING  # started a moment ago: the runner has not stored its status yet
    return stored


def _file_lock_held(path: Path) -> bool:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False  # no runner ever started here
    except OSError as exc:
        raise StorageError(f"cannot read the runner lock {path}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return True
            raise StorageError(f"cannot probe the runner lock {path}: {exc.strerror}") from None
        return False
    finally:
        os.close(descriptor)  # releases the probe's shared lock, if it got one


def _advisory_lock_held(engine: Engine, tournament_id: int) -> bool:
    keys = {"cls": ADVISORY_CLASS, "id": tournament_id}
    with engine.connect() as plain:
        connection = plain.execution_options(isolation_level="AUTOCOMMIT")
        granted = connection.execute(
            text("SELECT pg_try_advisory_lock_shared(:cls, :id)"), keys
        ).scalar()
        if granted:
            connection.execute(text("SELECT pg_advisory_unlock_shared(:cls, :id)"), keys)
        return not granted


__all__ = ["NO_RUNNER", "RUNNING", "lock_file", "runner_alive", "shown_status"]
