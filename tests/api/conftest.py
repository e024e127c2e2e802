"""Fixtures of the API tests: :class:`tests.api.support.World`, on both backends where the
database is what a test is about, on SQLite where it is not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.support import World, make_world
from tests.migrated_sqlite import migrated_sqlite_url


@pytest.fixture
def world(database_url: str, tmp_path: Path) -> Iterator[World]:
    """The world on SQLite and on PostgreSQL."""
    made = make_world(database_url, tmp_path / "data")
    yield made
    made.engine.dispose()


@pytest.fixture
def sqlite_world(tmp_path: Path) -> Iterator[World]:
    """The world on SQLite only."""
    made = make_world(migrated_sqlite_url(tmp_path / "arena.db"), tmp_path / "data")
    yield made
    made.engine.dispose()
