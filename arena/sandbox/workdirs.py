"""A bot process's private directories: its HOME and TMPDIR, and a readable copy of the bot.

Each bot process gets ``arena-bot-XXXX/{home,tmp}`` of its own, owned by its uid, wiped
when it ends (:meth:`arena.sandbox.launch.Launch.cleanup`), so nothing a bot writes
outlives its game or reaches another bot. Where the referee can mount, both are tmpfs
mounts of bounded size (:mod:`arena.sandbox.quota`). A bot's stored directory is private
to the arena; when a bot uid could not read it, the bot runs from a staged copy here.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import tempfile
from pathlib import Path

from arena.sandbox import chain, quota
from arena.sandbox.config import SandboxConfig, SandboxError, SandboxMode

# Log lines keep the name they had before this module was split out of launch.
LOGGER = logging.getLogger("arena.sandbox.launch")

_readable_cache: dict[tuple[str, int], bool] = {}


def make(uid: int | None) -> Path:
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


def bound(private: Path, uid: int | None, config: SandboxConfig) -> bool:
    """Make HOME and TMPDIR sized tmpfs mounts; False (and a log line, or in strict mode
    an error) if the kernel refuses.

    :raises SandboxError: in strict mode, when the mounts cannot be made.
    """
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


def wipe(private: Path) -> None:
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
            chain.remove_as(path.stat().st_uid, path)
            with contextlib.suppress(OSError):
                path.rmdir()
    shutil.rmtree(private, ignore_errors=True)


def readable_by_others(directory: Path) -> bool:
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
            except FileNotFoundError:
                # Gone since the listing (a bytecode writer's temporary file, renamed into
                # place): nothing a bot could need to read. Counting it as unreadable would
                # stage a copy, which then races the same writer.
                continue
            except OSError:
                return False
            if stat.S_ISLNK(mode):
                continue
            need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
            if mode & need != need:
                return False
    mode = directory.stat().st_mode
    return mode & (stat.S_IROTH | stat.S_IXOTH) == stat.S_IROTH | stat.S_IXOTH


def stage(directory: Path, target: Path) -> Path:
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
