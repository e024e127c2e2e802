"""The live feed between a worker and the runner: throttled public views of games in play.

The referee's game loop tells a feed the public view of its game after every decision
(:attr:`arena.referee.gameloop.GameLoop.on_public`; only public facts ever leave it). A
worker must not flood its runner, so :class:`Coalescer` sends at most one view per
:data:`LIVE_INTERVAL_S` per game, always the newest, and the last one a little later if
the game goes quiet (a slow bot thinking): an onlooker sees every decision within
``LIVE_INTERVAL_S`` plus the dashboard's poll. The runner stores them
(:mod:`arena.storage.live`). ``ARENA_LIVE=0`` turns the feed off (docs/live.md).
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from arena.tournament.jobs import GameJob

LIVE_INTERVAL_S: Final = 0.5
"""Least time between two live messages of one game (the runner writes one row each)."""

LiveCallback = Callable[[GameJob, dict[str, Any], float], Awaitable[None] | None]
"""Told, in the runner, a job's newest public view and when (``time.time()``) the referee
made it, right after the decision it shows."""


def live_enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether runs publish their games in play: yes unless ``ARENA_LIVE`` is ``0``,
    ``false``, ``no`` or ``off``."""
    return environ.get("ARENA_LIVE", "1").strip().lower() not in {"0", "false", "no", "off"}


class Coalescer:
    """Passes the newest of many views to *send*, at most once per *interval* seconds.

    A view that arrives inside the interval waits for its end (a timer on the running
    loop), replaced by any newer one meanwhile. :meth:`close` drops what still waits, so
    nothing of a game is sent after its reply.
    """

    def __init__(
        self, send: Callable[[dict[str, Any], float], None], interval: float = LIVE_INTERVAL_S
    ) -> None:
        self.send = send
        self.interval = interval
        self._latest: dict[str, Any] | None = None
        self._at = 0.0
        """When the newest view was made (wall clock: the runner, on the same machine,
        measures the feed's delay from it)."""
        self._sent_at = -math.inf
        self._timer: asyncio.TimerHandle | None = None

    def __call__(self, view: dict[str, Any]) -> None:
        self._latest, self._at = view, time.time()
        if self._timer is not None:
            return
        wait = self._sent_at + self.interval - time.monotonic()
        if wait <= 0:
            self._flush()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self._flush)

    def _flush(self) -> None:
        self._timer = None
        view, self._latest = self._latest, None
        if view is not None:
            self._sent_at = time.monotonic()
            self.send(view, self._at)

    def close(self) -> None:
        """Send nothing more."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._latest = None
