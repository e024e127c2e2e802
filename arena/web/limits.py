"""The cost one visitor may put on a web server.

Every dashboard session is a websocket and a script run on the server, with its own
memory, so one client opening sessions as fast as it can (150 in 4 s, each with a 64 KiB
query string) once slowed every other visitor's page from 0.7 s to 13-18 s. The limits:

* **sessions at once**, per client key and for the whole server;
* **new sessions**, per client key: a token bucket (a burst, then a steady rate), so
  reloading in a loop costs the reloader, not the others;
* **messages** on a session's websocket, per client key: past the burst, the server
  reads that client's next message later (the others' are not delayed);
* **sizes**: the request target, the query string, and the headers.

All counters are kept per client key (:func:`arena.web.clients.client_key`) and forgotten
once a client is idle, so many clients cannot grow them without bound. Thread-safe; the
clock is injectable for tests.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

LIMIT_VARIABLES: Final = {
    "sessions_per_client": ("ARENA_DASHBOARD_SESSIONS_PER_CLIENT", 1),
    "sessions": ("ARENA_DASHBOARD_MAX_SESSIONS", 1),
    "refusal_delay_s": ("ARENA_DASHBOARD_REFUSAL_DELAY_S", 0),
}
"""The limits an organiser may change from the environment (whole numbers, at least the
minimum given)."""
MAX_CLIENTS_TRACKED: Final = 10_000
"""Idle clients are forgotten once more than this many are tracked."""


@dataclass(frozen=True)
class VisitorLimits:
    """What one client key may use of the dashboard's server."""

    sessions_per_client: int = 30
    """Websockets (browser tabs) open at once from one client key. A class or a club
    behind one NAT shares a key, so this is a room's worth, not one person's."""
    sessions: int = 500
    """Websockets open at once on the whole server."""
    new_sessions_burst: int = 30
    """New websockets one client key may open in a burst (a room opening the page)..."""
    new_sessions_per_minute: float = 60.0
    """...and then at this steady rate."""
    messages_burst: int = 100
    """Websocket messages (clicks, widget changes) one client key may send in a burst..."""
    messages_per_second: float = 20.0
    """...and then at this steady rate; faster ones wait (a room clicking now and then
    stays below it; a script asking for reruns in a loop does not)..."""
    message_wait_s: float = 1.0
    """...for at most this long: a session whose message would wait longer is ended (an
    unbounded wait kept a flooder's sessions, and their memory, alive for hours)."""
    max_target_bytes: int = 8192
    """The request's path and query string together."""
    max_query_bytes: int = 2048
    """The query string alone (the dashboard's links use a few dozen bytes)."""
    max_header_bytes: int = 32768
    """All header names and values together (cookies included)."""
    max_headers: int = 64
    """Header lines."""
    refusal_delay_s: float = 2.0
    """A refused session's answer waits this long, so a client retrying at once retries
    at most this often per connection (and a flood costs the flooder its sockets)..."""
    held_refusals_per_client: int = 32
    """...for this many of one client's refused sessions at a time; beyond, refused at once."""

    @classmethod
    def from_environment(cls) -> VisitorLimits:
        """The defaults, with the variables of :data:`LIMIT_VARIABLES` where set.

        :raises ValueError: one line, for a value that is not a whole number above 0.
        """
        changes: dict[str, int] = {}
        for name, (variable, least) in LIMIT_VARIABLES.items():
            raw = os.environ.get(variable, "").strip()
            if not raw:
                continue
            if not raw.isascii() or not raw.isdigit() or int(raw) < least or len(raw) > 6:
                raise ValueError(
                    f"${variable} must be a whole number from {least} to 999999, got {raw[:40]!r}"
                )
            changes[name] = int(raw)
        return cls(**changes)

    def describe(self) -> str:
        """The limits in one sentence (for reports)."""
        return (
            f"{self.sessions_per_client} sessions at once ({self.sessions} on the server), "
            f"{self.new_sessions_burst} new ones in a burst then "
            f"{self.new_sessions_per_minute:g} a minute, {self.messages_burst} messages in a "
            f"burst then {self.messages_per_second:g} a second (a session that sends faster "
            f"for {self.message_wait_s:g} s is ended); requests up to "
            f"{self.max_target_bytes} bytes of address ({self.max_query_bytes} of query) and "
            f"{self.max_header_bytes} of headers ({self.max_headers} lines); a refused "
            f"session is answered after {self.refusal_delay_s:g} s"
        )


