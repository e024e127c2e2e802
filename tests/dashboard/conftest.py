"""Fixtures of the dashboard tests: a seeded database, made once per module and backend."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena.storage.database import open_database
from arena.submission import submit_bot
from tests.conftest import PostgresServer, _admin_engine, postgres_unavailable
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.helpers import BROWSER_TIMEOUT_MS
from tests.dashboard.seed import Seeded, seed_database, seeded_sqlite
from tests.migrated_sqlite import migrated_sqlite_url


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
        seeded = seeded_sqlite(tmp_path_factory.mktemp("seed") / "arena.db")
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
    seeded = seeded_sqlite(tmp_path_factory.mktemp("seed") / "arena.db")
    yield seeded
    seeded.engine.dispose()


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tournaments_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[AppTest, Engine]]:
    """The Tournaments page of a fresh arena holding the three Python sample bots, seen by
    the organiser ``org`` (logged in), and the engine of its database."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    data = tmp_path / "data"
    engine = open_database(url)
    for bot in ("random_bot", "heuristic_bot", "greedy_bot"):
        submit_bot(engine, ROOT / "sample_bots" / bot, data)
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(data))
    password = add_account(engine, "org", "organiser")
    app = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60).run()
    log_in(app, "org", password)
    app.switch_page("views/tournaments.py").run()
    yield app, engine
    engine.dispose()


# ------------------------------------------------------------------ a real browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(reason: str) -> None:
    message = f"browser test needs {reason}"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian chromium through Playwright."""
    if not CHROMIUM.exists():
        _unavailable(f"Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright  # noqa: PLC0415  (optional dev tool)
    except ImportError:
        _unavailable("the playwright Python package (pip install -e '.[dev]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh tab, 1500 x 1100."""
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    tab = context.new_page()
    tab.set_default_timeout(BROWSER_TIMEOUT_MS)
    try:
        yield tab
    finally:
        context.close()
