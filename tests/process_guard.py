"""Refuses every way of starting a process while an unmarked test runs (tests/conftest.py).

A test marked with none of the tiers (``processes``, ``browser``, ``postgres``, ``ray``) is
in the fast tier that ``make check`` runs. If it started a process after all, the fast
tier would slowly fill with slow tests; so while such a test is set up and runs, every
way Python starts a process raises :class:`UnmarkedProcessError` instead, and the test
fails with a message naming what it tried to start, even if the code under test swallowed
the error.
"""

from __future__ import annotations

import _posixsubprocess
import multiprocessing.process
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

MESSAGE = (
    "this test starts a process: mark it (add its module, or module::test, to "
    "_STARTS_PROCESSES in tests/conftest.py, or use a fixture that marks it)"
)


class UnmarkedProcessError(RuntimeError):
    """A test of the fast tier tried to start a process.

    Not an ``OSError``: code that handles a failed start must not mistake it for one.
    """


def _entry_points() -> list[tuple[Any, str]]:
    """Every (owner, attribute) through which Python starts a process.

    ``subprocess.Popen._execute_child`` is where every Popen (and so ``subprocess.run``,
    ``os.popen`` and asyncio's ``create_subprocess_exec``/``_shell``) forks or spawns;
    ``_posixsubprocess.fork_exec`` is what multiprocessing's spawn and forkserver use.
    """
    points: list[tuple[Any, str]] = [
        (subprocess.Popen, "_execute_child"),
        (_posixsubprocess, "fork_exec"),
        (multiprocessing.process.BaseProcess, "start"),
    ]
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
        if hasattr(os, name):
            points.append((os, name))
    return points


@contextmanager
def refusing_processes() -> Iterator[list[str]]:
    """While inside, starting a process raises; yields what was tried (empty if nothing)."""
    tried: list[str] = []
    saved: list[tuple[Any, str, Any]] = []

    def refuse(what: str) -> Callable[..., Any]:
        def refused(*args: Any, **kwargs: Any) -> Any:
            tried.append(what)
            raise UnmarkedProcessError(f"{MESSAGE}; it called {what}")

        return refused

    for owner, name in _entry_points():
        saved.append((owner, name, owner.__dict__[name]))
        what = f"{getattr(owner, '__name__', owner)}.{name}"
        setattr(owner, name, refuse(what))
    try:
        yield tried
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
