"""Give the memory of ended sessions back to the system.

Sessions are Python objects, freed 30 s after their tab closes (``arena dashboard``'s
``server.disconnectedSessionTTL``). glibc keeps what Python frees in its heaps, in the hope
of reusing it, so after a crowd (or a flood) of sessions the server stayed that much
bigger for good. Every :data:`TRIM_EVERY_S` a thread asks glibc to return the free pages
at the top and in the middle of its heaps (``malloc_trim``, a few milliseconds); on
another C library it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading
from typing import Final

LOGGER = logging.getLogger(__name__)

TRIM_EVERY_S: Final = 30.0


def start_trimming(every_s: float = TRIM_EVERY_S) -> bool:
    """Start the trimming thread, once per process; whether glibc's ``malloc_trim`` is
    here to call."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        trim = None
    if trim is None:
        return False
    if any(thread.name == "arena-malloc-trim" for thread in threading.enumerate()):
        return True

    def loop() -> None:
        stop = threading.Event()
        while not stop.wait(every_s):
            trim(0)

    threading.Thread(target=loop, name="arena-malloc-trim", daemon=True).start()
    return True
