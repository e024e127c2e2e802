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

The lock says who holds it (:func:`lock_holder`: the process id and host name, written
into the lock file, or the lock connection's ``application_name``), so that
``arena tournament stop`` can ask that runner to stop.

A database that goes away for a while (a PostgreSQL restart or failover) drops the
advisory lock with the connection that held it. The runner waits such an outage out
(:mod:`arena.tournament.outage`) and then calls :meth:`RunnerLock.check`, which takes the
lock again on a new connection (or finds that another runner took it meanwhile:
:class:`RunnerBusy`). Releasing a lock whose connection is dead is no error: the server
already dropped it, and a second failure while the first is reported would only bury it.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import SQLAlchemyError

from arena.storage.database import StorageError, one_line

LOGGER = logging.getLogger(__name__)

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


RETAKE_TRIES: Final = 10
RETAKE_PAUSE_S: Final = 0.1
"""Retaking the lock after an outage tries this often, this far apart, before it calls the
tournament busy: a liveness probe (:mod:`arena.storage.runner_liveness`, which the
dashboard polls) holds the lock shared for an instant, and must not end a run that only
lost its connection."""
APPLICATION_PREFIX: Final = "arena runner "
"""The start of the lock connection's ``application_name``: ``arena runner <pid>@<host>``."""


@dataclass(frozen=True)
class Holder:
    """Who holds a tournament's runner lock: a process on a host."""

    pid: int
    host: str

    @property
    def local(self) -> bool:
        """Whether the holder runs on this machine (so a signal can reach it)."""
        return self.host == socket.gethostname()

    def __str__(self) -> str:
        return f"process {self.pid} on {self.host}"


def _me() -> str:
    return f"{os.getpid()}@{socket.gethostname()}"


def _parse_holder(text_: str) -> Holder | None:
    pid, _, host = text_.strip().partition("@")
    return Holder(int(pid), host) if pid.isdigit() and host else None


class RunnerLock:
    """A held runner lock (what :func:`runner_lock` yields)."""

    def check(self) -> None:
        """Make sure the lock is still held, taking it again if the database dropped it.

        :raises RunnerBusy: if another runner took it meanwhile.
        :raises StorageError: if the database cannot be reached (the chain keeps the
            driver's error, so :mod:`arena.storage.outage` can tell an outage).
        """

    def release(self) -> None:
        """Let the lock go; never raises (see the module)."""


@contextlib.contextmanager
def runner_lock(engine: Engine, tournament_id: int, name: str) -> Iterator[RunnerLock]:
    """Hold tournament *tournament_id*'s runner lock while the block runs.

    :raises RunnerBusy: if another runner holds it (nothing is changed then).
    :raises StorageError: if the lock cannot be taken for another reason.
    """
    lock = _make_lock(engine, tournament_id, name)
    try:
        yield lock
    finally:
        lock.release()


def _make_lock(engine: Engine, tournament_id: int, name: str) -> RunnerLock:
    if engine.dialect.name == "postgresql":
        return _AdvisoryLock(engine, tournament_id, name)
    database = _sqlite_file(engine)
    if database is None:
        return RunnerLock()
    return _FileLock(database, tournament_id, name)


def _sqlite_file(engine: Engine) -> Path | None:
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        return None
    return Path(database)


def _lock_path(database: Path, tournament_id: int) -> Path:
    return database.with_name(database.name + ".locks") / f"runner-{tournament_id}.lock"


class _FileLock(RunnerLock):
    """``flock`` on a file: the database going away cannot drop it, so :meth:`check` has
    nothing to do."""

    def __init__(self, database: Path, tournament_id: int, name: str) -> None:
        path = _lock_path(database, tournament_id)
        try:
            path.parent.mkdir(exist_ok=True)
            self.descriptor: int | None = os.open(path, os.O_RDWR | os.O_CREAT)
        except OSError as exc:
            raise StorageError(
                f"cannot lock tournament {name!r} in {path.parent}: {exc.strerror}"
            ) from None
        try:
            fcntl.flock(self.descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.release()
            raise RunnerBusy(busy_message(name)) from None
        with contextlib.suppress(OSError):  # who holds it: a courtesy for `stop`
            os.ftruncate(self.descriptor, 0)
            os.pwrite(self.descriptor, _me().encode(), 0)

    def release(self) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)  # releases the lock
            self.descriptor = None


class _AdvisoryLock(RunnerLock):
    """A session advisory lock on a connection of its own, in autocommit."""

    def __init__(self, engine: Engine, tournament_id: int, name: str) -> None:
        self.engine = engine
        self.name = name
        self.keys = {"cls": ADVISORY_CLASS, "id": tournament_id}
        self.connection: Connection | None = None
        self._take()

    def _take(self) -> None:
        try:
            plain = self.engine.connect()
        except SQLAlchemyError as exc:
            raise StorageError(f"runner lock: database error: {one_line(exc)}") from exc
        try:
            connection = plain.execution_options(isolation_level="AUTOCOMMIT")
            connection.execute(text("SELECT set_config('application_name', :me, false)"),
                               {"me": APPLICATION_PREFIX + _me()})  # fmt: skip
            taken = connection.execute(
                text("SELECT pg_try_advisory_lock(:cls, :id)"), self.keys
            ).scalar()
        except SQLAlchemyError as exc:
            _close_quietly(plain)
            raise StorageError(f"runner lock: database error: {one_line(exc)}") from exc
        if not taken:
            _close_quietly(plain)
            raise RunnerBusy(busy_message(self.name))
        self.connection = connection

    def check(self) -> None:
        if self.connection is not None:
            try:
                self.connection.execute(text("SELECT 1"))
                return
            except SQLAlchemyError:
                LOGGER.info("runner lock of %r: its connection is gone; taking it again", self.name)
                _close_quietly(self.connection, invalidate=True)
                self.connection = None
        for _ in range(RETAKE_TRIES - 1):
            try:
                self._take()
                return
            except RunnerBusy:
                time.sleep(RETAKE_PAUSE_S)  # a liveness probe's instant hold, most likely
        self._take()

    def release(self) -> None:
        connection, self.connection = self.connection, None
        if connection is None:
            return
        try:
            connection.execute(text("SELECT pg_advisory_unlock(:cls, :id)"), self.keys)
            # Back in the pool, the connection no longer claims to be a runner.
            connection.execute(text("SELECT set_config('application_name', '', false)"))
        except SQLAlchemyError as exc:
            # The connection died with the server's session, and the lock with it.
            LOGGER.info(
                "runner lock of %r dropped with its connection: %s", self.name, one_line(exc)
            )
            _close_quietly(connection, invalidate=True)
            return
        _close_quietly(connection)


def _close_quietly(connection: Connection, *, invalidate: bool = False) -> None:
    with contextlib.suppress(SQLAlchemyError):
        if invalidate:
            connection.invalidate()
        connection.close()


def lock_holder(engine: Engine, tournament_id: int) -> Holder | None:
    """Who holds tournament *tournament_id*'s runner lock now, ``None`` if no one does
    (or, for a holder that wrote no name, a holder is not known).

    :raises StorageError: if the database cannot be asked.
    """
    if engine.dialect.name == "postgresql":
        query = text(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
            "AND l.classid::bigint = :cls AND l.objid::bigint = :id"
        )
        try:
            with engine.connect() as connection:
                names = connection.execute(
                    query, {"cls": ADVISORY_CLASS, "id": tournament_id}
                ).scalars()
                found = [n for n in names if n and n.startswith(APPLICATION_PREFIX)]
        except SQLAlchemyError as exc:
            raise StorageError(f"runner lock: database error: {one_line(exc)}") from exc
        return _parse_holder(found[0].removeprefix(APPLICATION_PREFIX)) if found else None
    database = _sqlite_file(engine)
    if database is None:
        return None
    path = _lock_path(database, tournament_id)
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return None  # never locked
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _parse_holder(os.pread(descriptor, 200, 0).decode(errors="replace"))
        return None  # we could take it: no one holds it
    finally:
        os.close(descriptor)
