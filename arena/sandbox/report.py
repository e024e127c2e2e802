"""What the sandbox's layers add up to, channel by channel and place by place.

``arena doctor`` prints this after the layers: for every channel between two bots
(docs/security.md, section 9) whether it is closed here and by which layer, and for every
place a bot can write how its size is bounded. It reads the probe's results and the plan;
it runs nothing itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from arena.sandbox.config import Layer, Limits
from arena.sandbox.probe import Capabilities, Plan, runtime_paths


@dataclass(frozen=True)
class Protection:
    """One channel or one writable place, as it stands under a plan."""

    name: str
    closed: bool
    """The channel is closed (the place is bounded or not writable)."""
    how: str
    """Which layer closes it, or why it stays open (one line)."""


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


def _one_of(*found: tuple[bool, str]) -> tuple[bool, str]:
    """The layers that close a channel, joined; ``(False, "")`` if none does."""
    names = [how for on, how in found if on]
    return bool(names), "; ".join(names)


def channels(plan: Plan, caps: Capabilities) -> list[Protection]:
    """Every shared-kernel-object channel between bots, closed or open under *plan*."""
    on = plan.layers
    seccomp, bwrap, uid = Layer.SECCOMP in on, Layer.BWRAP in on, Layer.UID in on
    scoped = Layer.LANDLOCK in on and caps.landlock_abi >= 6
    rows: list[tuple[str, tuple[bool, str], str]] = [
        (
            "file locks and leases",
            _one_of((seccomp, "seccomp: flock and fcntl/OFD locks fail (ENOLCK), leases (EINVAL)")),
            "needs seccomp",
        ),
        (
            "inotify, fanotify, dnotify",
            _one_of((seccomp, "seccomp: ENOSYS, F_NOTIFY EINVAL")),
            "needs seccomp",
        ),
        (
            "System V IPC, POSIX queues",
            _one_of((bwrap, "bwrap: own IPC namespace"), (seccomp, "seccomp: ENOSYS")),
            "needs bwrap or seccomp",
        ),
        (
            "abstract unix sockets",
            _one_of(
                (bwrap, "bwrap: own network namespace" + _with_listen(caps)),
                (scoped, f"Landlock ABI {caps.landlock_abi} scope"),
            ),
            "needs bwrap, or Landlock ABI 6+",
        ),
        (
            "futex wakes on shared pages",
            _one_of((seccomp, "seccomp: shared wakes fail (EINVAL)")),
            "needs seccomp",
        ),
        (
            "page cache probes",
            _one_of((seccomp, "seccomp: cachestat, mincore, RWF_NOWAIT reads fail")),
            "needs seccomp",
        ),
        (
            "file modes, times, xattrs",
            _one_of(
                (bwrap, "bwrap: read-only mounts"),
                (uid, "uid: not the files' owner"),
                (seccomp, "seccomp: EPERM"),
            ),
            "needs bwrap, uid or seccomp",
        ),
        (
            "scheduling attributes by pid",
            _one_of((bwrap, "bwrap: own pid namespace"), (seccomp, "seccomp: EPERM/ESRCH")),
            "needs bwrap or seccomp",
        ),
        (
            "signals, ptrace",
            _one_of(
                (bwrap, "bwrap: own pid namespace"),
                (uid, "uid"),
                (scoped, "Landlock scope"),
                (seccomp, "seccomp: no ptrace"),
            ),
            "needs bwrap, uid, Landlock ABI 6+ or seccomp",
        ),
        (
            "hostname, keyrings",
            _one_of((bwrap, "bwrap: own UTS namespace"), (seccomp, "seccomp: EPERM")),
            "needs bwrap or seccomp",
        ),
        (
            "process ids (the pid counter)",
            _one_of((bwrap, "bwrap: own pid namespace")),
            "no pid namespace: a bot sees pids come and go",
        ),
        ("access times of shared files", _atime(bwrap), ""),
    ]
    found = [Protection(name, closed, how or why) for name, (closed, how), why in rows]
    found.append(
        Protection(
            "CPU, memory, timing",
            False,
            "cannot be closed: games of one deal never run at the same time",
        )
    )
    return found


def _with_listen(caps: Capabilities) -> str:
    """Bubblewrap shares the host network when the referee is on TCP (``--listen``)."""
    if caps.landlock_abi >= 6:
        return " (with --listen: Landlock's scope)"
    return " (with --listen: OPEN, Landlock ABI 6+ missing)"


def _atime(bwrap: bool) -> tuple[bool, str]:
    """Reading a shared file may update its access time, which another bot can stat:
    not on a read-only or noatime mount."""
    if bwrap:
        return True, "bwrap: read-only mounts keep access times"
    flags = 0
    with_atime = []
    for path in runtime_paths():
        try:
            flags = os.statvfs(path).f_flag
        except OSError:
            continue
        if not flags & (os.ST_RDONLY | os.ST_NOATIME):
            with_atime.append(path)
    if not with_atime:
        return True, "the runtime's mounts are read-only or noatime"
    return False, f"{with_atime[0]} updates access times (relatime: a bit per file a day)"


def writes(plan: Plan, caps: Capabilities, limits: Limits) -> list[Protection]:
    """Every place a bot can write, and how its size is bounded under *plan*."""
    on = plan.layers
    bwrap, landlock = Layer.BWRAP in on, Layer.LANDLOCK in on
    fsize = f"RLIMIT_FSIZE ({_mib(limits.file_bytes)}) per file only"
    rows = []
    if Layer.WORKDIR in on:
        if caps.tmpfs_mount:
            home = (True, f"a tmpfs of {_mib(limits.home_bytes)}")
            tmpdir = (True, f"a tmpfs of {_mib(limits.tmp_bytes)}")
        elif bwrap and not caps.root:
            home = (True, f"bubblewrap's tmpfs of {_mib(limits.home_bytes)}")
            tmpdir = (True, f"/tmp: bubblewrap's tmpfs of {_mib(limits.tmp_bytes)}")
        else:
            home = tmpdir = (False, fsize)
        if bwrap:
            tmpdir = (True, f"/tmp: bubblewrap's tmpfs of {_mib(limits.tmp_bytes)}")
        rows += [("HOME", *home), ("TMPDIR", *tmpdir)]
    if bwrap:
        rows += [
            ("/tmp, /dev/shm", True, f"bubblewrap's tmpfs of {_mib(limits.tmp_bytes)} each"),
            ("everything else", True, "bwrap: read-only"),
        ]
    elif landlock:
        rows += [("everything else", True, "Landlock: not writable")]
    else:
        rows += [("everything else", False, f"no filesystem layer: {fsize}")]
    return [Protection(name, closed, how) for name, closed, how in rows]
