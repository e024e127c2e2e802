"""Setting up, starting and tearing down the sandbox of one bot process.

The bot's command becomes a chain of small programs, each of which applies one layer and
execs the next, so no Python code runs between fork and exec in the referee (gRPC's
threads make that unsafe) and every step is an ordinary, inspectable command line::

    sh -c 'echo $$ > CGROUP/cgroup.procs; exec "$@"'    join the bot's cgroup (as root)
    setpriv --pdeathsig KILL [--reuid U ...]            die with the referee; drop the uid
    bwrap ... -- setpriv --reuid U ...                  or: namespaces first, then the uid
    prlimit --cpu=... --data=... --                     rlimits
    python -I -S confine.py SPEC --                     Landlock + seccomp (no bubblewrap)
    sh -c 'printf R >&3; exec "$@"'                     tell the referee: the bot is next
    <the bot's run command>

The chain's stdin is the write end of the ready pipe, which only its last step writes
to (:func:`chain.ready_step`): an exit before that signal is the arena's failure
(bubblewrap's setup, a helper, the cgroup join), never the bot's, which had not run.

A :class:`Launch` owns what the chain needs (a leased uid, the private directories, the
cgroup, a seccomp program) and gives all of it back in :meth:`Launch.cleanup`, which kills
anything of the bot that is still alive first.

The steps shared with a bot's build are in :mod:`arena.sandbox.chain`, the pieces of the
bot's own layers in :mod:`arena.sandbox.launch_layers`, its private directories in
:mod:`arena.sandbox.workdirs`; this module puts them together and gives them back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.sandbox import bwrap, cgroups, chain, launch_layers, quota, uids, workdirs
from arena.sandbox.config import Layer, SandboxConfig, SandboxError, SandboxMode
from arena.sandbox.probe import (
    Capabilities,
    Plan,
    confine_prefix,
    log_plan,
    plan,
    probe,
    runtime_paths,
)

LOGGER = logging.getLogger(__name__)


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
    ready_writer: int | None = None
    """The write end of the ready pipe: the chain's stdin (:func:`chain.ready_step`)."""
    _owner: int = -1
    """The ``flock``-ed owner lock of the private directory (:func:`quota.hold`)."""
    _lease: uids.UidLease | None = None
    _fds: list[int] = field(default_factory=list)
    _ready: int = -1
    """The read end of the ready pipe (non-blocking), until the signal or the end is read."""
    _set_up: bool = False

    @property
    def layers(self) -> frozenset[Layer]:
        """The layers this process runs under."""
        layers = set(self.plan.layers)
        if self.cgroup is None:
            layers.discard(Layer.CGROUP)
        if self.tcp_landlock:
            layers.add(Layer.LANDLOCK)
        return frozenset(layers)

    def setup_finished(self) -> bool:
        """Whether the chain's last step has said it is exec-ing the bot's command (read
        without waiting: the signal is in the pipe before the bot runs)."""
        if self._set_up or self._ready < 0:
            return self._set_up
        try:
            self._set_up = os.read(self._ready, 1) == chain.READY_BYTE
        except BlockingIOError:
            return False  # not yet: the chain is still setting up
        self._close_ready()  # the signal, or the end of a chain that never sent it
        return self._set_up

    def _close_ready(self) -> None:
        if self._ready >= 0:
            os.close(self._ready)
            self._ready = -1

    def started(self) -> None:
        """The process is started: close our copies of the descriptors it inherited."""
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()
        self.ready_writer = None

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
        self._close_ready()
        if self.cgroup is not None:
            await asyncio.to_thread(self.cgroup.remove)
            self.cgroup = None
        if self.uid is not None:
            await uids.kill_all(self.uid)
        if self.private is not None:
            await asyncio.to_thread(workdirs.wipe, self.private)
            self.private = None
        if self._owner >= 0:
            os.close(self._owner)  # after the wipe: a sweeper may take it from here
            self._owner = -1
        if self._lease is not None:
            await self._lease.release()  # after the wipe: the uid is ours until here
            self._lease = None


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
        # Both ends close-on-exec: the spawn makes the writer the chain's stdin, nothing else.
        launch._ready, launch.ready_writer = os.pipe()
        launch._fds.append(launch.ready_writer)  # the referee's copy, closed once started
        os.set_blocking(launch._ready, False)
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
    if launch.uid is not None and not await asyncio.to_thread(
        workdirs.readable_by_others, directory
    ):
        bot_dir = await asyncio.to_thread(workdirs.stage, directory, private / "bot")
    launch.cwd = str(bot_dir)
    socket_path, tcp_port = launch_layers.address(launch.env)
    if launch.uid is not None and socket_path is not None:
        launch_layers.open_socket(socket_path, through_bwrap=use_bwrap)
    if Layer.CGROUP in layers and caps.cgroup is not None:
        launch.cgroup = await asyncio.to_thread(_cgroup, caps.cgroup, config)

    argv = chain.join_cgroup(launch.cgroup)
    argv += chain.die_with_parent(caps, launch.uid, switch=not use_bwrap)
    confine: dict[str, object] = {}
    if use_bwrap:
        argv += _bwrap(launch, config, caps, bot_dir, socket_path, tcp_port)
        confine = launch_layers.tcp_only(config, caps, tcp_port)
        launch.tcp_landlock = bool(confine)
    else:
        confine = launch_layers.confine_spec(layers, private, bot_dir, tcp_port)
    if Layer.RLIMITS in layers:
        values = launch_layers.rlimits(config, with_nproc=launch.uid is not None)
        argv += chain.rlimit_step(caps, values, confine)
    if confine:
        argv += confine_prefix(confine)
    launch.argv = [*argv, *chain.ready_step(), *run]


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


async def _workdir(launch: Launch, config: SandboxConfig, caps: Capabilities) -> Path:
    """Make the private directory, hold its owner lock and, with the workdir layer, point
    HOME and TMPDIR into it (sized tmpfs mounts where the referee can mount)."""
    private = launch.private = await asyncio.to_thread(workdirs.make, launch.uid)
    launch._owner = await asyncio.to_thread(quota.hold, private)
    if Layer.WORKDIR in launch.plan.layers:
        launch.env.update(HOME=str(private / "home"), TMPDIR=str(private / "tmp"))
        if caps.tmpfs_mount:
            launch.sized = await asyncio.to_thread(workdirs.bound, private, launch.uid, config)
    return private


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
    etc_files = chain.identity(
        etc, "bot", uid if uid is not None else os.getuid(), bwrap.HOME_INSIDE
    )
    seccomp_fd = None
    if Layer.SECCOMP in launch.plan.layers:
        seccomp_fd = os.memfd_create("arena-seccomp", 0)
        launch._fds.append(seccomp_fd)
        os.write(seccomp_fd, launch_layers.bpf(tcp_port is not None))
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
        etc_files=etc_files,
    )
    argv = bwrap.build(spec, caps.bwrap)
    if uid is not None and caps.setpriv is not None:
        argv += [caps.setpriv, *chain.switch_uid(uid), "--"]
    # bwrap exports PWD: the ready step, last, unsets it (keeps the environment as documented).
    if workdir:
        launch.env["HOME"] = bwrap.HOME_INSIDE
        launch.env["TMPDIR"] = "/tmp"
    if socket_path is not None:
        launch.env["ARENA_ADDRESS"] = f"unix://{bwrap.SOCKET_INSIDE}"
    launch.cwd = "/"
    return argv
