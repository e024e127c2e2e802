"""Submissions an API server left ``running`` when it died are finished as ``interrupted``.

A server killed during a build (an out-of-memory kill, a host's reboot, ``docker stop``
past its grace period) cannot finish its rows, and nothing else would: they would read as
running for ever. So every ``arena api`` looks, when it starts and then every
``sweep_every_s``, for ``via="api"`` rows still running that started longer ago than
:attr:`~arena.api.settings.ApiSettings.abandoned_after_s` (a full queue's wait, the longest
build and a smoke game: no live server can still be working on them) and are not its own,
and finishes them as interrupted. ``interrupted`` never counts against a quota
(:data:`arena.storage.submissions.COSTLY`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection
from datetime import timedelta

from sqlalchemy.engine import Engine

from arena.storage import submissions
from arena.storage.models import utcnow

LOGGER = logging.getLogger(__name__)

VIA = "api"


def sweep(engine: Engine, abandoned_after_s: float, keep: Collection[int] = ()) -> list[int]:
    """Finish the abandoned API submissions (not those in *keep*); their ids. A database
    failure is logged, not raised: the next sweep tries again."""
    started_before = utcnow() - timedelta(seconds=abandoned_after_s)
    try:
        return submissions.interrupt_stale_submissions(
            engine, via=VIA, started_before=started_before, keep=keep
        )
    except Exception:
        LOGGER.exception("could not look for abandoned submissions")
        return []


class Sweeper:
    """:func:`sweep` now and then every *every_s* seconds, in a thread of its own."""

    def __init__(
        self,
        engine: Engine,
        abandoned_after_s: float,
        every_s: float,
        keep: Callable[[], Collection[int]],
    ) -> None:
        self._engine = engine
        self._after = abandoned_after_s
        self._every = every_s
        self._keep = keep
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arena-api-sweep", daemon=True)

    def start(self) -> list[int]:
        """Sweep once (before the server takes requests), then start the periodic sweeps;
        the ids finished now."""
        finished = sweep(self._engine, self._after, self._keep())
        self._thread.start()
        return finished

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            sweep(self._engine, self._after, self._keep())


__all__ = ["VIA", "Sweeper", "sweep"]
