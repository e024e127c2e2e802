"""One build in the build sandbox: what it holds, the steps both paths share, and its run.

A :class:`BuildJob` leases a bot uid, makes the build's cgroup and a private directory,
and gives all of it back on exit, killing whatever the build left running first. Both
ways of building (:mod:`arena.sandbox.build.bwrap`, :mod:`arena.sandbox.build.direct`)
end the same way, so that part is here: the rlimits, Landlock's TCP rule and the
runner that unpacks, filters and packs (:meth:`BuildJob.limits_and_filters`), and the
run itself with its time limit and capped streams (:meth:`BuildJob.execute`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, cast

from arena.sandbox import cgroups, chain, landlock, uids
from arena.sandbox.build import network as build_network
from arena.sandbox.build import streams as build_streams
from arena.sandbox.build.offline import OFFLINE_ENV
from arena.sandbox.build.settings import (
    NETWORK_ENV,
    NETWORK_ETC,
    NETWORK_PORTS,
    BuildLimits,
    BuildRun,
    BuildSandboxError,
    BuildTimeout,
    mib,
)
from arena.sandbox.config import Layer, SandboxConfig, SandboxMode
from arena.sandbox.probe import Capabilities, confine_prefix, landlock_rules

# Log lines keep the name they had before the build sandbox was split into modules.
LOGGER = logging.getLogger("arena.sandbox.build.sandbox")
RUNNER = str(Path(__file__).resolve().with_name("runner.py"))


class Watchdog(Protocol):
    """A guard that runs beside a build (in a thread) and may stop it."""

    def __call__(self, process: subprocess.Popen[bytes], kill: Callable[[], None]) -> None:
        """Watch *process* until it ends; *kill* it if it breaks the guard's limit."""

    def check(self) -> None:
        """:raises BuildSandboxError: if the guard stopped the build."""


def switch(uid: int) -> list[str]:
    """setpriv's options for a build's uid: as a bot's, and no new privileges."""
    return [*chain.switch_uid(uid), "--no-new-privs"]


def environment(*, home: str, tmp: str, offline: bool = False) -> dict[str, str]:
    """A build's whole environment: nothing of the arena's own leaks in. *offline* (no
    network) adds :data:`~arena.sandbox.build.offline.OFFLINE_ENV`, so that package
    managers fail at once instead of retrying a registry they cannot reach."""
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
    }
    return {**OFFLINE_ENV, **env} if offline else env


