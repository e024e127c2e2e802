"""A polite stop: SIGTERM and SIGINT end a run the way Ctrl-C always did, and say so.

Without this, SIGTERM (what ``kill``, systemd, Docker and ``arena tournament stop`` send)
ended a runner at once: no line, the bot processes orphaned until their own timeouts, and
the tournament's status left at ``running``. Now both signals cancel the run's task. The
run loop (:mod:`arena.tournament.loop`) then abandons the games in play (their bot
processes are stopped; an unfinished game is never stored, so never rated, and the next
run plays it again from the same deal), sets the status to ``interrupted`` and releases
the runner lock; the caller prints one line from :class:`Stopped`.

Why abandon rather than finish the games in play: a game can take minutes under a long
time control, and whoever sends SIGTERM (a container stop, a deploy) usually gives ten
seconds before SIGKILL. Abandoning loses at most one game per worker, which the next run
replays; nothing stored is lost either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, Final, TypeVar

T = TypeVar("T")

SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)


class Stopped(Exception):
    """The run was stopped by *signum*; the exit status a shell expects is 128 + it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        """``SIGTERM`` or ``SIGINT``."""
        return signal.Signals(self.signum).name

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


async def until_stopped(work: Coroutine[Any, Any, T]) -> T:
    """Run *work*; a SIGTERM or SIGINT meanwhile cancels it and raises :class:`Stopped`.

    Call it from the main thread's event loop (where signal handlers can be set); anywhere
    else *work* runs as it is.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    caught: list[int] = []

    def stop(signum: int) -> None:
        if not caught:
            caught.append(signum)
            task.cancel()

    installed = []
    for signum in SIGNALS:
        try:
            loop.add_signal_handler(signum, stop, signum)
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread
            continue
        installed.append(signum)
    try:
        return await task
    except asyncio.CancelledError:
        if caught:
            raise Stopped(caught[0]) from None
        raise
    finally:
        for signum in installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signum)
