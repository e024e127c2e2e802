"""The test-match queue: the next request to play, claiming it, its private tournament
(named ``test match #<id>``) and its end, and the lock that lets one queue runner play at a
time (a lock its holder's death releases, as :mod:`arena.storage.runner_lock` does for a
tournament), so the arena-wide cap on test games at once holds."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from sqlalchemy import Engine, text
from sqlmodel import col, select

from arena.storage.database import StorageError, database_errors, read_session, write_session
from arena.storage.models import TestMatch, Tournament, utcnow

TEST_MATCH_PREFIX: Final = "test match #"
"""A test match's private tournament is named ``test match #<id>``."""


class QueueBusy(StorageError):
    """Another queue runner holds the test-match queue."""


def match_id(match: TestMatch) -> int:
    """The id of a stored test match."""
    if match.id is None:
        raise StorageError("the test match is not stored")
    return match.id


def tournament_name(test_match_id: int) -> str:
    """The name of test match *test_match_id*'s private tournament."""
    return f"{TEST_MATCH_PREFIX}{test_match_id}"


# ------------------------------------------------------------------------- the queue


@database_errors
def next_test_match(engine: Engine) -> TestMatch | None:
    """The match the queue runner plays next: one left running by a runner that died
    (to resume it), else the oldest queued one."""
    with read_session(engine) as session:
        for status in ("running", "queued"):
            found = session.exec(
                select(TestMatch).where(TestMatch.status == status).order_by(col(TestMatch.id))
            ).first()
            if found is not None:
                return found
    return None


@database_errors
def get_test_match(engine: Engine, test_match_id: int) -> TestMatch | None:
    """The test match with this id, or ``None``."""
    with read_session(engine) as session:
        return session.get(TestMatch, test_match_id)


@database_errors
def claim_test_match(engine: Engine, test_match_id: int) -> bool:
    """Mark the match running for the queue runner (it stays running if a dead runner left
    it so); ``False`` if it was cancelled or finished meanwhile."""
    with write_session(engine) as session:
        match = session.get(TestMatch, test_match_id)
        if match is None or match.status not in ("queued", "running"):
            return False
        match.status = "running"
        match.started_at = match.started_at or utcnow()
        session.add(match)
        session.commit()
    return True


@database_errors
def attach_tournament(engine: Engine, test_match_id: int, tournament_id: int) -> None:
    """Record the private tournament the match plays in.

    :raises StorageError: for an unknown match.
    """
    with write_session(engine) as session:
        match = session.get(TestMatch, test_match_id)
        if match is None:
            raise StorageError(f"no test match #{test_match_id}")
        match.tournament_id = tournament_id
        session.add(match)
        session.commit()


@database_errors
def finish_test_match(engine: Engine, test_match_id: int, status: str, message: str = "") -> None:
    """Mark the match ``played`` or ``failed`` (with a one-line *message*)."""
    if status not in ("played", "failed"):
        raise StorageError(f"a test match finishes played or failed, not {status!r}")
    with write_session(engine) as session:
        match = session.get(TestMatch, test_match_id)
        if match is None:
            raise StorageError(f"no test match #{test_match_id}")
        match.status, match.finished_at = status, utcnow()
        match.message = " ".join(message.split())[:500]
        session.add(match)
        session.commit()


@database_errors
def private_tournament(engine: Engine, match: TestMatch) -> Tournament | None:
    """The private tournament *match* plays in: the one it recorded, else one a runner
    made before it died (found by its name and requester), else ``None``."""
    with read_session(engine) as session:
        if match.tournament_id is not None:
            return session.get(Tournament, match.tournament_id)
        return session.exec(
            select(Tournament)
            .where(Tournament.name == tournament_name(match_id(match)))
            .where(Tournament.private_to == match.requested_by)
        ).first()


# -------------------------------------------------------------------------- the lock

QUEUE_ADVISORY_KEYS: Final = (952_0953, 0)
"""The two-key advisory lock of the queue (a class of its own beside the runners')."""


def queue_busy_message() -> str:
    """The one line a second queue runner gets."""
    return (
        "another queue runner (`arena queue run`, `arena bot test` or the dashboard's) is "
        "playing the test-match queue; it plays every queued match in turn"
    )


@contextlib.contextmanager
def queue_lock(engine: Engine) -> Iterator[None]:
    """Hold the test-match queue's lock while the block runs: one queue runner at a time,
    released when its holder dies (``flock`` on SQLite, an advisory lock on PostgreSQL).

    :raises QueueBusy: if another queue runner holds it.
    :raises StorageError: if the lock cannot be taken for another reason.
    """
    if engine.dialect.name == "postgresql":
        keys = {"cls": QUEUE_ADVISORY_KEYS[0], "id": QUEUE_ADVISORY_KEYS[1]}
        with engine.connect() as plain:
            connection = plain.execution_options(isolation_level="AUTOCOMMIT")
            taken = connection.execute(
                text("SELECT pg_try_advisory_lock(:cls, :id)"), keys
            ).scalar()
            if not taken:
                raise QueueBusy(queue_busy_message())
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:cls, :id)"), keys)
        return
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        yield  # one process only: nothing to lock
        return
    folder = Path(database).with_name(Path(database).name + ".locks")
    try:
        folder.mkdir(exist_ok=True)
        descriptor = os.open(folder / "test-queue.lock", os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        raise StorageError(
            f"cannot lock the test-match queue in {folder}: {exc.strerror}"
        ) from None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise QueueBusy(queue_busy_message()) from None
        yield
    finally:
        os.close(descriptor)


def queue_runner_busy(engine: Engine) -> bool:
    """Whether a queue runner holds the queue now (the lock is taken and let go at once)."""
    try:
        with queue_lock(engine):
            return False
    except QueueBusy:
        return True
