"""Riding out a database outage: wait with capped exponential backoff, say so, carry on.

A managed PostgreSQL restarts for upgrades and fails over without warning; three seconds
without a database used to end a run that had hours left. Now the run loop
(:mod:`arena.tournament.loop`) does every database call of a run through
:meth:`OutageWait.call`: an error that says the database cannot be reached
(:func:`arena.storage.outage.unreachable_reason`) is waited out, and anything else goes
on up as before.

How it waits, and why:

* **capped exponential backoff with jitter** (:meth:`RetryPolicy.waits`): the first retry
  comes soon (a restart takes seconds), later ones every :attr:`RetryPolicy.max_wait` at
  most, so a server that comes back is found quickly without being hammered meanwhile; the
  jitter ("equal jitter": half the step fixed, half random) keeps several runners that lost
  the same server from knocking in step;
* **one line per wait** (``database unreachable (connection refused); retrying in 4 s,
  giving up in 2 min 50 s``): an operator watching sees what the runner waits for and for
  how long;
* **a limit** (:attr:`RetryPolicy.retry_for`, ``--db-retry-for``): an outage longer than
  that is not one to wait out unattended; the run stops with :class:`DatabaseGone` (the
  CLI exits 75, EX_TEMPFAIL: try again later), and a later run resumes;
* **a probe before each retry** (*probe*: the loop retakes its runner lock there), so the
  retried call finds both the database and the lock back.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar

from arena.storage.database import StorageError
from arena.storage.outage import unreachable_reason

LOGGER = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_RETRY_FOR: Final = 180.0
"""How long a run waits for its database by default (3 min: longer than a managed
PostgreSQL's restart or failover, which take seconds to a minute or two)."""
RETRY_FOR_ENV: Final = "ARENA_DB_RETRY_FOR"
"""The environment variable of ``--db-retry-for`` (seconds)."""
EX_TEMPFAIL: Final = 75
"""sysexits.h: a temporary failure, try again later; a later run resumes."""


@dataclass(frozen=True)
class RetryPolicy:
    """How long, and how often, to try a database that cannot be reached."""

    retry_for: float = DEFAULT_RETRY_FOR
    """Seconds from the first failure of an outage until the run gives up (0: at once,
    the old behaviour)."""
    first_wait: float = 0.5
    """The first step of the backoff, in seconds."""
    max_wait: float = 15.0
    """The cap of the backoff, in seconds."""

    def wait(self, attempt: int, rng: random.Random) -> float:
        """The pause before retry *attempt* (0, 1, ...): half the capped exponential step,
        plus up to as much again at random."""
        step = min(self.max_wait, self.first_wait * 2.0**attempt)
        return step / 2 + rng.uniform(0, step / 2)


def policy_from_env(retry_for: float | None = None) -> RetryPolicy:
    """The policy for *retry_for* seconds, else ``$ARENA_DB_RETRY_FOR``, else the default.

    :raises ValueError: for a value that is not a number of seconds >= 0.
    """
    if retry_for is None:
        text = os.environ.get(RETRY_FOR_ENV, "").strip()
        try:
            retry_for = float(text) if text else DEFAULT_RETRY_FOR
        except ValueError:
            raise ValueError(f"{RETRY_FOR_ENV}={text!r} is not a number of seconds") from None
    if not retry_for >= 0:
        raise ValueError(f"{retry_for} is not a number of seconds >= 0")
    return RetryPolicy(retry_for=retry_for)


def default_policy() -> RetryPolicy:
    """:func:`policy_from_env` for the runs that have no ``--db-retry-for`` (a test match,
    a dashboard's runner): a malformed ``$ARENA_DB_RETRY_FOR`` is reported and the default
    used, rather than failing a run over its patience."""
    try:
        return policy_from_env()
    except ValueError:
        LOGGER.warning(
            "%s=%r is not a number of seconds; waiting %s for the database",
            RETRY_FOR_ENV,
            os.environ.get(RETRY_FOR_ENV),
            duration(DEFAULT_RETRY_FOR),
        )
        return RetryPolicy()


class DatabaseGone(StorageError):
    """The database stayed unreachable past the retry limit: stop, resume later."""


def duration(seconds: float) -> str:
    """``4 s``, ``2 min 50 s``, ``1 h 5 min``: how the wait lines say a duration."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


@dataclass
class OutageWait:
    """Waits database outages out for one run (see the module).

    *say* gets each wait's line (the CLI shows it above its progress bar); *probe* is
    called before every retry (the run loop retakes its runner lock there; an outage in
    the probe is waited out like one in the call).
    """

    policy: RetryPolicy = field(default_factory=default_policy)
    say: Callable[[str], None] = LOGGER.warning
    probe: Callable[[], None] = lambda: None
    rng: random.Random = field(default_factory=random.Random)
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    outages: int = 0
    """Outages waited out so far (diagnostics, the benchmark)."""
    waited: float = 0.0
    """Seconds spent waiting, all outages together."""
    in_outage: bool = False
    """Whether the last call met an outage (the loop then treats a game found already
    stored as its own, committed just before the connection died)."""

    async def call(self, operation: Callable[[], T], what: str = "the database") -> T:
        """*operation*'s result, retried across an outage (see :meth:`call_async`)."""

        async def now() -> T:
            return operation()

        return await self.call_async(now, what)

    async def call_async(
        self, operation: Callable[[], Awaitable[T]], what: str = "the database"
    ) -> T:
        """*operation*'s result, retried across an outage; *what* it was doing is named
        in the line of a run that gives up.

        :raises DatabaseGone: if the database stays unreachable past the limit.
        :raises arena.storage.StorageError: for any other database error, at once.
        """
        attempt, began = 0, 0.0
        while True:
            try:
                if attempt:
                    self.probe()
                result = await operation()
            except StorageError as exc:
                reason = unreachable_reason(exc)
                if reason is None:
                    raise
                now = self.clock()
                if not attempt:
                    began = now
                    self.outages += 1
                    self.in_outage = True
                left = began + self.policy.retry_for - now
                if left <= 0:
                    raise DatabaseGone(self.gone_message(reason, what)) from None
                pause = min(self.policy.wait(attempt, self.rng), left)
                self.say(
                    f"database unreachable ({reason}); retrying in {duration(pause)}, "
                    f"giving up in {duration(left)}"
                )
                await self.sleep(pause)
                self.waited += pause
                attempt += 1
                continue
            if attempt:
                self.say(f"database reachable again after {duration(self.clock() - began)}")
            self.in_outage = False
            return result

    def gone_message(self, reason: str, what: str) -> str:
        """The one line of a run that gives up."""
        limit = duration(self.policy.retry_for)
        waited = f"for {limit}" if self.policy.retry_for else "(--db-retry-for 0: no wait)"
        return f"database unreachable ({reason}) {waited} while storing {what}"
