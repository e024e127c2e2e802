"""One runner per tournament at a time: a lock that its holder's death releases.

Two runners of one tournament (a second ``arena tournament run`` in another shell, or the
dashboard's Resume while a shell still runs it) would each play the games not yet stored.
Both would then fail on the games the other stored first, and, worse for fair play, they
would play games of one deal at the same time: the executors' rule that a board's games
never run at once holds within one runner, not across two.

The lock is one the operating system or the database server drops when its holder dies
(kill -9 included), so a crashed runner never blocks the next one:

* **SQLite**: an exclusive ``flock`` on ``<database>.locks/runner-<id>.lock``. ``flock``
  belongs to the open file, so two runners in one process exclude each other too.
* **PostgreSQL**: a session-level advisory lock on its own connection (in autocommit: no
  transaction stays open for the hours a run may take), dropped with the connection.
  Runners on several machines (Ray) share the server, so they share the lock.

An in-memory SQLite database lives in one process only: there is nothing to lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from sqlalchemy import Engine, text

from arena.storage.database import StorageError

ADVISORY_CLASS: Final = 952_0952
"""The first key of the two-key advisory lock (the second is the tournament id); the
migrations' one-key lock lives in a separate key space (PostgreSQL docs, 9.28.10)."""


class RunnerBusy(StorageError):
    """Another runner holds the tournament."""


def busy_message(name: str) -> str:
    """The one line a refused runner gets."""
    return (
        f"tournament {name!r} is being played by another runner (an `arena tournament run` "
        "or the dashboard's); two at once would play games of one deal at the same time: "
        "stop that one first, or let it finish"
    )


@contextlib.contextmanager
def runner_lock(engine: Engine, tournament_id: int, name: str) -> Iterator[None]:
    """Hold tournament *tournament_id*'s runner lock while the block runs.

    :raises RunnerBusy: if another runner holds it (nothing is changed then).
    :raises StorageError: if the lock cannot be taken for another reason.
    """
    if engine.dialect.name == "postgresql":
        with _advisory_lock(engine, tournament_id, name):
            yield
        return
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        yield
        return
    with _file_lock(Path(database), tournament_id, name):
        yield


@contextlib.contextmanager
def _file_lock(database: Path, tournament_id: int, name: str) -> Iterator[None]:
    folder = database.with_name(database.name + ".locks")
    try:
        folder.mkdir(exist_ok=True)
        descriptor = os.open(folder / f"runner-{tournament_id}.lock", os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        raise StorageError(f"cannot lock tournament {name!r} in {folder}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunnerBusy(busy_message(name)) from None
        yield
    finally:
        os.close(descriptor)  # releases the lock


@contextlib.contextmanager
def _advisory_lock(engine: Engine, tournament_id: int, name: str) -> Iterator[None]:
    keys = {"cls": ADVISORY_CLASS, "id": tournament_id}
    with engine.connect() as plain:
        connection = plain.execution_options(isolation_level="AUTOCOMMIT")
        taken = connection.execute(text("SELECT pg_try_advisory_lock(:cls, :id)"), keys).scalar()
        if not taken:
            raise RunnerBusy(busy_message(name))
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:cls, :id)"), keys)
