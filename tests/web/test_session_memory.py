"""Sessions Streamlit drops without shutting them down are freed: their event loops'
descriptors close (dashboard/memory.py)."""

from __future__ import annotations

import asyncio
import gc
import os
import weakref

from dashboard import memory


class _DroppedSession:
    """Like an expired ``AppSession``: it owns an event loop and sits in a reference
    cycle, so only the cycle collector frees it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.me = self


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def _drop_sessions(count: int) -> weakref.ref[asyncio.AbstractEventLoop]:
    sessions = [_DroppedSession() for _ in range(count)]
    last = weakref.ref(sessions[-1].loop)
    del sessions
    return last


def test_a_pass_closes_the_loops_of_dropped_sessions() -> None:
    gc.disable()  # as under a flood: no collection would come soon on its own
    try:
        before = _open_descriptors()
        last = _drop_sessions(20)
        # Control: dropped, but nothing frees them: every loop keeps its descriptors.
        assert _open_descriptors() >= before + 20 * 3
        assert last() is not None
        assert memory.collect_and_trim() > 0
        assert last() is None
        assert _open_descriptors() <= before
    finally:
        gc.enable()
