"""A build without bubblewrap (a container): what a bot gets there, and a disk watchdog.

Without bubblewrap there are no in-memory filesystems of bounded size and no private
view of the system. The build gets a private, empty working directory and TMPDIR (the
runner unpacks the bot into the first), Landlock that lets it write only those two,
seccomp, rlimits, and the uid switch where the interpreter is reachable by a bot uid
(else root without capabilities). RLIMIT_FSIZE bounds one file, not the sum, so a
watchdog adds up what the build has written every :data:`WATCH_INTERVAL_S` and stops it
past the limit.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from arena.sandbox import chain
from arena.sandbox.build.job import BuildJob, environment
from arena.sandbox.build.settings import BuildRun, BuildSandboxError, mib

WATCH_INTERVAL_S = 0.2


def run(job: BuildJob, argv: list[str]) -> BuildRun:
    """Run *job* behind *argv* (the chain so far) without bubblewrap."""
    uid = job.uid
    work, tmp = job.private / "work", job.private / "tmp"
    for path in (work, tmp):
        path.mkdir(mode=0o700)
        if uid is not None:
            os.chown(path, uid, uid)
    argv += chain.die_with_parent(job.caps, uid, switch=True)
    argv += job.limits_and_filters(writable=(work, tmp))
    env = environment(home=str(tmp), tmp=str(tmp), offline=not job.network)
    job.notes.append(f"no bubblewrap: disk watchdog every {WATCH_INTERVAL_S} s")
    watch = DiskWatch([work, tmp], job.limits.disk_bytes + job.limits.tmp_bytes)
    return job.execute(argv, env, cwd=str(work), watch=watch)


@dataclass
class DiskWatch:
    """Without an in-memory filesystem: kill the build once it has written *limit*."""

    paths: list[Path]
    limit: int
    over: threading.Event = field(default_factory=threading.Event)

    def __call__(self, process: subprocess.Popen[bytes], kill: Callable[[], None]) -> None:
        """Add up the disk used under :attr:`paths` until *process* ends or is killed."""
        while process.poll() is None:
            if sum(_usage(p) for p in self.paths) > self.limit:
                self.over.set()
                kill()
                return
            time.sleep(WATCH_INTERVAL_S)

    def check(self) -> None:
        """:raises BuildSandboxError: if the build wrote more than :attr:`limit`."""
        if self.over.is_set():
            raise BuildSandboxError(f"the build wrote more than {mib(self.limit)}")


def _usage(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total
