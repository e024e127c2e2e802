"""Setting up, starting and tearing down the sandbox of one bot process.

The bot's command becomes a chain of small programs, each of which applies one layer and
execs the next, so no Python code runs between fork and exec in the referee (gRPC's
threads make that unsafe) and every step is an ordinary, inspectable command line::

    sh -c 'echo $$ > CGROUP/cgroup.procs; exec "$@"'    join the bot's cgroup (as root)
    setpriv --pdeathsig KILL [--reuid U ...]            die with the referee; drop the uid
    bwrap ... -- setpriv --reuid U ...                  or: namespaces first, then the uid
    prlimit --cpu=... --data=... --                     rlimits
    python -I -S confine.py SPEC --                     Landlock + seccomp (no bubblewrap)
    <the bot's run command>

A :class:`Launch` owns what the chain needs (a leased uid, the private directories, the
cgroup, a seccomp program) and gives all of it back in :meth:`Launch.cleanup`, which kills
anything of the bot that is still alive first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.sandbox import bwrap, cgroups, quota, seccomp, uids
from arena.sandbox.config import Layer, SandboxConfig, SandboxError, SandboxMode
from arena.sandbox.probe import (
    Capabilities,
    Plan,
    confine_prefix,
    landlock_rules,
    log_plan,
    plan,
    probe,
    runtime_paths,
)

LOGGER = logging.getLogger(__name__)

_JOIN_CGROUP = (
    'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; '
    'unset PWD OLDPWD; exec "$@"'  # the shell exports PWD: keep the environment clean
)
_bpf_cache: dict[bool, bytes] = {}


@dataclass
class Launch:
    """How to start one sandboxed bot process, and what to give back after it."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    plan: Plan
    pass_fds: tuple[int, ...] = ()
    uid: int | None = None
    private: Path | None = None
    """The private directory (``home/``, ``tmp/``, a staged copy of the bot if needed)."""
    cgroup: cgroups.BotCgroup | None = None
    tcp_landlock: bool = False
    """Landlock inside bubblewrap, for its TCP rule alone (the referee is on TCP)."""
    sized: bool = False
    """HOME and TMPDIR are tmpfs mounts of bounded size (:mod:`arena.sandbox.quota`)."""
    _owner: int = -1
    """The ``flock``-ed owner lock of the private directory (:func:`quota.hold`)."""
    _lease: uids.UidLease | None = None
    _fds: list[int] = field(default_factory=list)

    @property
    def layers(self) -> frozenset[Layer]:
        """The layers this process runs under."""
        layers = set(self.plan.layers)
        if self.cgroup is None:
            layers.discard(Layer.CGROUP)
        if self.tcp_landlock:
            layers.add(Layer.LANDLOCK)
        return frozenset(layers)

    def started(self) -> None:
        """The process is started: close our copies of the descriptors it inherited."""
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()

    def kill(self) -> None:
        """SIGKILL everything of the bot that the sandbox can reach (cgroup, uid) now."""
        if self.cgroup is not None:
            self.cgroup.kill()
        if self.uid is not None:
            for pid in uids.processes_of(self.uid):
                with contextlib.suppress(OSError):
                    os.kill(pid, 9)

    async def cleanup(self) -> None:
        """Kill what is left of the bot, remove its cgroup, wipe its private directory
        and give its uid back. Safe to call twice."""
        self.started()
        if self.cgroup is not None:
            await asyncio.to_thread(self.cgroup.remove)
            self.cgroup = None
        if self.uid is not None:
            await uids.kill_all(self.uid)
        if self.private is not None:
            await asyncio.to_thread(_wipe, self.private)
            self.private = None
        if self._owner >= 0:
            os.close(self._owner)  # after the wipe: a sweeper may take it from here
            self._owner = -1
        if self._lease is not None:
            await self._lease.release()  # after the wipe: the uid is ours until here
            self._lease = None


def _wipe(private: Path) -> None:
    """Remove a private directory; the bot's own subdirectories first, emptied as their
    owner when the referee may not enter them (no CAP_DAC_OVERRIDE in a hardened
    container)."""
    for sub in ("home", "tmp"):
        path = private / sub
        quota.unmount(path)
        try:
            shutil.rmtree(path)
        except FileNotFoundError:
            continue
        except PermissionError:
            owner = path.stat().st_uid
            setpriv = shutil.which("setpriv")
            if setpriv is not None:
                subprocess.run(
                    [setpriv, f"--reuid={owner}", f"--regid={owner}", "--clear-groups", "--",
                     "rm", "-rf", "--", str(path)],
                    check=False, stdin=subprocess.DEVNULL, capture_output=True,
                )  # fmt: skip
            with contextlib.suppress(OSError):
                path.rmdir()
    shutil.rmtree(private, ignore_errors=True)


