"""What a bot's build may use, whether it may use the network, and what it reports.

The plain values of the build sandbox (:mod:`arena.sandbox.build.sandbox`), apart from
the machinery, because ``arena bot submit``, ``arena match``, ``arena doctor`` and the
dashboard all read the network setting and the limits, and none of them needs the rest.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from arena.sandbox.config import SandboxError

NETWORK_ENV = "ARENA_BUILD_NETWORK"
"""``1``/``on``: builds may use the network (default off). Read by ``arena bot submit``,
``arena match`` and the dashboard alike."""
NETWORK_PORTS = (53, 80, 443)
"""TCP ports a build with network may connect to (DNS over TCP, HTTP, HTTPS)."""
NETWORK_ETC = ("/etc/ssl/certs", "/etc/ca-certificates")
"""Read-only for builds with the network: the CA certificates (not ``/etc/ssl/private``)."""
STAMP_NAME = ".arena-build.ok"
"""The stamp of a bot's successful build (:mod:`arena.sandbox.build.bot`): the arena's file,
never sent into a build and never taken back from one."""


@dataclass(frozen=True)
class BuildLimits:
    """What one build may use. Generous for ``npm ci`` or ``pip install``, bounded all
    the same."""

    time_s: float = 600.0
    """Wall-clock time of the whole build."""
    memory_bytes: int = 2 << 30
    """RLIMIT_DATA of each process and, where cgroups are writable, memory.max of the
    build (which also counts what it keeps in its in-memory filesystems)."""
    processes: int = 256
    """RLIMIT_NPROC of the build's uid and, where cgroups are writable, pids.max."""
    disk_bytes: int = 512 << 20
    """The bot's directory with everything the build adds (its in-memory filesystem, the
    result stream, what is unpacked back)."""
    tmp_bytes: int = 512 << 20
    """``/tmp`` and ``$HOME`` (package caches) inside the sandbox."""
    files: int = 100_000
    """Files and directories in the result."""
    open_files: int = 4096
    """RLIMIT_NOFILE."""


class BuildSandboxError(SandboxError):
    """The build cannot be sandboxed as the mode requires, or broke a limit; one line."""


class BuildTimeout(BuildSandboxError):
    """The build ran out of time."""


@dataclass
class BuildRun:
    """What a finished build left."""

    returncode: int
    output: str
    """stdout and stderr interleaved, the last 64 KiB."""
    how: str
    """One line: the protections the build ran under."""


def network_allowed(value: str | None = None) -> bool:
    """Whether *value* (default: ``$ARENA_BUILD_NETWORK``) allows the network.

    :raises ValueError: for anything but 1/0, true/false, yes/no, on/off or empty.
    """
    text = (os.environ.get(NETWORK_ENV, "") if value is None else value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise ValueError(f"{NETWORK_ENV}={text!r}: say on or off")


def mib(n: int) -> str:
    """*n* bytes in MiB, for the one-line errors."""
    return f"{n / (1 << 20):.0f} MiB"
