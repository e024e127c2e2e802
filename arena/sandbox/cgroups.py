"""A cgroup per bot process: memory cap, process cap, CPU quota, and a kill that reaches
every process the bot started, daemons included.

cgroup v2 (the unified hierarchy) when its memory and pids controllers can be delegated
below the referee's own cgroup; else cgroup v1 (hybrid hosts, older distributions) when
its memory and pids hierarchies are writable. Inside Docker neither usually is (the cgroup
filesystem is read-only there): the layer is then reported missing and the container's
own ``--memory``/``--pids-limit`` bound the whole arena instead (docs/security.md).

The referee joins nothing: a bot process joins its cgroup itself, as root, in a
``sh -c 'echo $$ > .../cgroup.procs; exec ...'`` step at the head of its command.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena.sandbox import process_identity

LOGGER = logging.getLogger(__name__)

_CPU_PERIOD_US = 100_000
_counter = itertools.count(1)


@dataclass
class Hierarchy:
    """Where this referee creates bot cgroups: one directory per hierarchy (v2: one)."""

    version: int
    bases: dict[str, Path]
    """Controller (``memory``, ``pids``, ``cpu``; v2: ``unified``) -> our base cgroup."""
    controllers: frozenset[str]
    """Controllers bot cgroups get (``memory`` and ``pids`` always, ``cpu`` if present)."""

    @property
    def description(self) -> str:
        """``v2 memory,pids,cpu under /sys/fs/cgroup/...``."""
        where = ", ".join(sorted({str(p.parent) for p in self.bases.values()}))
        return f"v{self.version} {','.join(sorted(self.controllers))} under {where}"


@dataclass
class BotCgroup:
    """The cgroup(s) of one bot process."""

    hierarchy: Hierarchy
    paths: list[Path] = field(default_factory=list)

    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files the bot writes its pid to before it execs."""
        return [str(p / "cgroup.procs") for p in self.paths]

    def pids(self) -> list[int]:
        """Every process in the cgroup now."""
        found: set[int] = set()
        for path in self.paths:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(x) for x in (path / "cgroup.procs").read_text().split())
        return sorted(found)

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (v2 ``cgroup.kill`` when the kernel has it)."""
        if self.hierarchy.version == 2 and self.paths:
            kill_file = self.paths[0] / "cgroup.kill"
            with contextlib.suppress(OSError):
                kill_file.write_text("1")
                return
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def remove(self, timeout_s: float = 2.0) -> bool:
        """Kill what is left and remove the cgroup(s); False if something would not die."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.kill()
            remaining = []
            for path in self.paths:
                try:
                    path.rmdir()
                except FileNotFoundError:
                    pass
                except OSError:
                    remaining.append(path)
            self.paths = remaining
            if not remaining:
                return True
            if time.monotonic() > deadline:
                LOGGER.warning("cgroup(s) not removable: %s", ", ".join(map(str, remaining)))
                return False
            time.sleep(0.01)


def _mounts() -> list[tuple[str, str, set[str]]]:
    """``(mount point, fstype, super options)`` of every cgroup filesystem."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(rfields) >= 3 and rfields[0] in ("cgroup", "cgroup2"):
                found.append((fields[4], rfields[0], set(rfields[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """Controller (or ``""`` for v2) -> this process's cgroup path."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    return paths


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def _v2() -> Hierarchy:
    mount = next((m for m, kind, _ in _mounts() if kind == "cgroup2"), None)
    if mount is None:
        raise OSError("no cgroup2 filesystem mounted")
    own = Path(mount) / _own_paths().get("", "/").lstrip("/")
    # Our own cgroup first; else its parent (bot cgroups beside ours), which is what a
    # container gets when its entrypoint moved itself into a leaf such as /init.
    errors = []
    for parent in dict.fromkeys((own, own.parent if own != Path(mount) else own)):
        try:
            return _v2_under(parent)
        except OSError as exc:
            errors.append(f"{parent}: {exc.strerror or exc}")
    raise OSError("; ".join(errors))


