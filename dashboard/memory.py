"""Give the memory and descriptors of ended sessions back to the system.

A closed tab's session is kept 30 s for a reconnect (``arena dashboard``'s
``server.disconnectedSessionTTL``) in Streamlit's ``MemorySessionStorage``, a TTL cache.
When it expires the cache merely drops it: nothing calls ``AppSession.shutdown``, so its
own event loop (an epoll descriptor and a socket pair), its script thread's state and its
widgets stay until Python's cycle collector finds them. ``arena dashboard`` turns off
Streamlit's full collection after every script run (under a flood it held the event loop
for most of each second), so that could be a long time: after three floods of 10
addresses, 67 expired sessions still held 200 descriptors two minutes on, and the
server's memory grew flood after flood (docs/performance.md, "A flooded dashboard").

Every :data:`TRIM_EVERY_S` a thread therefore runs one full collection (which closes
those loops: an event loop closes itself when it is freed) and then asks glibc to return
the free pages of its heaps (``malloc_trim``; glibc otherwise keeps what Python frees for
reuse). On another C library only the collection runs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import threading
from collections.abc import Callable
from typing import Final

LOGGER = logging.getLogger(__name__)

TRIM_EVERY_S: Final = 30.0


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def collect_and_trim() -> int:
    """One pass: a full collection, then glibc's trim; the objects collected."""
    freed = gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
    return freed


def start_trimming(every_s: float = TRIM_EVERY_S) -> bool:
    """Start the thread that runs :func:`collect_and_trim` every *every_s*, once per
    process; whether glibc's ``malloc_trim`` is here to call too."""
    if not any(thread.name == "arena-malloc-trim" for thread in threading.enumerate()):

        def loop() -> None:
            stop = threading.Event()
            while not stop.wait(every_s):
                LOGGER.debug("collected %d objects, trimmed the heaps", collect_and_trim())

        threading.Thread(target=loop, name="arena-malloc-trim", daemon=True).start()
    return _malloc_trim() is not None
