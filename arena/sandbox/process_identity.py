"""A referee process's identity in the names of what it leaves on the host (its base
cgroup, its door sockets' directory), so that a later referee can tell for certain that
the one which made a name is gone and remove what it left.

Why more than a pid: pids are reused (``pid_max`` may be 32768), so a dead referee's
leftovers would live on while any process held its pid; and a referee in another pid
namespace that shares the cgroup tree or ``/tmp`` has pids that mean other processes
here, so its live bots could be taken for a dead referee's. An identity is
``<pid>-<start>-<pid namespace>``: the process's start time in clock ticks since boot
(field 22 of ``/proc/<pid>/stat``) and the inode of its pid namespace.
"""

from __future__ import annotations

import os
from pathlib import Path


def identity(pid: int | None = None) -> str:
    """``<pid>-<start>-<pid namespace>`` of process *pid* (default: this process)."""
    pid = os.getpid() if pid is None else pid
    return f"{pid}-{_start_ticks(pid)}-{_namespace()}"


def gone(name: str) -> bool:
    """Whether the process named by *name* (an :func:`identity`) is certainly gone. A name
    from another pid namespace is never judged here (its process may live); a bare
    ``<pid>`` (the old form of the cgroups' names) is judged by its pid alone."""
    parts = name.split("-")
    if not all(part.isdigit() for part in parts):
        return False
    if len(parts) == 1:
        return not Path(f"/proc/{parts[0]}").exists()
    if len(parts) != 3 or int(parts[2]) != _namespace():
        return False
    return _start_ticks(int(parts[0])) != int(parts[1])


def _namespace() -> int:
    return os.stat("/proc/self/ns/pid").st_ino


def _start_ticks(pid: int) -> int | None:
    """When process *pid* started (field 22 of ``/proc/<pid>/stat``), if it exists."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[19])
