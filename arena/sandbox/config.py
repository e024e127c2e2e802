"""What the sandbox may use and how tight its limits are: plain values, no I/O.

This module is imported by the referee, the CLI and the in-sandbox exec wrapper
(:mod:`arena.sandbox.confine`), so it imports nothing but the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class SandboxMode(StrEnum):
    """How hard the referee insists on the sandbox."""

    STRICT = "strict"
    """Refuse to start a bot when a required layer is missing (see :data:`REQUIRED`)."""
    BEST_EFFORT = "best-effort"
    """Use every layer that works on this machine, log the ones that do not."""
    OFF = "off"
    """Only the process-level basics: own session and process group, clean environment,
    parent-death signal. For debugging a bot, never for strangers' bots."""


class Layer(StrEnum):
    """One protection of the sandbox (docs/security.md says what each stops)."""

    RLIMITS = "rlimits"
    """CPU seconds, data segment, file size, open files, no core dumps, processes."""
    WORKDIR = "workdir"
    """A private HOME (mode 0700) and TMPDIR per process, wiped when it ends, each a
    tmpfs of bounded size where the referee can mount one."""
    UID = "uid"
    """A separate unprivileged uid per running bot (only when the referee runs as root)."""
    BWRAP = "bwrap"
    """bubblewrap: no network, own pid/ipc/uts namespaces, a read-only view of the system."""
    LANDLOCK = "landlock"
    """Landlock LSM: filesystem allow-list, no TCP, no signals or ptrace outside the bot."""
    SECCOMP = "seccomp"
    """seccomp filter: no non-unix sockets, ptrace, mount, namespaces, io_uring, bpf, ..."""
    CGROUP = "cgroup"
    """A cgroup per bot: memory cap, process cap, CPU quota, and a kill that reaches all."""


REQUIRED_ALWAYS = (Layer.RLIMITS, Layer.WORKDIR)
"""Layers ``strict`` mode always requires. It also requires :attr:`Layer.UID` when the
referee runs as root, and filesystem plus network isolation: bubblewrap, or else both
Landlock and seccomp."""

UID_RANGE = (61000, 62000)
"""Default pool of bot uids: ``[start, stop)``; one per concurrently running bot process."""


@dataclass(frozen=True)
class Limits:
    """Per bot process. Every default leaves a well-behaved bot (Python with grpcio, Node,
    a JVM) far from the limit."""

    cpu_seconds: int = 3600
    """RLIMIT_CPU: CPU time of each process of the bot (SIGXCPU, then SIGKILL one second
    later). A generous ceiling: the clock of the game is what times decisions."""
    memory_bytes: int = 1 << 30
    """RLIMIT_DATA (not the address space, so JIT runtimes that reserve large virtual
    ranges still start) and, where cgroups are writable, memory.max of the whole bot."""
    file_bytes: int = 64 << 20
    """RLIMIT_FSIZE: the largest file the bot may write."""
    open_files: int = 512
    """RLIMIT_NOFILE."""
    processes: int = 128
    """RLIMIT_NPROC (threads count; per uid, so only with the uid switch) and, where
    cgroups are writable, pids.max of the whole bot."""
    tmp_bytes: int = 64 << 20
    """Size of the in-memory /tmp inside bubblewrap, and of the private TMPDIR where the
    referee can mount a tmpfs for it (:mod:`arena.sandbox.quota`)."""
    home_bytes: int = 64 << 20
    """Size of the private HOME (a tmpfs where the referee can mount one or bubblewrap
    runs unprivileged; else only ``file_bytes`` per file bounds it)."""
    cpu_cores: float | None = 1.0
    """CPU quota of the whole bot where cgroups are writable (``None``: no quota)."""


@dataclass(frozen=True)
class SandboxConfig:
    """The sandbox of every bot process of a match (``MatchConfig.sandbox``)."""

    mode: SandboxMode = SandboxMode.BEST_EFFORT
    limits: Limits = field(default_factory=Limits)
    disable: frozenset[Layer] = frozenset()
    """Layers not to use even where they work (tests, benchmarks, diagnosing a bot)."""
    uid_range: tuple[int, int] = UID_RANGE
    """Pool of uids for the uid switch, ``[start, stop)``."""


class SandboxError(RuntimeError):
    """``strict`` mode and a required layer is missing, or the sandbox cannot be set up."""


def parse_mode(text: str) -> SandboxMode:
    """``strict``, ``best-effort`` or ``off``.

    :raises ValueError: for anything else.
    """
    try:
        return SandboxMode(text)
    except ValueError:
        choices = ", ".join(m.value for m in SandboxMode)
        raise ValueError(f"unknown sandbox mode {text!r}; choose from: {choices}") from None
