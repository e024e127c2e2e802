"""Migration 0004 (ladders) on SQLite and a real PostgreSQL: its tables are the models'
tables, it downgrades while no ladder exists, and refuses to once one does."""

from __future__ import annotations

import hashlib

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect
from sqlmodel import SQLModel

from arena import storage
from arena.storage.database import open_database
from arena.tournament import setup
from tests.storage.test_migration_0002 import _alembic

LADDER_TABLES = {"ladder", "ladder_match"}


def _ladder_differences(engine: Engine) -> list[object]:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, SQLModel.metadata)
    return [d for d in differences if LADDER_TABLES & set(str(d).replace("'", " ").split())]


@pytest.mark.slow
def test_migration_0004_matches_the_models_and_downgrades_only_without_ladders(
    database_url: str,
) -> None:
    engine = open_database(database_url)
    assert set(inspect(engine).get_table_names()) >= LADDER_TABLES
    assert _ladder_differences(engine) == []
    _alembic(engine, "downgrade", "0003")
    assert not LADDER_TABLES & set(inspect(engine).get_table_names())
    # The control: the comparison does see the tables missing now.
    assert _ladder_differences(engine) != []
    _alembic(engine, "upgrade", "head")
    assert _ladder_differences(engine) == []

    for name in ("a", "b", "c"):
        checksum = hashlib.sha256(name.encode()).hexdigest()
        storage.add_bot_version(engine, {"name": name, "version": "1"}, checksum, f"/x/{name}")
    setup.create_tournament(engine, by=storage.actor(engine), name="l", ruleset="classic",
                            bots=["a", "b", "c"], boards=1, format_name="ladder")  # fmt: skip
    with pytest.raises(RuntimeError, match="ladder tournaments exist"):
        _alembic(engine, "downgrade", "0003")
    assert set(inspect(engine).get_table_names()) >= LADDER_TABLES
