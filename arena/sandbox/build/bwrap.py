"""A build with bubblewrap: the play sandbox's view of the system, and nothing more.

The build sees what a bot sees at play (:mod:`arena.sandbox.bwrap`): the system and the
arena's runtime read-only, no data directory, database or home directories. Its own
directory is a bounded in-memory filesystem at the bot's path, filled from the tar
stream the arena writes, so the build never touches the host's copy and cannot fill the
host's disk. As root it runs as a leased bot uid without capabilities, in a user
namespace of its own where a bot uid may make one (so the tools it runs cannot use the
host's). With the network allowed, bubblewrap is entered into the slirp4netns namespace
of :mod:`arena.sandbox.build.network`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess

from arena.sandbox import bwrap, uids
from arena.sandbox.build import network as build_network
from arena.sandbox.build.job import BuildJob, environment, switch
from arena.sandbox.build.settings import NETWORK_ETC, BuildRun, BuildSandboxError
from arena.sandbox.chain import identity
from arena.sandbox.config import SandboxConfig
from arena.sandbox.probe import Capabilities, runtime_paths

_userns_cache: dict[str, bool] = {}


def run(job: BuildJob, argv: list[str]) -> BuildRun:
    """Run *job* behind *argv* (the chain so far) in bubblewrap.

    :raises BuildSandboxError: as root without a bot uid or setpriv (a build never runs
        as root), or when the network cannot be set up.
    """
    caps = job.caps
    uid = job.uid
    if caps.root and (uid is None or caps.setpriv is None):
        raise BuildSandboxError("a build cannot run as root: no bot uid here (see: arena doctor)")
    if caps.setpriv is not None:
        argv += [caps.setpriv, "--pdeathsig", "KILL", "--"]
    if job.slirp:
        argv += build_network.namespace(caps.setpriv, job.helpers)
        job.notes.append("network via slirp4netns without host loopback")
    argv += _bwrap_args(job, uid)
    if uid is not None and caps.setpriv is not None:
        argv += [caps.setpriv, *switch(uid), "--"]
        unshare = shutil.which("unshare")
        if unshare is not None and userns_works(caps):
            argv += [unshare, "--user", "--map-current-user", "--"]
            job.notes.append("own user namespace")
    argv += job.limits_and_filters()
    env = environment(home="/tmp", tmp="/tmp", offline=not job.network)
    return job.execute(argv, env, cwd="/", watch=None)


def userns_works(caps: Capabilities) -> bool:
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
                [caps.setpriv, *switch(uid), "--", unshare, "--user", "--map-current-user",
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


def _bwrap_args(job: BuildJob, uid: int | None) -> list[str]:
    """``bwrap ... --``: the play sandbox's tree, the build's ``/etc`` files (and name
    server and CA certificates with the network), its directory an in-memory
    filesystem."""
    etc = job.private / "etc"
    etc.mkdir(mode=0o755)
    files = identity(etc, "build", uid if uid is not None else os.getuid(), "/tmp")
    if job.slirp:
        (etc / "resolv.conf").write_text(f"nameserver {build_network.SLIRP_DNS}\n")
        files.append((str(etc / "resolv.conf"), "/etc/resolv.conf"))
    elif job.network and os.path.exists("/etc/resolv.conf"):
        files.append(("/etc/resolv.conf", "/etc/resolv.conf"))
    if job.network:
        files += [(p, p) for p in NETWORK_ETC if os.path.isdir(p)]
    for path in etc.iterdir():
        path.chmod(0o644)
    target = str(job.directory.resolve())
    spec = bwrap.BwrapSpec(
        bot_dir=target,
        readonly=runtime_paths(),
        share_net=job.network,  # slirp4netns's namespace (entered by nsenter), or the host's
        privileged=job.caps.root,
        keep_setuid=uid is not None,
        tmp_bytes=job.limits.tmp_bytes,
        etc_files=files,
    )
    args = bwrap.build(spec, job.caps.bwrap or "bwrap")
    if args[-1] != "--":
        raise BuildSandboxError("unexpected bubblewrap command line")
    # The bot's directory (bound read-only by the play sandbox's tree) is covered by a
    # bounded in-memory filesystem the build owns; the files come in on stdin.
    return [*args[:-1], "--size", str(job.limits.disk_bytes), "--tmpfs", target,
            "--chmod", "0777", target, "--"]  # fmt: skip
