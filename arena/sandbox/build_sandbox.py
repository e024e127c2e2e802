"""The sandbox of a bot's build step: no more rights than the bot has at play.

A build (``npm ci``, ``pip install --target``, a compiler) is the bot author's code, run
on the arena's machine before any game. With bubblewrap it runs as::

    sh -c 'echo $$ > CGROUP/cgroup.procs; exec "$@"'   the build's cgroup (memory, pids)
    setpriv --pdeathsig KILL --                         dies with the arena
    [nsenter --net=/proc/HOLDER/ns/net --]              only with the network allowed
    bwrap ... --                                        the play sandbox's view of the system
    setpriv --reuid U --regid U ... --no-new-privs --   a leased bot uid, no capabilities
    unshare --user --map-current-user --                its own user namespace
    prlimit --nproc --data --fsize --nofile --core --   rlimits
    python -I -S confine.py SPEC --                     Landlock TCP ports (network only)
    python -I -S build_runner.py MODE -- BUILD...       unpack, seccomp, build, pack

Inside, the bot's directory is an in-memory filesystem of bounded size at its own path,
filled from a tar stream the arena writes (the sandbox never sees the host directory);
``/tmp`` (also ``$HOME``) is another bounded one; nothing else is writable. The system
(``/usr``, a few files of ``/etc``), the arena's interpreter and virtual environment are
read-only; the data directory, the database, other bots, ``/root`` and ``/home`` are not
there at all (except the interpreter's own directory, if it lives under one of them). The result comes back as a tar stream read with a byte cap and unpacked
with tarfile's ``data`` filter under a size and file-count cap.

The network is off unless the organiser allows it (:data:`NETWORK_ENV`); then the build
gets a network namespace of its own behind slirp4netns with ``--disable-host-loopback``
(the referee's port, a local database, the dashboard on 127.0.0.1 are unreachable) and,
where Landlock has TCP rules, may connect to :data:`NETWORK_PORTS` only (so services on
the host's other addresses are unreachable too, unless they listen on those ports).

Without bubblewrap (a container), a build gets what a bot gets there: the same runner in
a private, empty working directory and a private TMPDIR, Landlock (write only those two),
seccomp, rlimits, the uid switch where the interpreter is reachable by a bot uid (else
root without capabilities), and a disk watchdog (checked every :data:`WATCH_INTERVAL_S`)
instead of in-memory filesystems. The network there is the host's: best-effort allows it
with Landlock's TCP rule (:data:`NETWORK_PORTS` only) and a warning; ``strict`` refuses
it, and refuses a build with neither bubblewrap nor Landlock plus seccomp (best-effort
warns and runs it with what there is).
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
import tarfile
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, cast

from arena.sandbox import bwrap, cgroups, landlock, uids
from arena.sandbox.config import Layer, SandboxConfig, SandboxError, SandboxMode
from arena.sandbox.probe import (
    Capabilities,
    confine_prefix,
    landlock_rules,
    plan,
    probe,
    runtime_paths,
)

LOGGER = logging.getLogger(__name__)

NETWORK_ENV = "ARENA_BUILD_NETWORK"
"""``1``/``on``: builds may use the network (default off). Read by ``arena bot submit``,
``arena match`` and the dashboard alike."""
NETWORK_PORTS = (53, 80, 443)
"""TCP ports a build with network may connect to (DNS over TCP, HTTP, HTTPS)."""
RUNNER = str(Path(__file__).resolve().with_name("build_runner.py"))
WATCH_INTERVAL_S = 0.2
SLIRP_DNS = "10.0.2.3"
NETWORK_ETC = ("/etc/ssl/certs", "/etc/ca-certificates")
"""Read-only for builds with the network: the CA certificates (not ``/etc/ssl/private``)."""
_OUTPUT_TAIL = 64 * 1024
_JOIN_CGROUP = (
    'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; '
    'unset PWD OLDPWD; exec "$@"'
)


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


def run_build(
    directory: Path,
    command: Sequence[str],
    *,
    config: SandboxConfig,
    limits: BuildLimits,
    network: bool,
) -> BuildRun:
    """Run *command* in a sandboxed copy of *directory*; on success the result is unpacked
    back into *directory* (new and changed files; nothing outside it).

    :raises BuildSandboxError: if the sandbox cannot be had as *config* requires, the
        result breaks a limit, or the network is asked for where it cannot be isolated.
    :raises BuildTimeout: after ``limits.time_s``.
    """
    if config.mode is SandboxMode.OFF:
        raise ValueError("run_build() is for sandboxed builds; mode is off")
    caps = probe()
    active = plan(config, caps).layers
    with _Build(directory, list(command), config, caps, active, limits, network) as job:
        return job.run()


def describe(config: SandboxConfig, network: bool, caps: Capabilities | None = None) -> str:
    """One line for ``arena doctor``: what a build gets here."""
    caps = caps or probe()
    try:
        active = plan(config, caps).layers
    except SandboxError as exc:
        return f"builds refused: {exc}"
    if config.mode is SandboxMode.OFF:
        return "builds unsandboxed (sandbox off)"
    net = "network via slirp4netns (no host loopback)" if network else "no network"
    if Layer.BWRAP in active and caps.bwrap is not None:
        who = "a bot uid in its own user namespace" if _userns_works(caps) else "a bot uid"
        if not caps.root:
            who = "your uid in a user namespace"
        return f"builds: bubblewrap, {who}, no capabilities, bounded in-memory dirs, {net}"
    parts = [layer.value for layer in Layer if layer in active]
    return f"builds: {', '.join(parts)} (no bubblewrap: disk watchdog), {net}"


_userns_cache: dict[str, bool] = {}


def _userns_works(caps: Capabilities) -> bool:
    """Whether a bot uid may create a user namespace here (``unshare --user``)."""
    unshare = shutil.which("unshare")
    if not caps.root or caps.setpriv is None or unshare is None:
        return False
    if unshare not in _userns_cache:
        lease = None
        with contextlib.suppress(OSError):
            lease = uids.acquire(*SandboxConfig().uid_range)
        uid = lease.uid if lease is not None else 65534
        try:
            done = subprocess.run(
                [caps.setpriv, *_switch(uid), "--", unshare, "--user", "--map-current-user",
                 "--", "true"],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False,
            )  # fmt: skip
            _userns_cache[unshare] = done.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _userns_cache[unshare] = False
        finally:
            if lease is not None:
                lease.close()
    return _userns_cache[unshare]


def _switch(uid: int) -> list[str]:
    return [f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
            "--no-new-privs"]  # fmt: skip


def _rlimits(limits: BuildLimits, with_nproc: bool) -> dict[str, tuple[int, int]]:
    values = {
        "data": (limits.memory_bytes, limits.memory_bytes),
        "fsize": (limits.disk_bytes, limits.disk_bytes),
        "nofile": (limits.open_files, limits.open_files),
        "core": (0, 0),
    }
    if with_nproc:
        values["nproc"] = (limits.processes, limits.processes)
    return values


@dataclass
class _Build:
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

    def __enter__(self) -> _Build:
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

    def run(self) -> BuildRun:
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
        argv: list[str] = []
        if self.cgroup is not None:
            argv += ["/bin/sh", "-c", _JOIN_CGROUP, "arena-cgroup", *self.cgroup.procs_files, "--"]
        if self.use_bwrap:
            return self._run_bwrap(argv)
        return self._run_direct(argv)

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
        ports = self.caps.landlock_abi >= 4 and Layer.LANDLOCK not in self.config.disable
        if self.config.mode is SandboxMode.STRICT or not ports:
            raise BuildSandboxError(f"{message} (see: arena doctor)")
        LOGGER.warning(
            "build sandbox: %s; the host network with TCP to ports %s only (Landlock)",
            message,
            ", ".join(map(str, NETWORK_PORTS)),
        )
        self.notes.append("host network")

    @property
    def slirp(self) -> bool:
        """The network allowed, in a namespace of its own served by slirp4netns."""
        return (
            self.network
            and self.use_bwrap
            and self.caps.root
            and shutil.which("slirp4netns") is not None
        )

    # -- with bubblewrap -----------------------------------------------------------------

    def _run_bwrap(self, argv: list[str]) -> BuildRun:
        caps = self.caps
        assert caps.bwrap is not None
        uid = self.lease.uid if self.lease is not None else None
        if caps.root and (uid is None or caps.setpriv is None):
            raise BuildSandboxError(
                "a build cannot run as root: no bot uid here (see: arena doctor)"
            )
        if caps.setpriv is not None:
            argv += [caps.setpriv, "--pdeathsig", "KILL", "--"]
        if self.slirp:
            argv += self._network()
        argv += self._bwrap_args(uid)
        if uid is not None and caps.setpriv is not None:
            argv += [caps.setpriv, *_switch(uid), "--"]
            unshare = shutil.which("unshare")
            if unshare is not None and _userns_works(caps):
                argv += [unshare, "--user", "--map-current-user", "--"]
                self.notes.append("own user namespace")
        argv += self._limits_and_filters(with_nproc=uid is not None, filesystem=False)
        env = _env(home="/tmp", tmp="/tmp", interpreter=Path(sys.executable).parent)
        return self._execute(argv, env, cwd="/", watch=[])

    def _bwrap_args(self, uid: int | None) -> list[str]:
        etc = self.private / "etc"
        etc.mkdir(mode=0o755)
        bot_uid = uid if uid is not None else os.getuid()
        (etc / "passwd").write_text(
            f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
            f"build:x:{bot_uid}:{bot_uid}:arena build:/tmp:/usr/sbin/nologin\n"
        )
        (etc / "group").write_text(f"root:x:0:\nbuild:x:{bot_uid}:\n")
        files = [(str(etc / "passwd"), "/etc/passwd"), (str(etc / "group"), "/etc/group")]
        if self.slirp:
            (etc / "resolv.conf").write_text(f"nameserver {SLIRP_DNS}\n")
            files.append((str(etc / "resolv.conf"), "/etc/resolv.conf"))
        elif self.network and os.path.exists("/etc/resolv.conf"):
            files.append(("/etc/resolv.conf", "/etc/resolv.conf"))
        if self.network:
            files += [(p, p) for p in NETWORK_ETC if os.path.isdir(p)]
        for path in etc.iterdir():
            path.chmod(0o644)
        target = str(self.directory.resolve())
        spec = bwrap.BwrapSpec(
            bot_dir=target,
            readonly=runtime_paths(),
            share_net=self.network,  # slirp4netns's namespace (entered by nsenter), or the host's
            privileged=self.caps.root,
            keep_setuid=uid is not None,
            tmp_bytes=self.limits.tmp_bytes,
            etc_files=files,
        )
        args = bwrap.build(spec, self.caps.bwrap or "bwrap")
        if args[-1] != "--":
            raise BuildSandboxError("unexpected bubblewrap command line")
        # The bot's directory (bound read-only by the play sandbox's tree) is covered by a
        # bounded in-memory filesystem the build owns; the files come in on stdin.
        return [*args[:-1], "--size", str(self.limits.disk_bytes), "--tmpfs", target,
                "--chmod", "0777", target, "--"]  # fmt: skip

    def _network(self) -> list[str]:
        """A network namespace served by slirp4netns (no route to the host's loopback),
        made and configured before the build starts; ``nsenter`` puts bubblewrap in it."""
        unshare, nsenter, slirp = (shutil.which(x) for x in ("unshare", "nsenter", "slirp4netns"))
        if unshare is None or nsenter is None or slirp is None:
            raise BuildSandboxError("the build network needs unshare, nsenter and slirp4netns")
        # Both helpers die with the arena (parent-death signal), like the build itself.
        die = [self.caps.setpriv, "--pdeathsig", "KILL", "--"] if self.caps.setpriv else []
        holder = subprocess.Popen(
            [*die, unshare, "--net", "--", "sleep", "86400"], stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        self.helpers.append(holder)
        netns = f"/proc/{holder.pid}/ns/net"
        deadline = time.monotonic() + 10
        while _same_netns(netns) and time.monotonic() < deadline:
            time.sleep(0.005)  # until unshare has made the namespace
        ready_r, ready_w = os.pipe()
        try:
            slirp_proc = subprocess.Popen(
                [*die, slirp, "--configure", "--mtu=65520", "--disable-host-loopback",
                 "--enable-sandbox", "--enable-seccomp", "--ready-fd", str(ready_w),
                 str(holder.pid), "tap0"],
                pass_fds=(ready_w,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, start_new_session=True,
            )  # fmt: skip
            self.helpers.append(slirp_proc)
            os.close(ready_w)
            ready_w = -1
            if os.read(ready_r, 1) != b"1":
                err = slirp_proc.stderr.read().decode(errors="replace") if slirp_proc.stderr else ""
                line = err.strip().splitlines()[-1] if err.strip() else "no reason given"
                raise BuildSandboxError(f"slirp4netns failed: {line}")
        finally:
            os.close(ready_r)
            if ready_w >= 0:
                os.close(ready_w)
        self.notes.append("network via slirp4netns without host loopback")
        return [nsenter, f"--net={netns}", "--"]

    # -- without bubblewrap --------------------------------------------------------------

    def _run_direct(self, argv: list[str]) -> BuildRun:
        caps = self.caps
        uid = self.lease.uid if self.lease is not None else None
        work, tmp = self.private / "work", self.private / "tmp"
        for path in (work, tmp):
            path.mkdir(mode=0o700)
            if uid is not None:
                os.chown(path, uid, uid)
        if caps.setpriv is not None:
            argv += [caps.setpriv, "--pdeathsig", "KILL"]
            if uid is not None:
                argv += _switch(uid)
            elif caps.root:
                argv += ["--inh-caps=-all", "--no-new-privs"]
                if caps.setpcap:
                    argv.append("--bounding-set=-all")
            argv.append("--")
        argv += self._limits_and_filters(
            with_nproc=uid is not None, filesystem=True, work=work, tmp=tmp
        )
        env = _env(home=str(tmp), tmp=str(tmp), interpreter=Path(sys.executable).parent)
        self.notes.append(f"no bubblewrap: disk watchdog every {WATCH_INTERVAL_S} s")
        return self._execute(argv, env, cwd=str(work), watch=[work, tmp])

    # -- shared --------------------------------------------------------------------------

    def _limits_and_filters(
        self,
        *,
        with_nproc: bool,
        filesystem: bool,
        work: Path | None = None,
        tmp: Path | None = None,
    ) -> list[str]:
        argv: list[str] = []
        confine: dict[str, object] = {}
        values = _rlimits(self.limits, with_nproc)
        if self.caps.prlimit is not None:
            argv += [self.caps.prlimit, *(f"--{k}={s}:{h}" for k, (s, h) in values.items()), "--"]
        else:
            confine["rlimits"] = values
        ports = list(NETWORK_PORTS)
        if filesystem and Layer.LANDLOCK in self.layers and work is not None and tmp is not None:
            rules = landlock_rules(str(work), [str(work), str(tmp)])
            if self.network:
                extra = [("/etc/resolv.conf", landlock.READ)]
                extra += [(p, landlock.READ) for p in NETWORK_ETC]
                rules["rules"] = [*cast("list[tuple[str, int]]", rules["rules"]), *extra]
                rules["tcp"] = ports
                self.notes.append(f"TCP to ports {', '.join(map(str, ports))} only")
            confine["landlock"] = rules
        elif (
            self.network
            and self.caps.landlock_abi >= 4
            and Layer.LANDLOCK not in self.config.disable
        ):
            confine["landlock"] = {"rules": [], "write": [], "tcp": ports, "fs": False}
            self.notes.append(f"TCP to ports {', '.join(map(str, ports))} only")
        if confine:
            argv += confine_prefix(confine)
        # The runner loads the build's own filter (seccomp.build_step) after unpacking.
        seccomp = Layer.SECCOMP in self.layers
        mode = ("network" if self.network else "offline") if seccomp else "none"
        return [*argv, sys.executable, "-I", "-S", RUNNER, mode, "--", *self.command]

    def _execute(
        self,
        argv: list[str],
        env: dict[str, str],
        *,
        cwd: str,
        watch: list[Path],
    ) -> BuildRun:
        """Start the chain, feed the runner the bot (a tar stream on its stdin), keep the
        tail of its stderr (the build's output) and spool its stdout (the result) under
        a cap, enforce the time and, without in-memory filesystems, the disk (*watch*)."""
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
        overflow, disk = threading.Event(), threading.Event()
        with tempfile.TemporaryFile(dir=self.private) as spool:
            threads = [
                threading.Thread(target=_tail, args=(process.stderr, output)),
                threading.Thread(target=_spool, args=(process.stdout, spool, cap, overflow, kill)),
                threading.Thread(
                    target=_feed, args=(self.directory, process.stdin, self.limits.disk_bytes)
                ),
            ]
            limit = self.limits.disk_bytes + self.limits.tmp_bytes
            if watch:
                threads.append(
                    threading.Thread(target=_watch, args=(watch, limit, disk, kill, process))
                )
            for thread in threads:
                thread.daemon = True
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
                raise BuildSandboxError(f"the build's result is larger than {_mib(cap)}")
            if disk.is_set():
                raise BuildSandboxError(f"the build wrote more than {_mib(limit)}")
            how = self.describe_run()
            if process.returncode != 0:
                return BuildRun(process.returncode, text, how)
            spool.seek(0)
            _unpack(spool, self.directory, self.limits)
            return BuildRun(0, text, how)

    def describe_run(self) -> str:
        layers = [layer.value for layer in Layer if layer in self.layers]
        if self.cgroup is None:
            layers = [x for x in layers if x != Layer.CGROUP.value]
        if not self.network:
            self.notes.append("no network")
        return "build sandbox: " + ", ".join([*layers, *self.notes])


def _killer(process: subprocess.Popen[bytes], build: _Build) -> Callable[[], None]:
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


def _tail(stream: IO[bytes] | None, output: deque[bytes]) -> None:
    """Keep the last :data:`_OUTPUT_TAIL` bytes of *stream*."""
    if stream is None:
        return
    size = 0
    while chunk := stream.read1(65536):  # type: ignore[attr-defined]
        output.append(chunk)
        size += len(chunk)
        while size - len(output[0]) >= _OUTPUT_TAIL:
            size -= len(output.popleft())


def _spool(
    reader: IO[bytes],
    spool: IO[bytes],
    cap: int,
    overflow: threading.Event,
    kill: Callable[[], None],
) -> None:
    """Copy the result stream into *spool*, at most *cap* bytes."""
    total = 0
    while chunk := reader.read(65536):
        total += len(chunk)
        if total > cap:
            overflow.set()
            kill()
            return
        spool.write(chunk)


def _feed(source: Path, stdin: IO[bytes] | None, cap: int) -> None:
    """Write the bot's files as a tar stream (the sandbox's copy of the bot)."""
    if stdin is None:
        return
    with (
        contextlib.suppress(OSError, tarfile.TarError),
        stdin,
        tarfile.open(fileobj=stdin, mode="w|") as tar,
    ):
        total = 0
        for path in _entries(source):
            if path.name == ".arena-build.ok" and path.parent == source:
                continue
            info = tar.gettarinfo(str(path), arcname=str(path.relative_to(source)))
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            total += info.size
            if total > cap:
                return  # the sandbox's filesystem would be full anyway
            if info.isreg():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)


def _entries(source: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(source):
        dirs.sort()
        for name in [*sorted(dirs), *sorted(files)]:
            yield Path(root) / name


def _watch(
    paths: list[Path],
    limit: int,
    over: threading.Event,
    kill: Callable[[], None],
    process: subprocess.Popen[bytes],
) -> None:
    """Without an in-memory filesystem: kill the build once it has written *limit*."""
    while process.poll() is None:
        if sum(_usage(p) for p in paths) > limit:
            over.set()
            kill()
            return
        time.sleep(WATCH_INTERVAL_S)


def _usage(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


def _unpack(spool: IO[bytes], directory: Path, limits: BuildLimits) -> None:
    """The result into *directory*: the ``data`` filter (no links out, no devices, no
    absolute names, no set-uid bits, files owned by the arena), within the caps."""
    try:
        with tarfile.open(fileobj=spool, mode="r:") as tar:
            members = tar.getmembers()
            if len(members) > limits.files:
                raise BuildSandboxError(f"the build left more than {limits.files} files")
            total = sum(m.size for m in members if m.isreg())
            if total > limits.disk_bytes:
                raise BuildSandboxError(f"the build left more than {_mib(limits.disk_bytes)}")
            for member in members:
                if PurePosixPath(member.name).parts[:1] == (".arena-build.ok",):
                    raise BuildSandboxError("the build wrote the arena's stamp file")
            tar.extractall(directory, members, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise BuildSandboxError(f"the build's result cannot be unpacked: {exc}") from None


def _env(*, home: str, tmp: str, interpreter: Path) -> dict[str, str]:
    return {
        "PATH": f"{interpreter}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
    }


def _same_netns(path: str) -> bool:
    try:
        return os.stat(path).st_ino == os.stat("/proc/self/ns/net").st_ino
    except OSError:
        return True


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
        setpriv = shutil.which("setpriv")
        if uid is not None and setpriv is not None:
            subprocess.run(
                [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--",
                 "rm", "-rf", "--", str(private / "work"), str(private / "tmp")],
                check=False, stdin=subprocess.DEVNULL, capture_output=True,
            )  # fmt: skip
        shutil.rmtree(private, ignore_errors=True)
    except FileNotFoundError:
        pass


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB"


__all__ = [
    "NETWORK_ENV",
    "NETWORK_PORTS",
    "BuildLimits",
    "BuildRun",
    "BuildSandboxError",
    "BuildTimeout",
    "describe",
    "network_allowed",
    "run_build",
]
