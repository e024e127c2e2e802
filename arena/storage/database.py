"""Opening the arena database: the URL, the engine (made once per process), migrations.

SQLite (the default, a file in the data directory) and PostgreSQL (``postgresql://...``,
driven by psycopg 3) are supported. SQLite connections get WAL journaling (readers never
block the writer), foreign keys and a 30 s busy timeout. Write transactions on SQLite start
with ``BEGIN IMMEDIATE``, so two writers queue on the busy timeout instead of failing
when a read-started transaction tries to upgrade to a write.
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, ParamSpec, TypeVar

from sqlalchemy import Engine, Executable, create_engine, event, inspect, text
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session

from arena.storage.schema_head import head_revision

if TYPE_CHECKING:
    from alembic.config import Config

LOGGER = logging.getLogger(__name__)

BUSY_TIMEOUT_SECONDS: Final = 30.0
"""How long a SQLite writer waits for another writer before giving up."""
CONNECT_TIMEOUT_SECONDS: Final = 10
"""How long to wait for a PostgreSQL server to answer before reporting it unreachable."""
MIGRATIONS_DIR: Final = Path(__file__).parent / "migrations"
WRITE_OPTION: Final = "arena_write"
"""Execution option marking a connection whose transaction will write (see :func:`write_session`)."""
_MIGRATION_LOCK_KEY: Final = 952_000_001
"""PostgreSQL advisory lock key held while migrating, so concurrent starters queue."""


_P = ParamSpec("_P")
_T = TypeVar("_T")


class StorageError(Exception):
    """A storage operation failed; the message is one line, fit to show to a user."""


def database_errors(function: Callable[_P, _T]) -> Callable[_P, _T]:
    """Turn any database failure escaping *function* into a one-line :class:`StorageError`
    (the one decorator every storage function wears, so callers catch one exception)."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return function(*args, **kwargs)
        except SQLAlchemyError as exc:
            raise StorageError(f"{function.__name__}: database error: {one_line(exc)}") from exc

    return wrapper


def data_dir() -> Path:
    """The arena's data directory: ``$ARENA_DATA`` or ``./arena-data``, created if missing."""
    path = Path(os.environ.get("ARENA_DATA") or "arena-data")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create data directory {path}: {exc.strerror}") from None
    return path


def default_url() -> str:
    """``$ARENA_DB`` if set, else the SQLite file ``arena.db`` in :func:`data_dir`."""
    url = os.environ.get("ARENA_DB")
    if url:
        return url
    return f"sqlite:///{(data_dir() / 'arena.db').resolve()}"


def _parse(url: str) -> URL:
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StorageError(f"bad database URL {url!r}") from None
    # Plain postgresql:// means psycopg 3 here (the installed driver), not psycopg2.
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _shown(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def make_engine(url: str | None = None) -> Engine:
    """An engine for *url* (default :func:`default_url`); make one per process and share it.

    Nothing connects yet; :func:`open_database` also checks the connection and migrates.

    :raises StorageError: for a URL that is malformed or names an unknown database driver.
    """
    parsed = _parse(url or default_url())
    options: dict[str, Any] = {}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite:
        options["connect_args"] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_SECONDS}
        if parsed.database in (None, "", ":memory:"):
            options["poolclass"] = StaticPool  # one shared in-memory database
    elif parsed.get_backend_name() == "postgresql":
        options["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_SECONDS}
        options["pool_pre_ping"] = True
    try:
        engine = create_engine(parsed, **options)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise StorageError(f"bad database URL {_shown(parsed)}: {one_line(exc)}") from None
    if is_sqlite:
        _configure_sqlite(engine)
    return engine


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the sqlite3 module: it would BEGIN lazily before
        # the first write, too late to take the write lock up front.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            if not _another_programs_tables(cursor):  # left as it is: migrate() refuses it
                _switch_to_wal(cursor)
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_SECONDS * 1000)}")
            cursor.execute("PRAGMA synchronous=NORMAL")  # safe with WAL, much faster commits
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        writes = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")


WAL_RETRY_SECONDS: Final = 0.01
MIGRATION_TABLE: Final = "alembic_version"
"""The table every arena database has from its first migration on."""


def _another_programs(tables: set[str]) -> bool:
    """True for a database with tables but not the arena's migration table: another
    program's, given by a mistyped ``--db``, which must not be changed."""
    return bool(tables) and MIGRATION_TABLE not in tables


def _another_programs_tables(cursor: sqlite3.Cursor) -> bool:
    """:func:`_another_programs` for a SQLite file, before SQLAlchemy has a connection
    (the switch to WAL mode is written into the file)."""
    cursor.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    return _another_programs({row[0] for row in cursor.fetchall()})


def _refuse_another_programs_database(connection: Connection, url: URL) -> None:
    """:raises StorageError: if the database holds tables but not the arena's migration
    table. Migrating would add the arena's tables to another program's database."""
    names = set(inspect(connection).get_table_names())
    if _another_programs(names):
        raise StorageError(
            f"cannot open database {_shown(url)}: it holds {len(names)} table(s) of another "
            "program and none of the arena's; give an arena database or a new one"
        )


