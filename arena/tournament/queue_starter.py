"""Starting the test-match queue runner from a server: ``arena queue run --once`` in a
detached process, unless a queue runner already holds the queue.

The dashboard and the HTTP API both queue test matches (:mod:`arena.storage.test_matches`)
and then call :func:`start_queue_runner`, so a match requested either way is played by the
same command as ``arena queue run``, never in the server's own process, and keeps being
played if the server stops. One queue runner plays at a time (its lock), and a request
stored while the holder finishes is not lost: the holder looks at the queue again after
letting it go (:func:`arena.tournament.test_matches.run_queue`).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Engine

from arena.storage import test_matches
from arena.storage.database import StorageError

LOGGER = logging.getLogger(__name__)

LOG_NAME: Final = "test-queue.log"
"""The runners' output, appended under the data directory's ``logs``."""
_STARTED: list[subprocess.Popen[bytes]] = []
_LOCK = threading.Lock()


class QueueStartError(StorageError):
    """The match is queued, but no queue runner could be started; one line."""


def start_queue_runner(engine: Engine, database_url: str, data_dir: Path) -> int | None:
    """Start ``arena queue run --once`` as a detached process unless a queue runner holds
    the queue; its pid, or ``None`` when one is already playing.

    The database URL and data directory go through ``ARENA_DB``/``ARENA_DATA``, never the
    command line, where a password would show in ``ps``.

    :raises QueueStartError: if the queue's lock cannot be read or the process not started.
    """
    with _LOCK:
        _STARTED[:] = [p for p in _STARTED if p.poll() is None]  # reap the ended
        try:
            if test_matches.queue_runner_busy(engine):
                return None
        except StorageError as exc:
            raise QueueStartError(
                f"the test match is queued, but no runner started: {exc}"
            ) from None
        env = dict(os.environ, ARENA_DB=database_url, ARENA_DATA=str(data_dir))
        env.pop("STREAMLIT_SERVER_PORT", None)
        try:
            logs = data_dir / "logs"
            logs.mkdir(parents=True, exist_ok=True)
            with (logs / LOG_NAME).open("ab") as out:
                process = subprocess.Popen(
                    [sys.executable, "-m", "arena.cli", "queue", "run", "--once"],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,  # detached: it finishes the queue if the server stops
                )
        except OSError as exc:
            raise QueueStartError(
                f"the test match is queued, but no runner started: {exc.strerror or exc}"
            ) from None
        _STARTED.append(process)
        LOGGER.info("started the test-match queue runner (pid %d)", process.pid)
        return process.pid


__all__ = ["QueueStartError", "start_queue_runner"]
