"""The HTTP API's settings: its limits and its background builds, from ``ARENA_API_*``.

Every limit has a default that suits a club's arena on one machine; an organiser changes
one with its environment variable (docs/api.md lists them). A value that is not a number
in range stops ``arena api`` with one line naming the variable, never a server that runs
with a limit nobody meant.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Final

from arena.archive import MAX_ARCHIVE_BYTES

PRIVATE_VARIABLE: Final = "ARENA_DASHBOARD_PRIVATE"
"""The dashboard's private mode: the API's public routes then want a token too."""
KIB: Final = 1024
SMOKE_GAME_BOUND_S: Final = 600.0
"""The longest a smoke game may take (one game of one bot against two random players:
its decisions at 1 s each, its bank, its start-up), generously: part of the bound after
which a ``running`` submission of a dead server is surely abandoned."""


@dataclass(frozen=True, slots=True)
class Rate:
    """A token bucket's shape: *burst* requests at once, then *per_second*."""

    burst: int
    per_second: float


@dataclass(frozen=True)
class ApiSettings:
    """What ``arena api`` allows each caller, and how it builds submissions."""

    read_burst: int = 60
    """Requests one token may make in a burst (reads, and every route but the two below)..."""
    read_per_second: float = 10.0
    """...and then at this steady rate."""
    write_burst: int = 5
    """Submissions and test-match requests one token may make in a burst..."""
    write_per_second: float = 0.1
    """...and then at this steady rate (one every 10 s)."""
    client_burst: int = 30
    """Requests without a token (health, standings, games) from one client key..."""
    client_per_second: float = 5.0
    """...and then at this steady rate."""
    max_body: int = 64 * KIB
    """The largest request body, but for a submission's."""
    max_archive_body: int = MAX_ARCHIVE_BYTES + 64 * KIB
    """The largest body of ``POST /api/v1/bots``: the archive and its multipart framing."""
    builds: int = 1
    """Submissions built at once (each builds a bot and plays a smoke game)."""
    build_queue: int = 4
    """Accepted submissions that may wait for a build; beyond, 503 busy."""
    build_timeout_s: float = 600.0
    """A bot's build step's time limit (``arena bot submit``'s)."""
    sweep_every_s: float = 300.0
    """How often submissions abandoned by a stopped server are looked for."""
    connections: int = 200
    """Connections (and requests in progress) at once; beyond, the server answers 503
    before any route runs (uvicorn's ``limit_concurrency``)."""
    keep_alive_s: int = 5
    """An idle kept-alive connection is closed after this long."""
    max_header_bytes: int = 32 * KIB
    """The request line and headers together; a larger head is refused unread."""
    tracked_callers: int = 10_000
    """Rate-limit buckets kept (tokens and client keys); the least recently used go first."""
    private: bool = False
    """Public routes want a token with the ``read`` scope (``ARENA_DASHBOARD_PRIVATE``)."""

    def rate(self, kind: str) -> Rate:
        """The bucket of *kind*: ``read``, ``write`` or ``client``."""
        if kind == "write":
            return Rate(self.write_burst, self.write_per_second)
        if kind == "client":
            return Rate(self.client_burst, self.client_per_second)
        return Rate(self.read_burst, self.read_per_second)

    @property
    def abandoned_after_s(self) -> float:
        """How old a ``running`` API submission must be before no live server can still be
        working on it: its wait behind a full queue (each build ahead of it, at most
        ``build_queue / builds`` rounds) and its own build and smoke game."""
        rounds = 1 + math.ceil(self.build_queue / self.builds)
        return rounds * (self.build_timeout_s + SMOKE_GAME_BOUND_S)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> ApiSettings:
        """The defaults, with each ``ARENA_API_<FIELD>`` (upper case) that is set, and
        :data:`PRIVATE_VARIABLE`.

        :raises ValueError: one line naming the variable whose value is out of range.
        """
        env = os.environ if environ is None else environ
        changes: dict[str, Any] = {}
        for field in fields(cls):
            if field.name == "private":
                continue
            variable = f"ARENA_API_{field.name.upper()}"
            raw = env.get(variable, "").strip()
            if raw:
                changes[field.name] = _number(variable, raw, getattr(cls, field.name))
        changes["private"] = env.get(PRIVATE_VARIABLE, "").strip().lower() in {
            "1", "true", "yes", "on"
        }  # fmt: skip
        return replace(cls(), **changes)


def _number(variable: str, raw: str, default: int | float) -> int | float:
    """*raw* as the type of *default*, positive and below a billion.

    :raises ValueError: naming *variable*.
    """
    kind = "a whole number" if isinstance(default, int) else "a number"
    try:
        value: int | float = int(raw) if isinstance(default, int) else float(raw)
    except ValueError:
        value = math.nan
    if not (0 < value < 1e9):  # also refuses nan and inf
        raise ValueError(f"${variable} must be {kind} above 0 and below 1e9, got {raw[:40]!r}")
    return value


__all__ = ["PRIVATE_VARIABLE", "SMOKE_GAME_BOUND_S", "ApiSettings", "Rate"]
