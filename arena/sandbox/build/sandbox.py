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
    python -I -S build/runner.py MODE -- BUILD...       unpack, seccomp, build, pack

Inside, the bot's directory is an in-memory filesystem of bounded size at its own path,
filled from a tar stream the arena writes (the sandbox never sees the host directory);
``/tmp`` (also ``$HOME``) is another bounded one; nothing else is writable. The system
(``/usr``, a few files of ``/etc``), the arena's interpreter and virtual environment are
read-only; the data directory, the database, other bots, ``/root`` and ``/home`` are not
there at all (except the interpreter's own directory, if it lives under one of them).
The result comes back as a tar stream read with a byte cap and unpacked with tarfile's
``data`` filter under a size and file-count cap.

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

This module is the front door (:func:`run_build`, :func:`describe`); the parts are
:mod:`~arena.sandbox.build.settings` (limits, the network setting, errors),
:mod:`~arena.sandbox.build.job` (one build's resources and its run),
:mod:`~arena.sandbox.build.bwrap` and :mod:`~arena.sandbox.build.direct` (the two ways to
build), :mod:`~arena.sandbox.build.network` (slirp4netns) and
:mod:`~arena.sandbox.build.streams` (the tar streams in and out).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.sandbox.build import bwrap as build_bwrap
from arena.sandbox.build import direct as build_direct
from arena.sandbox.build.direct import WATCH_INTERVAL_S
from arena.sandbox.build.job import BuildJob
from arena.sandbox.build.settings import (
    NETWORK_ENV,
    NETWORK_PORTS,
    STAMP_NAME,
    BuildLimits,
    BuildRun,
    BuildSandboxError,
    BuildTimeout,
    network_allowed,
)
from arena.sandbox.config import Layer, SandboxConfig, SandboxError, SandboxMode
from arena.sandbox.probe import Capabilities, plan, probe


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
    with BuildJob(directory, list(command), config, caps, active, limits, network) as job:
        argv = job.start()
        if job.use_bwrap:
            return build_bwrap.run(job, argv)
        return build_direct.run(job, argv)


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
        who = (
            "a bot uid in its own user namespace" if build_bwrap.userns_works(caps) else "a bot uid"
        )
        if not caps.root:
            who = "your uid in a user namespace"
        return f"builds: bubblewrap, {who}, no capabilities, bounded in-memory dirs, {net}"
    parts = [layer.value for layer in Layer if layer in active]
    return f"builds: {', '.join(parts)} (no bubblewrap: disk watchdog), {net}"


__all__ = [
    "NETWORK_ENV",
    "NETWORK_PORTS",
    "STAMP_NAME",
    "WATCH_INTERVAL_S",
    "BuildLimits",
    "BuildRun",
    "BuildSandboxError",
    "BuildTimeout",
    "describe",
    "network_allowed",
    "run_build",
]
