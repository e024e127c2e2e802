"""The bubblewrap command line of one bot: what the bot can see, and nothing else.

Inside: the system (``/usr`` and its ``/bin``, ``/lib*`` links, a few files of ``/etc``)
read-only; the arena's interpreter, virtual environment and ``arena`` package read-only
at their own paths (so ``python`` finds the SDK and grpcio); the bot's directory
read-only at its own path; a private ``$HOME`` (read-write) and an in-memory ``/tmp``
and ``/dev/shm``, all of bounded size; the referee's unix socket at
``/run/arena/referee.sock``; a new ``/proc`` of its own pid namespace and a minimal
``/dev``. No network namespace is shared unless the referee is reached over TCP.

When the referee runs as root, bubblewrap runs privileged (no user namespace) and the uid
switch happens inside, as the last step before the bot (``setpriv --reuid``): an
unprivileged bubblewrap could not even open the source paths of its bind mounts (a venv
under a 0700 home, a 0700 temporary directory), since it resolves them as the bot uid.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

SOCKET_INSIDE = "/run/arena/referee.sock"
HOME_INSIDE = "/home/bot"

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl/openssl.cnf",
    "/etc/hosts",
)
"""What the dynamic linker, libc and runtimes read at start-up. Not /etc/passwd (a
two-line one is provided), not resolv.conf (there is no network), no secrets."""


@dataclass
class BwrapSpec:
    """Everything that varies between two bots' sandboxes."""

    bot_dir: str
    """The bot's directory (bound read-only at the same path, and the working directory)."""
    readonly: Sequence[str]
    """More host directories to bind read-only at their own paths (interpreter, venv, ...)."""
    home: str | None = None
    """Host directory bound read-write as ``$HOME``."""
    home_bytes: int | None = None
    """Without *home*: ``$HOME`` is a tmpfs of this size made by bubblewrap (owned by the
    bot only when bubblewrap is unprivileged: a privileged one makes it root's)."""
    socket: str | None = None
    """The referee's unix socket (host path), bound at :data:`SOCKET_INSIDE`."""
    share_net: bool = False
    """Keep the host network (only when the referee listens on TCP)."""
    privileged: bool = True
    """bwrap runs as root (no user namespace); else unprivileged in a user namespace."""
    keep_setuid: bool = False
    """Keep CAP_SETUID/CAP_SETGID for the command (the uid switch inside, as root)."""
    tmp_bytes: int = 64 << 20
    seccomp_fd: int | None = None
    etc_files: Sequence[tuple[str, str]] = field(default_factory=tuple)
    """``(host file, path inside)``: generated files such as ``/etc/passwd``."""


def _covered(path: str, roots: Sequence[str]) -> bool:
    p = PurePosixPath(path)
    return any(p == PurePosixPath(r) or PurePosixPath(r) in p.parents for r in roots)


def _namespaces(spec: BwrapSpec, bwrap: str) -> list[str]:
    args = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    if not spec.share_net:
        args.append("--unshare-net")
    if not spec.privileged:
        args += ["--unshare-user", "--disable-userns"]
    args += ["--die-with-parent", "--new-session", "--hostname", "arena-bot"]
    if spec.privileged and spec.keep_setuid:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return args


class _Tree:
    """The mount arguments, and which directories inside already exist."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self.readonly: list[str] = []
        self.made: set[str] = {"/", "/proc", "/dev", "/tmp"}

    def parents(self, path: str) -> None:
        # bwrap makes missing parents of a mount point with mode 0700, which the bot uid
        # could not cross: make them first, world-searchable.
        for parent in reversed(PurePosixPath(path).parents):
            text = str(parent)
            if text not in self.made and not _covered(text, self.readonly):
                self.args += ["--perms", "0755", "--dir", text]
                self.made.add(text)

    def bind(self, option: str, host: str, inside: str) -> None:
        if _covered(inside, self.readonly):
            return  # already visible, read-only, through a parent bind
        self.parents(inside)
        self.args += [option, host, inside]
        self.made.add(inside)
        if option == "--ro-bind" and os.path.isdir(host):
            self.readonly.append(inside)


def build(spec: BwrapSpec, bwrap: str = "bwrap") -> list[str]:
    """The ``bwrap ... --`` prefix (the command follows it)."""
    tree = _Tree()
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            tree.args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            tree.bind("--ro-bind", path, path)
    tree.args += ["--proc", "/proc", "--dev", "/dev"]
    tree.args += ["--size", str(spec.tmp_bytes), "--tmpfs", "/tmp", "--chmod", "1777", "/tmp"]
    # bubblewrap's /dev is a tmpfs without a size, which an unprivileged bubblewrap lets
    # the bot write to: its /dev/shm gets a size of its own.
    tree.args += ["--size", str(spec.tmp_bytes), "--tmpfs", "/dev/shm"]
    for path in ETC_FILES:
        if os.path.exists(path):
            tree.bind("--ro-bind", path, path)
    for host, inside in spec.etc_files:
        tree.bind("--ro-bind", host, inside)
    for path in [*spec.readonly, spec.bot_dir]:
        tree.bind("--ro-bind", path, path)
    if spec.home is not None:
        tree.bind("--bind", spec.home, HOME_INSIDE)
    elif spec.home_bytes is not None:
        tree.parents(HOME_INSIDE)
        tree.args += ["--size", str(spec.home_bytes), "--perms", "0700", "--tmpfs", HOME_INSIDE]
        tree.made.add(HOME_INSIDE)
    if spec.socket is not None:
        tree.bind("--ro-bind", spec.socket, SOCKET_INSIDE)
    args = [*_namespaces(spec, bwrap), *tree.args]
    if spec.seccomp_fd is not None:
        args += ["--seccomp", str(spec.seccomp_fd)]
    return [*args, "--chdir", spec.bot_dir, "--"]