def _bpf(allow_inet: bool) -> bytes:
    """The seccomp filter as a BPF program (compiled once per referee process)."""
    if allow_inet not in _bpf_cache:
        compiled = seccomp.build(allow_inet=allow_inet)
        fd = os.memfd_create("arena-seccomp")
        try:
            compiled.export_bpf(fd)
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
            _bpf_cache[allow_inet] = b"".join(chunks)
        finally:
            os.close(fd)
            compiled.close()
    return _bpf_cache[allow_inet]


_readable_cache: dict[tuple[str, int], bool] = {}


def _readable_by_others(directory: Path) -> bool:
    """True if every directory of the tree is world-searchable and every file readable
    (remembered per directory and modification time: a tree with node_modules takes
    tens of milliseconds to walk, and a bot does not change during a match)."""
    key = (str(directory), directory.stat().st_mtime_ns)
    if key not in _readable_cache:
        _readable_cache[key] = _walk_readable(directory)
    return _readable_cache[key]


def _walk_readable(directory: Path) -> bool:
    for root, dirs, files in os.walk(directory):
        for name in [*dirs, *files]:
            try:
                mode = os.lstat(os.path.join(root, name)).st_mode
            except OSError:
                return False
            if stat.S_ISLNK(mode):
                continue
            need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
            if mode & need != need:
                return False
    mode = directory.stat().st_mode
    return mode & (stat.S_IROTH | stat.S_IXOTH) == stat.S_IROTH | stat.S_IXOTH


def _stage(directory: Path, target: Path) -> Path:
    """A copy of the bot's directory that other uids can read (the original is private)."""
    shutil.copytree(directory, target, symlinks=True)
    for root, dirs, files in os.walk(target):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            mode = os.lstat(path).st_mode
            if not stat.S_ISLNK(mode):
                extra = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) or mode & 0o100 else 0)
                os.chmod(path, stat.S_IMODE(mode) | extra)
    target.chmod(0o755)
    return target


def _address(env: Mapping[str, str]) -> tuple[str | None, int | None]:
    """``(unix socket path, None)`` or ``(None, TCP port)`` of the referee's address."""
    address = env.get("ARENA_ADDRESS", "")
    if address.startswith("unix://"):
        return address.removeprefix("unix://"), None
    if address.startswith("unix:"):
        return address.removeprefix("unix:"), None
    with contextlib.suppress(ValueError):
        return None, int(address.rsplit(":", 1)[1])
    return None, None


def _rlimits(config: SandboxConfig, with_nproc: bool) -> dict[str, tuple[int, int]]:
    limits = config.limits
    values = {
        "cpu": (limits.cpu_seconds, limits.cpu_seconds + 1),
        "data": (limits.memory_bytes, limits.memory_bytes),
        "fsize": (limits.file_bytes, limits.file_bytes),
        "nofile": (limits.open_files, limits.open_files),
        "core": (0, 0),
    }
    if with_nproc:
        values["nproc"] = (limits.processes, limits.processes)
    return values


async def prepare(
    config: SandboxConfig, directory: Path, run: Sequence[str], env: Mapping[str, str]
) -> Launch:
    """Set up the sandbox of one bot process that runs *run* in *directory*.

    :raises SandboxError: in ``strict`` mode when a layer is missing or fails to set up.
    :raises OSError: when the private directory cannot be made.
    """
    if config.mode is SandboxMode.OFF:
        raise ValueError("prepare() is for sandboxed processes; mode is off")
    caps = await asyncio.to_thread(probe)
    active = plan(config, caps)
    log_plan(active)
    launch = Launch(argv=[], env=dict(env), cwd=str(directory), plan=active)
    try:
        await _prepare(launch, config, caps, directory, run)
    except BaseException:
        await launch.cleanup()
        raise
    return launch


