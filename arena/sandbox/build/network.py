"""The network of a build that may use one: a namespace of its own behind slirp4netns.

A build with the network (``ARENA_BUILD_NETWORK=on``) must still not reach what listens
on the host's loopback: the referee's port, a local database, the dashboard. So it gets
a network namespace of its own, served by slirp4netns with ``--disable-host-loopback``,
made and configured before the build starts; ``nsenter`` puts bubblewrap into it. Both
helpers die with the arena, like the build itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from arena.sandbox.build.settings import BuildSandboxError

SLIRP_DNS = "10.0.2.3"
"""slirp4netns's DNS forwarder, the build's only name server."""


def available() -> bool:
    """slirp4netns is installed (the other conditions are the caller's)."""
    return shutil.which("slirp4netns") is not None


def namespace(setpriv: str | None, helpers: list[subprocess.Popen[bytes]]) -> list[str]:
    """Make the namespace and start slirp4netns in it; ``nsenter --net=... --``.

    The helper processes go into *helpers* as soon as they start: the caller kills them
    when the build ends, whether this returns or raises.

    :raises BuildSandboxError: if a tool is missing or slirp4netns fails.
    """
    unshare, nsenter, slirp = (shutil.which(x) for x in ("unshare", "nsenter", "slirp4netns"))
    if unshare is None or nsenter is None or slirp is None:
        raise BuildSandboxError("the build network needs unshare, nsenter and slirp4netns")
    # Both helpers die with the arena (parent-death signal), like the build itself.
    die = [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []
    holder = subprocess.Popen(
        [*die, unshare, "--net", "--", "sleep", "86400"], stdin=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    helpers.append(holder)
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
        helpers.append(slirp_proc)
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
    return [nsenter, f"--net={netns}", "--"]


def _same_netns(path: str) -> bool:
    try:
        return os.stat(path).st_ino == os.stat("/proc/self/ns/net").st_ino
    except OSError:
        return True
