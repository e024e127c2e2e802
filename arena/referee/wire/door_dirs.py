"""The private directory of a referee's door sockets, and the sweep of those that referees
killed before their stop (``kill -9``, a crash, the host's OOM killer) left behind.

Why: :meth:`~arena.referee.wire.doors.RefereeServer.stop` removes its directory, but a
process that dies first cannot; a host whose runners are killed now and then gathered
hundreds of ``/tmp`` directories of dead sockets. So each directory holds a file,
:data:`MARKER`, with its referee's identity (:mod:`arena.sandbox.process_identity`, as
its base cgroup's name does), and a referee making its first directory removes those
whose referee is certainly gone. The identity is in a file, not in the directory's name,
because a unix socket's path has room for 107 bytes and the identity takes about 30.

What the sweep removes, and only that: a directory (not a symbolic link) named
``arena-...`` in the same parent, owned by this user, holding a marker (a regular file)
whose referee is gone: not a reused pid, not another pid namespace's. Another user's
directories are never touched (``/tmp`` is shared), other ``arena-`` directories hold no
marker, and :func:`shutil.rmtree` does not follow symbolic links inside. A bot cannot
write a marker: its sandbox holds its socket alone, read-only.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from arena.sandbox import process_identity

PREFIX = "arena-"
MARKER = ".referee"
"""The file in a door directory that names the referee which made it."""

_swept = False
"""Whether this process has swept already: once per process is enough (a referee makes
doors many times a run, and what it could find changes little)."""


def make_door_directory(parent: str | None = None) -> Path:
    """A new private directory (mode 0700) for this process's door sockets, in *parent*
    (the temporary directory by default), after sweeping there, once per process, the
    directories of referees that are gone."""
    global _swept  # noqa: PLW0603 - a once-per-process flag
    where = parent if parent is not None else tempfile.gettempdir()
    if not _swept:
        _swept = True
        sweep_gone_referees(where)
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=where))
    marker = os.open(folder / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(marker, "w") as file:
        file.write(process_identity.identity())
    return folder


def sweep_gone_referees(parent: str) -> list[str]:
    """Remove the door directories in *parent* of referees that are gone; their names."""
    removed: list[str] = []
    uid = os.getuid()
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue  # gone meanwhile (another referee swept it)
        made_by = _made_by(entry.path)
        if made_by is None or not process_identity.gone(made_by):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.name)
    return removed


def _made_by(folder: str) -> str | None:
    """The identity in *folder*'s marker; ``None`` without one (not a door directory, or
    one being made right now), or if it is not a regular file."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK  # no link, no waiting on a FIFO
    try:
        marker = os.open(os.path.join(folder, MARKER), flags)
    except OSError:
        return None
    with os.fdopen(marker, "rb") as file:
        if not stat.S_ISREG(os.fstat(marker).st_mode):
            return None
        text = file.read(64)
    made_by = text.decode("ascii", "replace").strip()
    return made_by if made_by.count("-") == 2 else None
