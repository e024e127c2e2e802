"""The login throttle: which login attempts are checked, and which wait.

OWASP's Authentication Cheat Sheet asks to throttle failed logins per account and per
source, and warns that a lockout per account lets anyone lock out anyone. Its remedy,
"Slow Down Online Guessing Attacks with Device Cookies", is what this module does:

* A browser that has logged in as a user before holds a **device cookie** for it. Its
  attempts on that user are *trusted*: they are judged by that device's own failures only,
  with growing delays, so failures from anywhere else never keep it out. A stolen
  password does not make a device trusted: only a successful login does, and a new
  password forgets every device of the account.
* Every other attempt is *untrusted*, and waits if any of these holds (counted over
  ``window``, refused tries not counted, so every wait ends on its own):

  1. **pair**: its (account, client) pair has failed more than ``free_pair_failures``
     times since the pair last succeeded: a growing delay, doubling from one second up to
     ``window``;
  2. **client**: its client failed ``max_client_failures`` times, under any names;
  3. **account**: the account failed ``max_account_failures`` times from untrusted
     attempts of all clients together (a guessing attack spread over many addresses);
  4. **everywhere**: untrusted attempts failed ``max_global_failures`` times on the whole
     arena (credential stuffing over many accounts).

Where this departs from the cheat sheet: rules 3 and 4 still let an attacker delay a
user's login from a browser that has never logged in as them (a new machine, cleared
cookies) for as long as the attack lasts; the cheat sheet accepts the same for untrusted
clients. The user's usual browsers are never kept out.

The decision is pure (:func:`wait_for`); :mod:`arena.accounts.logins` counts the failures
(:func:`arena.storage.logins.failure_counts`) and records every verified attempt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from arena.storage.logins import FailureCounts, Tally


@dataclass(frozen=True)
class ThrottlePolicy:
    """The throttle's limits (OWASP's Authentication Cheat Sheet; see the module)."""

    window: timedelta = timedelta(minutes=15)
    """How far back failures count."""
    free_pair_failures: int = 3
    """Failures of one (account, client) pair, or of one trusted device, before delays."""
    max_client_failures: int = 20
    """Failures from one client under any names, before it waits."""
    max_account_failures: int = 10
    """Failures of one account from untrusted attempts of all clients together."""
    max_global_failures: int = 300
    """Failures from untrusted attempts on the whole arena."""

    def pair_delay(self, failures: int) -> timedelta:
        """How long an (account, client) pair waits after its *failures*-th failure."""
        beyond = failures - self.free_pair_failures
        if beyond <= 0:
            return timedelta(0)
        seconds = 2.0 ** min(beyond - 1, 30)
        return min(timedelta(seconds=seconds), self.window)


@dataclass(frozen=True)
class Wait:
    """An attempt refused without checking its password: why, and for how long."""

    reason: str
    """Whose failures: ``this name from your browser``, ``your address``, ..."""
    retry_after: timedelta

    def message(self) -> str:
        """One line for the person logging in."""
        seconds = max(1, math.ceil(self.retry_after.total_seconds()))
        when = f"{seconds} seconds" if seconds < 120 else f"{math.ceil(seconds / 60)} minutes"
        return f"too many failed logins for {self.reason}: try again in {when}"


def wait_for(
    policy: ThrottlePolicy, counts: FailureCounts, trusted: bool, now: datetime
) -> Wait | None:
    """Whether an attempt must wait, given the failures counted for it (``None``: check
    its password now)."""
    pair_delay = policy.pair_delay(counts.pair.count)
    if counts.pair.newest is not None and counts.pair.newest + pair_delay > now:
        whose = "this name from this browser" if trusted else "this name from your address"
        return Wait(whose, counts.pair.newest + pair_delay - now)
    if trusted:
        return None
    for tally, limit, whose in (
        (counts.client, policy.max_client_failures, "your address"),
        (counts.account, policy.max_account_failures, "this name"),
        (counts.everywhere, policy.max_global_failures, "this arena"),
    ):
        if tally.count >= limit:
            return Wait(whose, _until_below(tally, policy, now))
    return None


def _until_below(tally: Tally, policy: ThrottlePolicy, now: datetime) -> timedelta:
    """When the oldest counted failure leaves the window (the count then falls)."""
    if tally.oldest is None:
        return timedelta(seconds=1)
    return max(tally.oldest + policy.window - now, timedelta(seconds=1))