class TokenBucket:
    """*capacity* tokens, refilled at *rate* per second; not thread-safe on its own."""

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = capacity
        self.updated = now

    def take(self, now: float) -> float:
        """Take one token: 0 if there was one, else the seconds until there is (nothing
        is taken then)."""
        self._refill(now)
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate

    def reserve(self, now: float) -> float:
        """Take one token, going into debt if needed: the seconds to wait before using it
        (so waiting callers queue up instead of all retrying at once)."""
        self._refill(now)
        self.tokens -= 1
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.capacity

    def _refill(self, now: float) -> None:
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now


class SessionGate:
    """Admits websockets within :class:`VisitorLimits`, and paces their messages."""

    def __init__(
        self,
        limits: VisitorLimits,
        clock: Callable[[], float] = time.monotonic,
        max_tracked: int = MAX_CLIENTS_TRACKED,
    ) -> None:
        self.limits = limits
        self._clock = clock
        self._max_tracked = max_tracked
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}
        self._total = 0
        self._arrivals: dict[str, TokenBucket] = {}
        self._messages: dict[str, TokenBucket] = {}
        self._held: dict[str, int] = {}

    @property
    def open_sessions(self) -> int:
        """Websockets open now, on the whole server."""
        return self._total

    @property
    def tracked_clients(self) -> int:
        """Clients whose counters are kept now."""
        return len(self._arrivals.keys() | self._messages.keys())

    def admit(self, client: str) -> str | None:
        """Count a new websocket from *client*, or say why it is refused (it is then not
        counted)."""
        limits = self.limits
        with self._lock:
            now = self._clock()
            self._forget_idle(now)
            if self._total >= limits.sessions:
                return f"the server has {self._total} sessions open, its most"
            if self._open.get(client, 0) >= limits.sessions_per_client:
                return f"{limits.sessions_per_client} sessions are open from your address, its most"
            bucket = self._arrivals.get(client)
            if bucket is None:
                bucket = TokenBucket(
                    limits.new_sessions_burst, limits.new_sessions_per_minute / 60, now
                )
                self._arrivals[client] = bucket
            wait = bucket.take(now)
            if wait > 0:
                return f"too many new sessions from your address: wait {wait:.0f} s"
            self._open[client] = self._open.get(client, 0) + 1
            self._total += 1
            return None

    def release(self, client: str) -> None:
        """A websocket of *client* has closed."""
        with self._lock:
            left = self._open.get(client, 0) - 1
            if left > 0:
                self._open[client] = left
            else:
                self._open.pop(client, None)
            self._total = max(0, self._total - 1)

    def hold(self, client: str) -> bool:
        """May the refusal of one more of *client*'s sessions be held back (see
        ``refusal_delay_s``)? If so it is counted until :meth:`unhold`."""
        with self._lock:
            held = self._held.get(client, 0)
            if held >= self.limits.held_refusals_per_client:
                return False
            self._held[client] = held + 1
            return True

    def unhold(self, client: str) -> None:
        """A held refusal of *client* has been answered."""
        with self._lock:
            left = self._held.get(client, 0) - 1
            if left > 0:
                self._held[client] = left
            else:
                self._held.pop(client, None)

    def message_delay(self, client: str) -> float | None:
        """Seconds to wait before handing on a message from *client* (0 within its burst),
        or ``None`` when it would have to wait longer than ``message_wait_s``: the session
        is then to be ended, and the message is not counted."""
        limits = self.limits
        with self._lock:
            now = self._clock()
            bucket = self._messages.get(client)
            if bucket is None:
                bucket = TokenBucket(limits.messages_burst, limits.messages_per_second, now)
                self._messages[client] = bucket
            wait = bucket.reserve(now)
            if wait > limits.message_wait_s:
                bucket.tokens += 1  # not taken after all
                return None
            return wait

    def _forget_idle(self, now: float) -> None:
        """Drop the buckets of clients with no open session and full buckets, once too
        many are kept (a flood from many addresses must not grow memory for ever)."""
        if len(self._arrivals) + len(self._messages) <= self._max_tracked:
            return
        for buckets in (self._arrivals, self._messages):
            for client in [c for c, b in buckets.items() if c not in self._open and b.full(now)]:
                del buckets[client]
