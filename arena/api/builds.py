"""Submissions built in the background, a bounded number at once.

``POST /api/v1/bots`` answers 202 as soon as the archive is unpacked and its submission
row started; the build and smoke game (:func:`arena.submission.submit_bot`, minutes at
worst) run here, on a pool of ``builds`` threads (one by default: a build and a smoke game
already use the machine's sandbox and CPU). Before anything is read, a request takes a
place (:meth:`Builds.reserve`):

* each user has at most one submission queued or building in this server (409
  ``submission_running``): a script that loops on submit waits for its verdicts;
* at most ``builds + build_queue`` are accepted at once (503 ``busy``), which also bounds
  the archives held in memory and unpacked on disk.

A place is given back when its build ends, whatever the outcome, or when the request is
refused before its build. At shutdown the queued builds are cancelled and their rows
finished as ``interrupted`` (the author submits again); a build already running finishes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType

from sqlalchemy.engine import Engine

from arena.api.errors import ApiError
from arena.storage import submissions
from arena.storage.database import StorageError

LOGGER = logging.getLogger(__name__)


class Builds:
    """The pool, its places, and the submissions it holds."""

    def __init__(self, engine: Engine, *, builds: int, queue: int) -> None:
        self._engine = engine
        self._executor = ThreadPoolExecutor(max_workers=builds, thread_name_prefix="arena-build")
        self._capacity = builds + queue
        self._lock = threading.Lock()
        self._users: dict[int, int | None] = {}
        """Each user's place: its submission's id once started, ``None`` before."""
        self._submissions: set[int] = set()
        self._closed = False

    @property
    def held(self) -> frozenset[int]:
        """The submissions queued or building here (never abandoned, whatever their age)."""
        with self._lock:
            return frozenset(self._submissions)

    def reserve(self, user_id: int) -> Place:
        """A place for one submission of *user_id*.

        A place whose submission row is already finished counts as free: the build's
        thread gives the place back only after :func:`arena.submission.submit_bot` has
        finished the row, so a script that submits again as soon as it reads the verdict
        would otherwise meet its own previous submission.

        :raises ApiError: 409 ``submission_running`` if the user has one here already,
            503 ``busy`` if every place is taken or the server is stopping.
        """
        with self._lock:
            held = self._users.get(user_id)
        if held is not None and self._row_finished(held):
            with self._lock:
                if self._users.get(user_id) == held:
                    del self._users[user_id]
        with self._lock:
            if user_id in self._users:
                raise ApiError(
                    409,
                    "submission_running",
                    "your previous submission is still being built: wait for its verdict",
                )
            if self._closed or len(self._users) >= self._capacity:
                raise ApiError(
                    503, "busy", "the arena is building other submissions: try again later"
                )
            self._users[user_id] = None
        return Place(self, user_id)

    def _row_finished(self, submission_id: int) -> bool:
        try:
            row = submissions.get_submission(self._engine, submission_id)
        except StorageError:
            return False  # unknown: keep the place, the build's end gives it back
        return row is not None and row.outcome != "running"

    def _start(self, place: Place, submission_id: int, job: Callable[[], None]) -> None:
        with self._lock:
            self._submissions.add(submission_id)
            self._users[place.user_id] = submission_id
        try:
            future = self._executor.submit(job)
        except RuntimeError:  # shut down meanwhile
            self._finished(place, submission_id, None)
            return
        future.add_done_callback(lambda done: self._finished(place, submission_id, done))

    def _finished(self, place: Place, submission_id: int, done: Future[None] | None) -> None:
        if done is None or done.cancelled():
            _interrupt(self._engine, submission_id)
            place.cleanup()
        with self._lock:
            self._submissions.discard(submission_id)
            if self._users.get(place.user_id) == submission_id:  # not a newer place's
                del self._users[place.user_id]

    def _release(self, user_id: int) -> None:
        with self._lock:
            if user_id in self._users and self._users[user_id] is None:
                del self._users[user_id]

    def shutdown(self) -> None:
        """Refuse new places, cancel the queued builds (finished as interrupted) and let
        the running ones end on their own."""
        with self._lock:
            self._closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)


class Place:
    """One reserved place: given back by :meth:`start`'s build when it ends, or at the end
    of the ``with`` block if no build was started (a refusal)."""

    def __init__(self, builds: Builds, user_id: int) -> None:
        self._builds = builds
        self.user_id = user_id
        self._started = False
        self._cleanup: Callable[[], None] = lambda: None

    def start(
        self, submission_id: int, job: Callable[[], None], cleanup: Callable[[], None]
    ) -> None:
        """Queue *job* (it finishes row *submission_id* and calls *cleanup* itself);
        *cleanup* alone runs if it is cancelled before it starts."""
        self._started = True
        self._cleanup = cleanup
        self._builds._start(self, submission_id, job)

    def cleanup(self) -> None:
        try:
            self._cleanup()
        except Exception:
            LOGGER.exception("could not clean up a cancelled build")

    def __enter__(self) -> Place:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self._started:
            self._builds._release(self.user_id)


def _interrupt(engine: Engine, submission_id: int) -> None:
    """Finish a submission whose build never ran."""
    try:
        submissions.finish_submission(
            engine,
            submission_id,
            outcome="interrupted",
            message=submissions.INTERRUPTED_MESSAGE,
        )
    except Exception:
        LOGGER.exception("could not finish submission %s as interrupted", submission_id)


__all__ = ["Builds", "Place"]
