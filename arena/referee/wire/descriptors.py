"""The referee's file descriptors: what a match needs, raising the limit, checking room.

A bot that floods the referee with connections must never make the referee itself fail
in a way charged to an honest bot. So the referee raises its descriptor limit and checks
it has room for a whole match before the first game (:func:`reserve_descriptors`) and
for a game before each one (:func:`check_descriptors`); a shortage is an
:class:`~arena.referee.errors.ArenaFault`, the arena's own failure. The per-seat
figure follows from the caps at each bot's door (:mod:`arena.referee.wire.doors`).
"""

from __future__ import annotations

import contextlib
import os
import resource
from pathlib import Path

from arena.referee.errors import ArenaFault
from arena.referee.wire.doors import DOOR_CONNECTIONS, DOOR_STREAMS
from arena.referee.wire.session import MAX_MESSAGE_BYTES

DESCRIPTORS_BASE = 96
"""Descriptors the referee needs besides its seats (gRPC's pollers and wakeups, the
listeners, the record being written, logging, the interpreter's own)."""
DESCRIPTORS_PER_SEAT = 24
"""Per bot seat: its door and its open connections, the process's pipes and pidfd, the
sandbox's memfd, cgroup and lock files."""


def descriptors_needed(bot_seats: int) -> int:
    """Descriptors a match with *bot_seats* bot seats (processes or remote) may hold."""
    return DESCRIPTORS_BASE + bot_seats * (DESCRIPTORS_PER_SEAT + DOOR_CONNECTIONS)


def open_descriptors() -> int:
    """How many descriptors this process holds now (0 where /proc is missing)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


def raise_descriptor_limit() -> int:
    """Raise RLIMIT_NOFILE's soft limit to the hard limit (the kernel's ``nr_open`` when
    the hard limit is unlimited); the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard
    if hard == resource.RLIM_INFINITY:
        try:
            target = int(Path("/proc/sys/fs/nr_open").read_text())
        except (OSError, ValueError):
            target = soft
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def check_descriptors(needed: int) -> None:
    """Make sure *needed* more descriptors can be opened.

    :raises ArenaFault: if the referee's own limit leaves fewer free (no bot is to blame).
    """
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return
    free = soft - open_descriptors()
    if free < needed:
        raise ArenaFault(
            f"the referee has {free} free file descriptors of its limit {soft} "
            f"(RLIMIT_NOFILE), a match needs {needed}: raise it (ulimit -n)"
        )


def describe_limits() -> str:
    """One line for ``arena doctor``: the descriptors a referee gets here, what a match
    needs, and the caps at each bot's door."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = descriptors_needed(3)
    usable = soft if hard == resource.RLIM_INFINITY else max(soft, hard)
    verdict = "enough" if usable == resource.RLIM_INFINITY or usable >= needed else "TOO FEW"

    def shown(value: int) -> str:
        return "unlimited" if value == resource.RLIM_INFINITY else str(value)

    return (
        f"referee: file descriptors soft {shown(soft)}, hard {shown(hard)} (raised to the "
        f"hard limit at start; a match of 3 bots needs {needed}: {verdict}); a door per "
        f"bot with at most {DOOR_CONNECTIONS} connections of {DOOR_STREAMS} streams; "
        f"messages up to {MAX_MESSAGE_BYTES} bytes"
    )


def reserve_descriptors(needed: int) -> None:
    """Raise the descriptor limit to the hard limit and check *needed* are free.

    :raises ArenaFault: if even the hard limit leaves too few.
    """
    raise_descriptor_limit()
    check_descriptors(needed)
