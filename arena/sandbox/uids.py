"""A pool of unprivileged uids, one per running bot process, shared by every referee on
the machine (tournament workers run in parallel processes).

A uid is leased by holding an exclusive ``flock`` on ``<lock dir>/<uid>.lock``; the kernel
drops the lock when the referee exits, however it exits, so a crashed referee leaks
nothing. When a lease ends, every process still running under that uid is killed, which
reaches daemons that left the bot's process group and session.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import random
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

_LOCK_DIRS = (Path("/run/arena-sandbox/uids"), Path(tempfile.gettempdir()) / "arena-sandbox-uids")


def _lock_dir() -> Path:
    for path in _LOCK_DIRS:
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(path, os.W_OK):
            return path
    raise OSError("no writable directory for uid leases")


@dataclass
class UidLease:
    """One uid, ours until :meth:`release`."""

    uid: int
    _fd: int

    async def release(self) -> None:
        """Kill every process left under the uid, then give the uid back."""
        await kill_all(self.uid)
        self.close()

    def close(self) -> None:
        """Give the uid back (without looking for processes left under it)."""
        if self._fd >= 0:
            os.close(self._fd)  # closing drops the flock
            self._fd = -1


def acquire(start: int, stop: int) -> UidLease:
    """Lease a free uid from ``[start, stop)``.

    :raises OSError: if every uid of the range is in use (or no lock directory works).
    """
    directory = _lock_dir()
    count = stop - start
    first = random.randrange(count)  # spread concurrent referees over the range
    for i in range(count):
        uid = start + (first + i) % count
        fd = os.open(directory / f"{uid}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return UidLease(uid, fd)
    raise OSError(f"all {count} bot uids ({start}-{stop - 1}) are in use")


def processes_of(uid: int) -> list[int]:
    """Pids of the processes whose real uid is *uid*."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, StopIteration, ValueError, IndexError):
            status = (entry / "status").read_text()
            line = next(x for x in status.splitlines() if x.startswith("Uid:"))
            if int(line.split()[1]) == uid:
                found.append(int(entry.name))
    return found


async def kill_all(uid: int) -> None:
    """SIGKILL every process of *uid*: ``kill(-1)`` run as that uid, which the kernel
    applies to all of them at once (a fork bomb cannot outrun it), repeated while any is
    left."""
    setpriv = shutil.which("setpriv")
    for _ in range(5):
        if not processes_of(uid):
            return
        if setpriv is None:
            for pid in processes_of(uid):
                with contextlib.suppress(OSError):
                    os.kill(pid, 9)
        else:
            process = await asyncio.create_subprocess_exec(
                setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--",
                "/bin/sh", "-c", "kill -9 -1 2>/dev/null; exit 0",
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            await process.wait()
        await asyncio.sleep(0.01)