async def _prepare(
    launch: Launch,
    config: SandboxConfig,
    caps: Capabilities,
    directory: Path,
    run: Sequence[str],
) -> None:
    layers = launch.plan.layers
    use_bwrap = Layer.BWRAP in layers and caps.bwrap is not None
    if Layer.UID in layers:
        launch._lease = await asyncio.to_thread(uids.acquire, *config.uid_range)
        launch.uid = launch._lease.uid
    private = await _workdir(launch, config, caps)
    bot_dir = directory
    if launch.uid is not None and not await asyncio.to_thread(_readable_by_others, directory):
        bot_dir = await asyncio.to_thread(_stage, directory, private / "bot")
    launch.cwd = str(bot_dir)
    socket_path, tcp_port = _address(launch.env)
    if launch.uid is not None and socket_path is not None:
        _open_socket(socket_path, through_bwrap=use_bwrap)
    if Layer.CGROUP in layers and caps.cgroup is not None:
        launch.cgroup = await asyncio.to_thread(_cgroup, caps.cgroup, config)

    argv: list[str] = []
    if launch.cgroup is not None:
        argv += ["/bin/sh", "-c", _JOIN_CGROUP, "arena-cgroup", *launch.cgroup.procs_files, "--"]
    argv += _outer(caps, launch.uid, use_bwrap)
    confine: dict[str, object] = {}
    if use_bwrap:
        argv += _bwrap(launch, config, caps, bot_dir, socket_path, tcp_port)
        confine = _tcp_only(launch, config, caps, tcp_port)
    else:
        confine = _confine(layers, private, bot_dir, tcp_port)
    if Layer.RLIMITS in layers:
        values = _rlimits(config, with_nproc=launch.uid is not None)
        if caps.prlimit is not None:
            argv += [caps.prlimit, *(f"--{k}={s}:{h}" for k, (s, h) in values.items()), "--"]
        else:
            confine["rlimits"] = values
    if confine:
        argv += confine_prefix(confine)
    launch.argv = [*argv, *run]


def _tcp_only(
    launch: Launch, config: SandboxConfig, caps: Capabilities, tcp_port: int | None
) -> dict[str, object]:
    """Inside bubblewrap with the host network shared for the referee's TCP port:
    Landlock (ABI 4+) limits TCP to connecting to that one port."""
    if tcp_port is None or caps.landlock_abi < 4 or Layer.LANDLOCK in config.disable:
        return {}
    launch.tcp_landlock = True
    return {"landlock": {"rules": [], "write": [], "tcp": [tcp_port], "fs": False}}


def _cgroup(found: cgroups.Hierarchy, config: SandboxConfig) -> cgroups.BotCgroup | None:
    limits = config.limits
    made = cgroups.create(
        found,
        memory_bytes=limits.memory_bytes,
        processes=limits.processes,
        cpu_cores=limits.cpu_cores,
    )
    if made is None and config.mode is SandboxMode.STRICT:
        raise SandboxError("strict sandbox: cannot create the bot's cgroup")
    return made


def _confine(
    layers: frozenset[Layer], private: Path, bot_dir: Path, tcp_port: int | None
) -> dict[str, object]:
    """The exec wrapper's spec: Landlock and seccomp, where bubblewrap is not used."""
    confine: dict[str, object] = {}
    if Layer.LANDLOCK in layers:
        writable = [str(private / "home"), str(private / "tmp")] if Layer.WORKDIR in layers else []
        confine["landlock"] = landlock_rules(str(bot_dir), writable, tcp_port)
    if Layer.SECCOMP in layers:
        confine["seccomp"] = {"allow_inet": tcp_port is not None}
    return confine


async def _workdir(launch: Launch, config: SandboxConfig, caps: Capabilities) -> Path:
    """Make the private directory, hold its owner lock and, with the workdir layer, point
    HOME and TMPDIR into it (sized tmpfs mounts where the referee can mount)."""
    private = launch.private = await asyncio.to_thread(_private_dir, launch.uid)
    launch._owner = await asyncio.to_thread(quota.hold, private)
    if Layer.WORKDIR in launch.plan.layers:
        launch.env.update(HOME=str(private / "home"), TMPDIR=str(private / "tmp"))
        if caps.tmpfs_mount:
            launch.sized = await asyncio.to_thread(_size_limits, private, launch.uid, config)
    return private


def _size_limits(private: Path, uid: int | None, config: SandboxConfig) -> bool:
    """Make HOME and TMPDIR sized tmpfs mounts; False (and a log line, or in strict mode
    an error) if the kernel refuses."""
    limits = config.limits
    try:
        quota.mount(private / "home", limits.home_bytes, uid)
        quota.mount(private / "tmp", limits.tmp_bytes, uid)
    except OSError as exc:
        quota.unmount(private / "home")
        if config.mode is SandboxMode.STRICT:
            raise SandboxError(f"strict sandbox: cannot bound the bot's HOME: {exc}") from None
        LOGGER.warning("no size limit on the bot's HOME and TMPDIR: %s", exc)
        return False
    return True