def _v2_under(parent: Path) -> Hierarchy:
    available = set((parent / "cgroup.controllers").read_text().split())
    if not {"memory", "pids"} <= available:
        raise OSError(
            f"cgroup v2 at {parent} lacks the memory/pids controllers "
            f"(has: {' '.join(sorted(available)) or 'none'})"
        )
    wanted = {"memory", "pids"} | ({"cpu"} & available)
    enabled = set((parent / "cgroup.subtree_control").read_text().split())
    if not wanted <= enabled:
        # Fails with EBUSY when our own cgroup holds processes and is not the root: the
        # no-internal-processes rule (the Docker entrypoint moves itself to a leaf first).
        _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted - enabled))
    base = parent / referee_name()
    base.mkdir(exist_ok=True)
    _write(base / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
    return Hierarchy(2, {"unified": base}, frozenset(wanted))


def _v1() -> Hierarchy:
    own = _own_paths()
    bases: dict[str, Path] = {}
    for mount, kind, options in _mounts():
        if kind != "cgroup":
            continue
        for controller in ("memory", "pids", "cpu"):
            if controller in options and controller not in bases:
                parent = Path(mount) / own.get(controller, "/").lstrip("/")
                base = parent / referee_name()
                try:
                    base.mkdir(exist_ok=True)
                except OSError:
                    if controller != "cpu":
                        raise
                    continue
                bases[controller] = base
    if not {"memory", "pids"} <= set(bases):
        for base in bases.values():
            with contextlib.suppress(OSError):
                base.rmdir()
        raise OSError("no writable cgroup v1 memory and pids hierarchies")
    return Hierarchy(1, bases, frozenset(bases))


_hierarchy: Hierarchy | None = None
_reason: str | None = None


def hierarchy() -> Hierarchy | None:
    """This referee's base cgroup(s), made on first use (``None``: see :func:`reason`)."""
    global _hierarchy, _reason  # noqa: PLW0603 - one per referee process, made once
    if _hierarchy is not None or _reason is not None:
        return _hierarchy
    errors = []
    for make in (_v2, _v1):
        try:
            _hierarchy = make()
        except OSError as exc:
            errors.append(str(exc))
            continue
        atexit.register(_remove_bases, _hierarchy)
        sweep_stale(_hierarchy)
        probe = create(_hierarchy, memory_bytes=64 << 20, processes=16, cpu_cores=1.0, probe=True)
        if probe is None:
            errors.append("cannot create a bot cgroup")
            _hierarchy = None
            continue
        probe.remove()
        return _hierarchy
    _reason = "; ".join(errors)
    return None


def referee_name(pid: int | None = None) -> str:
    """The base cgroup's name of the referee *pid* (default: this process):
    ``arena-<pid>-<start>-<pid namespace>`` (:mod:`arena.sandbox.process_identity`: a pid
    alone could not say that its referee is gone, and a daemon of its bots would live on
    in its cgroup while any process held that pid)."""
    return f"arena-{process_identity.identity(pid)}"


def _referee_gone(name: str) -> bool:
    """Whether the referee that made base cgroup *name* is certainly gone (a name of the
    old form ``arena-<pid>`` is judged by its pid alone, as it was made)."""
    return process_identity.gone(name.removeprefix("arena-"))


def sweep_stale(found: Hierarchy) -> list[Path]:
    """Kill the bots of referees that died without cleaning up (SIGKILL, power loss of a
    container...) and remove their cgroups: every base cgroup beside ours whose referee
    is gone (:func:`referee_name`). Returns the base cgroups removed.

    Referees that start together (a tournament's parallel workers, pytest-xdist workers)
    sweep the same leftovers at once, so each step takes "already gone" as done. A
    cgroup another sweeper removed between our listing and our look inside is skipped:
    that look used to raise ENOENT out of the probe, and so out of the referee's first
    spawn (the rare spawn failure under parallel workers, issue 14)."""
    removed = []
    for base in found.bases.values():
        for stale in base.parent.glob("arena-*"):
            if stale == base or not _referee_gone(stale.name):
                continue
            try:
                bots = [p for p in stale.iterdir() if p.is_dir() and p.name.startswith("bot-")]
            except FileNotFoundError:
                continue  # another referee swept it first
            BotCgroup(found, bots).remove()
            with contextlib.suppress(OSError):
                stale.rmdir()
                removed.append(stale)
    if removed:
        # Housekeeping after a referee that was killed (a stopped runner, a crash): nothing
        # is wrong now and nothing is asked of the user, so not a warning. Every worker of a
        # tournament sweeps when it starts, and this used to print one WARNING line each.
        LOGGER.info("removed the cgroups of dead referees: %s", ", ".join(map(str, removed)))
    return removed


def reason() -> str | None:
    """Why there is no usable cgroup hierarchy (after :func:`hierarchy` returned None)."""
    return _reason


def _remove_bases(found: Hierarchy) -> None:
    for base in found.bases.values():
        with contextlib.suppress(OSError):
            base.rmdir()


_said_degraded = False
"""Whether this process has said that its bots run without a cgroup (it says so once)."""

DEGRADED: Final = (
    "sandbox: bots run without their cgroup (no memory, process or CPU cap of their own) "
    "because one cannot be created: %s; `arena doctor` shows every sandbox layer"
)
"""What a failed bot cgroup means to the user, said once per process (:func:`create`)."""


def create(
    found: Hierarchy,
    *,
    memory_bytes: int,
    processes: int,
    cpu_cores: float | None,
    probe: bool = False,
) -> BotCgroup | None:
    """A new bot cgroup with its limits; ``None`` if that fails.

    A failure is said once per process, in words (:data:`DEGRADED`): every bot of a
    tournament would fail the same way, and a warning per bot process buried the
    tournament's own output. *probe*: :func:`hierarchy`'s own trial, which says nothing
    (the sandbox's summary line reports the layer missing, with :func:`reason`).
    """
    name = f"bot-{next(_counter)}"
    cgroup = BotCgroup(found)
    try:
        for controller, base in found.bases.items():
            path = base / name
            path.mkdir()
            cgroup.paths.append(path)
            if found.version == 2:
                _write(path / "memory.max", str(memory_bytes))
                with contextlib.suppress(OSError):  # no swap accounting: nothing to cap
                    _write(path / "memory.swap.max", "0")
                _write(path / "pids.max", str(processes))
                if cpu_cores is not None and "cpu" in found.controllers:
                    _write(path / "cpu.max", f"{int(cpu_cores * _CPU_PERIOD_US)} {_CPU_PERIOD_US}")
            elif controller == "memory":
                _write(path / "memory.limit_in_bytes", str(memory_bytes))
                with contextlib.suppress(OSError):
                    _write(path / "memory.memsw.limit_in_bytes", str(memory_bytes))
            elif controller == "pids":
                _write(path / "pids.max", str(processes))
            elif controller == "cpu" and cpu_cores is not None:
                _write(path / "cpu.cfs_period_us", str(_CPU_PERIOD_US))
                _write(path / "cpu.cfs_quota_us", str(int(cpu_cores * _CPU_PERIOD_US)))
    except OSError as exc:
        _say_degraded(exc, probe=probe)
        cgroup.remove()
        return None
    return cgroup


def _say_degraded(exc: OSError, *, probe: bool) -> None:
    """Log a bot cgroup that could not be made: the first time as a warning in words, after
    that (and for the probe) only at debug level."""
    global _said_degraded  # noqa: PLW0603 - once per process
    reason = exc.strerror or str(exc)
    if probe or _said_degraded:
        LOGGER.debug("cannot create a bot cgroup: %s", exc)
        return
    _said_degraded = True
    LOGGER.warning(DEGRADED, reason)
