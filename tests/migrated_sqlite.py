"""A migrated SQLite database for a test in a few milliseconds instead of a fifth of a second.

Running every migration on a new SQLite file (``open_database``) costs about 0.2 s of CPU,
and about 450 tests of the fast tier each used to pay it: a third of ``make check``. So
each test process migrates one template file once, with the arena's own
:func:`~arena.storage.database.open_database`, and a test gets a byte copy of it. The copy
is the same database a fresh ``open_database`` would have made (the template is made by
the code under test, in this process); opening it runs the migration check again, which
finds nothing to do.

Tests whose subject is creating or migrating a database (tests/storage/test_database.py,
the ``test_migration_*`` modules) keep making new files themselves.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Callable, Hashable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine

from arena.storage.database import open_database

T = TypeVar("T")


@cache
def _template() -> Path:
    """The migrated template of this test process (removed when the process ends)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-template-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "arena.db"
    engine = open_database(f"sqlite:///{path}")
    with engine.connect() as connection:
        # Everything into the main file, so that copying that file alone copies it all.
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return path


def migrated_sqlite_url(path: Path) -> str:
    """The URL of a SQLite database at *path*: a copy of the migrated template when nothing
    is there yet (its folder is made), else the database already there, untouched.

    So it can stand wherever a test wrote ``f"sqlite:///{path}"``, including a helper that
    builds the same URL again for a database the test has filled since.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_template(), path)
    return f"sqlite:///{path}"


_BUILT: dict[Hashable, tuple[Path, Any]] = {}


def built_folder(key: Hashable, build: Callable[[Path], tuple[Engine, T]]) -> tuple[Path, T]:
    """The folder in which ``build(folder)`` made its SQLite database ``arena.db`` (and
    whatever else it keeps there), and what it returned beside its engine: *build* runs
    once per *key* in a test process, its database checkpointed into the main file and
    its engine disposed, so that a copy of the file, or of the folder, is all of it."""
    if key not in _BUILT:
        folder = Path(tempfile.mkdtemp(prefix="arena-test-built-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        engine, made = build(folder)
        with engine.connect() as connection:
            # Everything into the main file, so that copying that file alone copies it all.
            connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        engine.dispose()
        _BUILT[key] = (folder, made)
    folder, made = _BUILT[key]
    return folder, made  # type: ignore[return-value]


def built_once(key: Hashable, build: Callable[[Path], tuple[Engine, T]], into: Path) -> T:
    """A byte copy at *into* of the SQLite database ``build(path)`` made, and what it
    returned beside its engine: *build* runs once per *key* in a test process (a seeded
    database or a cup plays and stores dozens of games), and every caller after the first
    gets a copy of its file in a few milliseconds. The caller copies what it changes of the
    returned value (ids, records); *into*'s folder is made."""
    folder, made = built_folder(key, lambda folder: build(folder / "arena.db"))
    into.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(folder / "arena.db", into)
    return made