@dataclass
class BuildJob:
    """One build: what it holds (uid lease, cgroup, network helpers, private directory)
    and gives back on exit."""

    directory: Path
    command: list[str]
    config: SandboxConfig
    caps: Capabilities
    layers: frozenset[Layer]
    limits: BuildLimits
    network: bool
    private: Path = field(init=False)
    lease: uids.UidLease | None = None
    cgroup: cgroups.BotCgroup | None = None
    helpers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __enter__(self) -> BuildJob:
        self.private = Path(tempfile.mkdtemp(prefix="arena-build-"))
        self.private.chmod(0o711)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.lease is not None:
            _kill_uid(self.lease.uid)
        for helper in self.helpers:
            with contextlib.suppress(OSError):
                helper.kill()
            helper.wait()
        _wipe(self.private, self.lease.uid if self.lease is not None else None)
        if self.lease is not None:
            self.lease.close()

    @property
    def use_bwrap(self) -> bool:
        return Layer.BWRAP in self.layers and self.caps.bwrap is not None

    @property
    def uid(self) -> int | None:
        """The leased bot uid the build runs as, if any."""
        return self.lease.uid if self.lease is not None else None

    @property
    def slirp(self) -> bool:
        """The network allowed, in a namespace of its own served by slirp4netns."""
        return self.network and self.use_bwrap and self.caps.root and build_network.available()

    def start(self) -> list[str]:
        """Check the build can be isolated, lease its uid, make its cgroup; the start of
        its chain (joining that cgroup).

        :raises BuildSandboxError: if it cannot be isolated as the mode requires.
        """
        self._check()
        if Layer.UID in self.layers:
            self.lease = uids.acquire(*self.config.uid_range)
        if Layer.CGROUP in self.layers and self.caps.cgroup is not None:
            self.cgroup = cgroups.create(
                self.caps.cgroup,
                memory_bytes=self.limits.memory_bytes,
                processes=self.limits.processes,
                cpu_cores=None,
            )
        return chain.join_cgroup(self.cgroup)

    def _check(self) -> None:
        """Refuse what cannot be isolated: the network without bubblewrap as root, and
        (strict) a build without bubblewrap or Landlock plus seccomp."""
        isolated = self.use_bwrap or {Layer.LANDLOCK, Layer.SECCOMP} <= self.layers
        if not isolated:
            message = (
                "no bubblewrap, and not both Landlock and seccomp: the build would run unconfined"
            )
            if self.config.mode is SandboxMode.STRICT:
                raise BuildSandboxError(f"strict sandbox: {message} (see: arena doctor)")
            LOGGER.warning("build sandbox: %s", message)
        if not self.network or self.slirp:
            return
        message = (
            f"{NETWORK_ENV} is on, but without bubblewrap and slirp4netns as root a build's "
            "network cannot be kept off the host's loopback"
        )
        if self.config.mode is SandboxMode.STRICT or not self._tcp_rule():
            raise BuildSandboxError(f"{message} (see: arena doctor)")
        LOGGER.warning(
            "build sandbox: %s; the host network with TCP to ports %s only (Landlock)",
            message,
            ", ".join(map(str, NETWORK_PORTS)),
        )
        self.notes.append("host network")

    def _tcp_rule(self) -> bool:
        """Landlock can limit the build's TCP connections to :data:`NETWORK_PORTS` here."""
        return self.caps.landlock_abi >= 4 and Layer.LANDLOCK not in self.config.disable

    def limits_and_filters(self, *, writable: tuple[Path, Path] | None = None) -> list[str]:
        """The end of the chain: rlimits, Landlock (filesystem rules only for the
        *writable* work and tmp directories of a build without bubblewrap; TCP ports
        with the network) and the runner with its seccomp mode and the build command."""
        confine: dict[str, object] = {}
        values = chain.rlimits(
            data=self.limits.memory_bytes,
            fsize=self.limits.disk_bytes,
            nofile=self.limits.open_files,
            nproc=self.limits.processes if self.uid is not None else None,
        )
        argv = chain.rlimit_step(self.caps, values, confine)
        ports = list(NETWORK_PORTS)
        if writable is not None and Layer.LANDLOCK in self.layers:
            work, tmp = writable
            rules = landlock_rules(str(work), [str(work), str(tmp)])
            if self.network:
                extra = [("/etc/resolv.conf", landlock.READ)]
                extra += [(p, landlock.READ) for p in NETWORK_ETC]
                rules["rules"] = [*cast("list[tuple[str, int]]", rules["rules"]), *extra]
                rules["tcp"] = ports
                self.notes.append(f"TCP to ports {', '.join(map(str, ports))} only")
            confine["landlock"] = rules
        elif self.network and self._tcp_rule():
            confine["landlock"] = {"rules": [], "write": [], "tcp": ports, "fs": False}
            self.notes.append(f"TCP to ports {', '.join(map(str, ports))} only")
        if confine:
            argv += confine_prefix(confine)
        # The runner loads the build's own filter (seccomp.build_step) after unpacking.
        seccomp = Layer.SECCOMP in self.layers
        mode = ("network" if self.network else "offline") if seccomp else "none"
        return [*argv, sys.executable, "-I", "-S", RUNNER, mode, "--", *self.command]

    def execute(
        self, argv: list[str], env: dict[str, str], *, cwd: str, watch: Watchdog | None
    ) -> BuildRun:
        """Start the chain, feed the runner the bot (a tar stream on its stdin), keep the
        tail of its stderr (the build's output) and spool its stdout (the result) under
        a cap, enforce the time and, without in-memory filesystems, the disk (*watch*).

        :raises BuildTimeout: after the time limit.
        :raises BuildSandboxError: if the result or the disk breaks a cap.
        """
        cap = 2 * self.limits.disk_bytes + (16 << 20)
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        kill = _killer(process, self)
        output: deque[bytes] = deque()
        overflow = threading.Event()
        with tempfile.TemporaryFile(dir=self.private) as spool:
            jobs: list[tuple[Callable[..., None], tuple[object, ...]]] = [
                (build_streams.tail, (process.stderr, output)),
                (build_streams.spool, (process.stdout, spool, cap, overflow, kill)),
                (build_streams.feed, (self.directory, process.stdin, self.limits.disk_bytes)),
            ]
            if watch is not None:
                jobs.append((watch, (process, kill)))
            threads = [threading.Thread(target=f, args=a, daemon=True) for f, a in jobs]
            for thread in threads:
                thread.start()
            try:
                process.wait(timeout=self.limits.time_s)
            except subprocess.TimeoutExpired:
                raise BuildTimeout(f"took longer than {self.limits.time_s:.0f} s") from None
            finally:
                kill()
                process.wait()
                for thread in threads:
                    thread.join(timeout=10)
            text = b"".join(output).decode(errors="replace")
            if overflow.is_set():
                raise BuildSandboxError(f"the build's result is larger than {mib(cap)}")
            if watch is not None:
                watch.check()
            how = self.describe_run()
            if process.returncode != 0:
                return BuildRun(process.returncode, text, how)
            spool.seek(0)
            build_streams.unpack(spool, self.directory, self.limits)
            return BuildRun(0, text, how)

    def describe_run(self) -> str:
        """One line: the protections this build ran under."""
        layers = [layer.value for layer in Layer if layer in self.layers]
        if self.cgroup is None:
            layers = [x for x in layers if x != Layer.CGROUP.value]
        if not self.network:
            self.notes.append("no network")
        return "build sandbox: " + ", ".join([*layers, *self.notes])


def _killer(process: subprocess.Popen[bytes], build: BuildJob) -> Callable[[], None]:
    def kill() -> None:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        if build.cgroup is not None:
            build.cgroup.kill()
        if build.lease is not None:
            for pid in uids.processes_of(build.lease.uid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    return kill


def _kill_uid(uid: int) -> None:
    """Every process left under the build's uid, however it hid (sync wrapper)."""
    if not uids.processes_of(uid):
        return
    worker = threading.Thread(target=lambda: asyncio.run(uids.kill_all(uid)))
    worker.start()
    worker.join()


def _wipe(private: Path, uid: int | None) -> None:
    try:
        shutil.rmtree(private)
    except PermissionError:
        if uid is not None:
            chain.remove_as(uid, private / "work", private / "tmp")
        shutil.rmtree(private, ignore_errors=True)
    except FileNotFoundError:
        pass
