"""Alembic environment for the arena database (run by :func:`arena.storage.database.migrate`).

The caller passes an open connection in ``config.attributes["connection"]``; the ``alembic``
command line works too, with ``-x url=...`` or ``$ARENA_DB``. SQLite gets batch mode, since
it can alter little in place.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection
from sqlmodel import SQLModel

import arena.storage.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from arena.storage.database import make_engine

target_metadata = SQLModel.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Migrate over the given connection, or open one from ``-x url=`` / ``$ARENA_DB``."""
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(context.get_x_argument(as_dictionary=True).get("url"))
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; give a database URL")
run_migrations_online()
