"""Fixtures of the storage tests: each runs on SQLite and on a real PostgreSQL
(``database_url`` in ``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

from arena.storage import open_database
from tests.storage.helpers import make_record


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """A migrated database."""
    engine = open_database(database_url)
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def records() -> list[dict[str, Any]]:
    """Real, finished game records (classic rules, a mix of policies), made once."""
    return [make_record(seed) for seed in range(24)]
