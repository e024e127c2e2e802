"""Size limits on the places a bot can write: its private ``HOME`` and ``TMPDIR``.

Without a limit a bot fills the host's disk through its ``HOME`` (RLIMIT_FSIZE bounds one
file, not how many). Where the referee may mount (root with CAP_SYS_ADMIN: bare metal,
a VM, a privileged container) each private directory becomes a tmpfs of its own with a
size (``Limits.home_bytes``, ``Limits.tmp_bytes``), owned by the bot's uid: a write past
the size fails with ENOSPC, and the pages count against the bot's memory cgroup. Inside
bubblewrap ``/tmp`` is bubblewrap's own sized tmpfs, and an unprivileged bubblewrap
makes ``HOME`` one too (:mod:`arena.sandbox.bwrap`). Where neither works (an unprivileged
referee without bubblewrap, a container without CAP_SYS_ADMIN) only RLIMIT_FSIZE per file
remains, and ``arena doctor`` says so.

A referee killed with SIGKILL cannot unmount: each private directory holds an
``owner.lock`` that its referee keeps ``flock``-ed while the bot runs, and the next
referee to start (:func:`sweep_stale`) unmounts and removes every arena tmpfs whose lock
it can take.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

LOGGER = logging.getLogger(__name__)

PREFIX = "arena-bot-"
"""Name prefix of the private directories (``tempfile.mkdtemp`` in the temp directory)."""
OWNER_LOCK = "owner.lock"
_FSTYPE = b"tmpfs"
_SOURCE = b"arena-bot"
_MS_NOSUID, _MS_NODEV = 2, 4
_MNT_DETACH = 2

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = (
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
)
_libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)


def mount(path: Path, size: int, uid: int | None) -> None:
    """Mount a tmpfs of *size* bytes on *path*, mode 0700, owned by *uid* (default: us).

    :raises OSError: if the kernel refuses (no CAP_SYS_ADMIN, ...).
    """
    owner = os.getuid() if uid is None else uid
    options = f"size={max(size, 4096)},mode=0700,uid={owner},gid={owner},nr_inodes=16384"
    rc = _libc.mount(_SOURCE, os.fsencode(path), _FSTYPE, _MS_NOSUID | _MS_NODEV, options.encode())
    if rc != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"mount tmpfs on {path}: {os.strerror(code)}")


def unmount(path: Path) -> None:
    """Detach the tmpfs on *path* (its contents go with it); nothing if none is there."""
    if os.path.ismount(path):
        _libc.umount2(os.fsencode(path), _MNT_DETACH)


def available() -> str | None:
    """``None`` if this process can mount a sized tmpfs, else why not (one line)."""
    if os.geteuid() != 0:
        return "the referee does not run as root"
    with tempfile.TemporaryDirectory(prefix="arena-probe-quota-") as tmp:
        target = Path(tmp)
        try:
            mount(target, 1 << 20, None)
        except OSError as exc:
            return exc.strerror or str(exc)
        try:
            with open(target / "big", "wb") as file:
                file.write(b"\0" * (2 << 20))
                file.flush()
            return "a tmpfs did not enforce its size"
        except OSError:
            return None  # ENOSPC: the size holds
        finally:
            unmount(target)


def hold(private: Path) -> int:
    """Create and ``flock`` *private*/owner.lock; returns the descriptor (close it after
    the directory is wiped). While held, :func:`sweep_stale` leaves the directory alone."""
    # Locked under another name, then renamed: the lock file never exists unlocked, so a
    # sweeper that finds it free knows its referee is gone.
    staging = private / f".{OWNER_LOCK}"
    fd = os.open(staging, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        staging.rename(private / OWNER_LOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _arena_mounts() -> list[Path]:
    """Mount points of arena tmpfs mounts (``.../arena-bot-XXXX/{home,tmp}``)."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            # mount point is field 5; the source follows the " - fstype" separator
            point = re.sub(r"\\(\d{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            tail = line.split(" - ", 1)[1].split() if " - " in line else []
            if tail[:2] == ["tmpfs", _SOURCE.decode()] and Path(point).parent.name.startswith(
                PREFIX
            ):
                found.append(Path(point))
    return found


ABANDONED_AFTER_S = 600.0
"""How long after it was made a private directory may still lack its owner lock. The
referee locks it a moment after making it (:func:`hold`), before anything is mounted in
it; one still without the lock this much later is one whose referee was killed in that
moment (``kill -9``), and no sweep could ever free it otherwise."""


def _ours(private: Path) -> bool:
    """A real directory (not a symbolic link) owned by this user."""
    try:
        info = private.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()


def _abandoned(private: Path) -> bool:
    """A private directory without an owner lock (none, or only :func:`hold`'s staging
    name, never renamed) made over :data:`ABANDONED_AFTER_S` ago, with nothing mounted in
    it (mounts come only after the lock)."""
    try:
        age = time.time() - private.lstat().st_mtime
    except OSError:
        return False
    if age < ABANDONED_AFTER_S:
        return False
    return not any(os.path.ismount(private / sub) for sub in ("home", "tmp"))


def sweep_stale() -> list[Path]:
    """Unmount and remove the private directories of referees that died without cleaning
    up (their owner lock is free), and those of referees killed before they locked them
    (:func:`_abandoned`). Only real directories of this user count: never a symbolic link
    someone put in the shared temporary directory. Returns the directories removed."""
    removed = []
    candidates = {p.parent for p in _arena_mounts()}
    candidates |= set(Path(tempfile.gettempdir()).glob(f"{PREFIX}*"))
    for private in sorted(candidates):
        if not _ours(private):
            continue
        try:
            fd = os.open(private / OWNER_LOCK, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            if _abandoned(private):
                shutil.rmtree(private, ignore_errors=True)
                removed.append(private)
            continue
        except OSError:
            continue  # not a lock we can take: leave it
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # its referee is alive
            for sub in ("home", "tmp"):
                unmount(private / sub)
            shutil.rmtree(private, ignore_errors=True)
            removed.append(private)
        finally:
            os.close(fd)
    if removed:
        LOGGER.warning("removed the private directories of dead referees: %s", removed)
    return removed