def _switch_to_wal(cursor: sqlite3.Cursor) -> None:
    """``PRAGMA journal_mode=WAL``, waiting up to the busy timeout while another connection
    holds the lock it needs.

    Why a loop: while another connection writes to a file still in SQLite's default
    journal mode (as when several processes open a new database together and one of them
    migrates it), SQLite refuses the switch with "database is locked" at once, without
    waiting on its busy handler. So processes that opened a fresh SQLite file together (a
    runner and the dashboard, a test's workers) failed at start now and then: 10 of 150
    fresh files with 4 concurrent starters on 2 busy cores, none after. Once the file is
    in WAL mode the pragma changes nothing and returns at once.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(WAL_RETRY_SECONDS)


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session for one write transaction (``BEGIN IMMEDIATE`` on SQLite); commit it yourself.

    Objects stay loaded after the commit, so they can be returned to callers.
    """
    with Session(engine, expire_on_commit=False) as session:
        session.connection(execution_options={WRITE_OPTION: True})
        yield session


def read_session(engine: Engine) -> Session:
    """A session for reading; objects stay usable after it closes."""
    return Session(engine, expire_on_commit=False)


def read_rows(engine: Engine, statement: Executable) -> list[Any]:
    """The rows of one read-only Core statement (aggregates and narrow columns: no ORM
    objects are built, which is what keeps the dashboard's reads fast)."""
    with engine.connect() as connection:
        return list(connection.execute(statement).all())


def migrate(engine: Engine) -> None:
    """Bring the schema up to the newest migration (``alembic upgrade head``).

    Safe to call from several processes at once: they take turns.

    :raises StorageError: if the database cannot be reached or the migration fails.
    """
    try:
        if _at_head(engine):
            return
    except SQLAlchemyError as exc:
        raise StorageError(f"cannot open database {_shown(engine.url)}: {one_line(exc)}") from None
    _upgrade(engine)


def _upgrade(engine: Engine) -> None:
    """:func:`migrate`'s full path, through Alembic: imported here and only here, since
    importing it costs a command's start about 0.15 s (issue 35)."""
    from alembic import command  # noqa: PLC0415 - only when migrating
    from alembic.util.exc import CommandError  # noqa: PLC0415

    config = _alembic_config()
    try:
        with engine.connect() as connection:
            connection.execution_options(**{WRITE_OPTION: True})
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                # A batch migration rebuilds tables that others reference; SQLite's ALTER
                # TABLE procedure: foreign keys off (only possible outside a transaction),
                # rebuild, check them all, commit, on again.
                _sqlite_pragma(connection, "PRAGMA foreign_keys=OFF")
            try:
                with connection.begin():
                    if connection.dialect.name == "postgresql":
                        connection.execute(
                            text("SELECT pg_advisory_xact_lock(:key)"),
                            {"key": _MIGRATION_LOCK_KEY},
                        )
                    _refuse_another_programs_database(connection, engine.url)
                    config.attributes["connection"] = connection
                    command.upgrade(config, "head")
                    if sqlite:
                        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                        if broken:
                            raise StorageError(
                                f"cannot open database {_shown(engine.url)}: the migration "
                                f"broke {len(broken)} foreign key(s); nothing was changed"
                            )
            finally:
                if sqlite:
                    _sqlite_pragma(connection, "PRAGMA foreign_keys=ON")
    except (SQLAlchemyError, CommandError) as exc:
        # CommandError: e.g. a database migrated by a newer arena than this one.
        raise StorageError(f"cannot open database {_shown(engine.url)}: {one_line(exc)}") from None


def _alembic_config() -> Config:
    from alembic.config import Config  # noqa: PLC0415 - only when migrating

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("path_separator", "os")
    return config


def _at_head(engine: Engine) -> bool:
    """Is the schema at the newest migration already? The usual start (every CLI command,
    every dashboard process): one query instead of loading all the migration scripts and
    taking the migration lock, 2 ms against 8 on SQLite, and without importing Alembic
    (:mod:`arena.storage.schema_head`). Anything else (a new database, an older one, one
    from a newer arena, scripts that are not a plain chain) takes :func:`migrate`'s full
    path."""
    head = head_revision()
    if head is None:
        return False
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return False
        stored = connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
        return list(stored) == [head]


def _sqlite_pragma(connection: Connection, pragma: str) -> None:
    """Run *pragma* on the raw SQLite connection, outside any transaction (SQLAlchemy would
    begin one first, and ``foreign_keys`` is a no-op inside a transaction)."""
    raw = connection.connection.driver_connection
    assert raw is not None
    raw.execute(pragma)


def open_database(url: str | None = None) -> Engine:
    """:func:`make_engine` then :func:`migrate`: the one call an application makes at start.

    :raises StorageError: for a bad URL, an unreachable database or a failed migration.
    """
    engine = make_engine(url)
    try:
        migrate(engine)
    except BaseException:
        engine.dispose()
        raise
    LOGGER.debug("database ready: %s", _shown(engine.url))
    return engine


def one_line(exc: BaseException) -> str:
    """The first non-empty line of a (driver) error, for one-line messages."""
    inner = getattr(exc, "orig", None) or exc
    lines = [line.strip() for line in str(inner).splitlines() if line.strip()]
    return lines[0] if lines else type(inner).__name__
