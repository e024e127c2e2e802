"""Which database failures are an outage to wait out, a full disk, or a plain error.

A runner that meets a database error has three answers, and this module tells them apart
from the error alone (the driver's exception behind a :class:`StorageError`, or the
one-line message when the chain was cut):

* **unreachable** (:func:`unreachable_reason`): the server is restarting, failing over or
  gone for a moment: connection refused or reset, the server closed the connection, an
  administrator shut it down (SQLSTATE 57P01..57P03), a standby that is read-only while it
  is promoted (25006). Nothing is wrong with the data or the request: wait and try again
  (:mod:`arena.tournament.outage`).
* **full disk** (:func:`full_disk`): SQLite's ``database or disk is full`` or an ``ENOSPC``
  anywhere in the chain. Waiting does not free space, so the runner stops at once with one
  line naming the full filesystem (:func:`full_disk_message`); SQLite rolled the transaction
  back, so the file stays intact and a later run resumes.
* **anything else**, which stays an error as before. That includes SQLite's ``database is
  locked`` (another writer held the file past the 30 s busy timeout: a stuck program to
  look at, not an outage) and ``disk I/O error`` (a failing device or a file that changed
  under SQLite: retrying hides it).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Engine

from arena.storage.database import StorageError

UNREACHABLE: Final = (
    ("connection refused", "connection refused"),
    ("connection reset", "connection reset"),
    ("server closed the connection", "the server closed the connection"),
    ("terminating connection due to administrator command", "the server was shut down"),
    ("the database system is shutting down", "the server is shutting down"),
    ("the database system is starting up", "the server is starting up"),
    ("the database system is in recovery mode", "the server is recovering"),
    ("the database system is not yet accepting connections", "the server is starting up"),
    ("read-only transaction", "a read-only standby answered (failover)"),
    ("no such file or directory", "the server's socket is gone"),
    ("could not connect to server", "cannot connect"),
    ("connection is lost", "the connection was lost"),
    ("connection is closed", "the connection was lost"),
    ("consuming input failed", "the connection was lost"),
    ("ssl connection has been closed", "the connection was lost"),
    ("timeout expired", "the server does not answer"),
    ("connection timed out", "the server does not answer"),
    ("network is unreachable", "the network is unreachable"),
    ("no route to host", "the network is unreachable"),
    ("could not translate host name", "the server's name does not resolve"),
    ("name or service not known", "the server's name does not resolve"),
    ("broken pipe", "the connection was lost"),
)
"""Lower-case fragments of driver messages (psycopg 3, libpq) and the short reason shown
for each. ``read-only transaction`` is how PostgreSQL refuses a write on a hot standby
("cannot execute INSERT in a read-only transaction"): what a runner meets when a failover
leaves its pool pointing at the old primary, now a standby."""

UNREACHABLE_SQLSTATES: Final = {
    "57P01": "the server was shut down",  # admin_shutdown
    "57P02": "the server crashed",  # crash_shutdown
    "57P03": "the server is starting up",  # cannot_connect_now
    "08000": "the connection was lost",
    "08001": "cannot connect",
    "08003": "the connection was lost",
    "08006": "the connection was lost",
    "25006": "a read-only standby answered (failover)",
}

FULL_DISK: Final = ("database or disk is full", "no space left on device")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """*exc*, its causes and contexts, and the driver errors SQLAlchemy wraps (``orig``)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        orig = getattr(current, "orig", None)
        todo.extend([current.__cause__, current.__context__])
        if isinstance(orig, BaseException):
            todo.append(orig)


def unreachable_reason(exc: BaseException) -> str | None:
    """Why the database cannot be reached, if that is what *exc* says; ``None`` otherwise
    (a full disk is never "unreachable": see :func:`full_disk`)."""
    if full_disk(exc):
        return None
    for link in _chain(exc):
        if isinstance(link, ConnectionError):
            return "the connection was lost"
        state = getattr(link, "sqlstate", None)
        if isinstance(state, str) and state in UNREACHABLE_SQLSTATES:
            return UNREACHABLE_SQLSTATES[state]
        text = str(link).lower()
        for fragment, reason in UNREACHABLE:
            if fragment in text and not _sqlite_missing_file(link, fragment):
                return reason
    return None


def _sqlite_missing_file(link: BaseException, fragment: str) -> bool:
    """A "no such file" from SQLite (a deleted data directory) is no outage to wait out."""
    return fragment == "no such file or directory" and "sqlite" in type(link).__module__


def full_disk(exc: BaseException) -> bool:
    """Whether *exc* says the disk (or the quota) under the database is full."""
    for link in _chain(exc):
        if isinstance(link, OSError) and link.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(link).lower()
        if any(fragment in text for fragment in FULL_DISK):
            return True
    return False


class DatabaseFull(StorageError):
    """Storing failed on a full disk: the runner stops (waiting frees no space)."""


def mount_point(path: Path) -> Path:
    """The mount point of the filesystem holding *path* (or its nearest existing parent)."""
    current = path.resolve()
    while not current.exists() and current != current.parent:
        current = current.parent
    while not os.path.ismount(current) and current != current.parent:
        current = current.parent
    return current


def full_disk_message(engine: Engine, exc: BaseException) -> str:
    """The one line for a full disk: which filesystem, how much is free, what is kept."""
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database and not database.startswith(":memory:"):
        place = Path(database)
        mount = mount_point(place)
        try:
            free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
            room = f" ({free // 1024} KiB free)"
        except OSError:
            room = ""
        where = f"the filesystem {mount} holding {place} is full{room}"
    else:
        where = "the database server's disk is full"
    del exc  # the driver's words add nothing to "full"
    return f"{where}: nothing more was written (the database is intact); free some space"
