"""Fixtures of the dashboard tests: a seeded database, made once per module and backend."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena.storage.database import open_database
from arena.submission import submit_bot
from tests.conftest import PostgresServer, _admin_engine, postgres_unavailable
from tests.dashboard.seed import Seeded, seed_database


def _postgres_url(request: pytest.FixtureRequest) -> tuple[str, str, PostgresServer]:
    server: PostgresServer = request.getfixturevalue("postgres_server")
    if server.admin_url is None:
        postgres_unavailable(server.error or "unknown reason")
    assert server.admin_url is not None
    schema = f"arena_dash_{uuid.uuid4().hex[:12]}"
    engine = _admin_engine(server.admin_url)
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    finally:
        engine.dispose()
    return server.url(schema), schema, server


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def seeded_any(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Seeded]:
    """The seeded database on SQLite, then on PostgreSQL (same data on both)."""
    if request.param == "sqlite":
        seeded = seed_database(f"sqlite:///{tmp_path_factory.mktemp('seed') / 'arena.db'}")
        yield seeded
        seeded.engine.dispose()
        return
    url, schema, server = _postgres_url(request)
    seeded = seed_database(url)
    try:
        yield seeded
    finally:
        seeded.engine.dispose()
        assert server.admin_url is not None
        engine = _admin_engine(server.admin_url)
        with engine.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        engine.dispose()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    """The seeded database on SQLite (for the page tests)."""
    seeded = seed_database(f"sqlite:///{tmp_path_factory.mktemp('seed') / 'arena.db'}")
    yield seeded
    seeded.engine.dispose()


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tournaments_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[AppTest, Engine]]:
    """The Tournaments page of a fresh arena holding the three Python sample bots, and
    the engine of its database."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    data = tmp_path / "data"
    engine = open_database(url)
    for bot in ("random_bot", "heuristic_bot", "greedy_bot"):
        submit_bot(engine, ROOT / "sample_bots" / bot, data)
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(data))
    app = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60).run()
    app.switch_page("views/tournaments.py").run()
    yield app, engine
    engine.dispose()