def _private_dir(uid: int | None) -> Path:
    """``arena-bot-XXXX/{home,tmp}``: HOME and TMPDIR, mode 0700, owned by the bot's uid.

    The directory holding them stays the referee's (mode 0711: the bot may cross it, not
    list or change it), so the referee can wipe it without CAP_DAC_OVERRIDE."""
    private = Path(tempfile.mkdtemp(prefix="arena-bot-"))
    private.chmod(0o711)
    for sub in ("home", "tmp"):
        (private / sub).mkdir(mode=0o700)
        if uid is not None:
            os.chown(private / sub, uid, uid)
    return private


def _open_socket(path: str, *, through_bwrap: bool) -> None:
    """Let bot uids connect to the referee's socket: connecting needs write access to the
    socket; without bubblewrap (which mounts the socket itself) also search access to its
    directory. The token, not the path, is what admits a bot."""
    with contextlib.suppress(OSError):
        os.chmod(path, 0o666)
        if not through_bwrap:
            os.chmod(os.path.dirname(path), 0o711)


def _switch(uid: int) -> list[str]:
    return [f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all"]


def _outer(caps: Capabilities, uid: int | None, use_bwrap: bool) -> list[str]:
    """``setpriv --pdeathsig KILL`` (the kernel kills the bot with the referee), with the
    uid switch when there is no bubblewrap to do it inside."""
    if caps.setpriv is None:
        return []
    argv = [caps.setpriv, "--pdeathsig", "KILL"]
    if not use_bwrap:
        if uid is not None:
            argv += [*_switch(uid), "--no-new-privs"]
        elif caps.root:
            # Root without a uid switch: at least without capabilities (emptying the
            # bounding set needs CAP_SETPCAP, which a hardened container drops).
            argv += ["--inh-caps=-all", "--no-new-privs"]
            if caps.setpcap:
                argv.append("--bounding-set=-all")
    return [*argv, "--"]


def _bwrap(
    launch: Launch,
    config: SandboxConfig,
    caps: Capabilities,
    bot_dir: Path,
    socket_path: str | None,
    tcp_port: int | None,
) -> list[str]:
    """The bubblewrap step (and the uid switch inside it); adjusts the bot's environment
    to the paths it sees inside."""
    assert caps.bwrap is not None and launch.private is not None
    uid = launch.uid
    etc = launch.private / "etc"
    etc.mkdir()
    bot_uid = uid if uid is not None else os.getuid()
    (etc / "passwd").write_text(
        f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
        f"bot:x:{bot_uid}:{bot_uid}:arena bot:{bwrap.HOME_INSIDE}:/usr/sbin/nologin\n"
    )
    (etc / "group").write_text(f"root:x:0:\nbot:x:{bot_uid}:\n")
    seccomp_fd = None
    if Layer.SECCOMP in launch.plan.layers:
        seccomp_fd = os.memfd_create("arena-seccomp", 0)
        launch._fds.append(seccomp_fd)
        os.write(seccomp_fd, _bpf(tcp_port is not None))
        os.lseek(seccomp_fd, 0, os.SEEK_SET)
        launch.pass_fds = (seccomp_fd,)
    workdir = Layer.WORKDIR in launch.plan.layers
    # A host tmpfs (sized, owned by the bot uid) when we could mount one; else, in an
    # unprivileged bubblewrap, its own sized tmpfs (owned by the bot there); else, as root
    # without mounts, the plain host directory (RLIMIT_FSIZE per file only).
    tmpfs_inside = workdir and not launch.sized and not caps.root
    spec = bwrap.BwrapSpec(
        bot_dir=str(bot_dir),
        readonly=runtime_paths(),
        home=str(launch.private / "home") if workdir and not tmpfs_inside else None,
        home_bytes=config.limits.home_bytes if tmpfs_inside else None,
        socket=socket_path,
        share_net=tcp_port is not None,
        privileged=caps.root,
        keep_setuid=uid is not None,
        tmp_bytes=config.limits.tmp_bytes,
        seccomp_fd=seccomp_fd,
        etc_files=((str(etc / "passwd"), "/etc/passwd"), (str(etc / "group"), "/etc/group")),
    )
    argv = bwrap.build(spec, caps.bwrap)
    if uid is not None and caps.setpriv is not None:
        argv += [caps.setpriv, *_switch(uid), "--"]
    env = shutil.which("env")
    if env is not None:
        argv += [env, "-u", "PWD", "--"]  # bwrap exports PWD: keep the environment as documented
    if Layer.WORKDIR in launch.plan.layers:
        launch.env["HOME"] = bwrap.HOME_INSIDE
        launch.env["TMPDIR"] = "/tmp"
    if socket_path is not None:
        launch.env["ARENA_ADDRESS"] = f"unix://{bwrap.SOCKET_INSIDE}"
    launch.cwd = "/"
    return argv
