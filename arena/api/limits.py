"""Rate limits per caller: a token bucket per token (and kind of route), or per client key
for requests without a token.

The buckets are :class:`arena.web.limits.TokenBucket` (the dashboard's), behind one lock,
in a least-recently-used map of at most ``tracked_callers`` entries: many tokens or
addresses cannot grow memory without bound. A bucket pushed out (its caller idle longest)
starts full again when its caller returns, which costs a flood from more addresses than
that one burst each, no more.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from arena.api.settings import Rate
from arena.web.limits import TokenBucket


class RateLimiter:
    """Buckets by key, each made on first use with the :class:`Rate` its caller asks for."""

    def __init__(self, max_tracked: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._max_tracked = max(1, max_tracked)
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    @property
    def tracked(self) -> int:
        """Buckets kept now."""
        return len(self._buckets)

    def take(self, key: str, rate: Rate) -> float:
        """Take one request from *key*'s bucket: 0 when there was one, else the seconds
        until there is (nothing is taken then)."""
        with self._lock:
            now = self._clock()
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = TokenBucket(rate.burst, rate.per_second, now)
                self._buckets[key] = bucket
                while len(self._buckets) > self._max_tracked:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
            return bucket.take(now)


__all__ = ["RateLimiter"]
