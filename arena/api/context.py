"""What every route of one API server shares: the database, the data directory, the
settings, the rate limiter and the build pool (kept on ``app.state``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fastapi import Request
from sqlalchemy.engine import Engine

from arena.api.builds import Builds
from arena.api.limits import RateLimiter
from arena.api.settings import ApiSettings

QueueStarter = Callable[[Engine, str, Path], int | None]
"""Starts the test-match queue runner (:func:`arena.tournament.queue_starter.start_queue_runner`)."""


@dataclass(frozen=True)
class ApiContext:
    engine: Engine
    data_dir: Path
    database_url: str
    """Handed to the queue runner it starts (through its environment, never its arguments)."""
    settings: ApiSettings
    limiter: RateLimiter
    builds: Builds
    start_queue_runner: QueueStarter


def context(request: Request) -> ApiContext:
    """The server's :class:`ApiContext` (a dependency of every route)."""
    found = request.app.state.arena
    assert isinstance(found, ApiContext)
    return found


__all__ = ["ApiContext", "QueueStarter", "context"]
