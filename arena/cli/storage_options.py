"""The ``--db`` and ``--data`` options shared by every command that uses the database."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from sqlalchemy.engine import Engine

from arena.storage.database import StorageError, open_database

F = TypeVar("F", bound=Callable[..., Any])


def data_dir() -> Path:
    """Where submitted bots and the default SQLite database live (``ARENA_DATA``)."""
    return Path(os.environ.get("ARENA_DATA", "arena-data"))


def db_options(function: F) -> F:
    """Add ``--db URL`` (or ``ARENA_DB``) and ``--data DIR`` (or ``ARENA_DATA``)."""
    function = click.option(
        "--data",
        "data",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Data directory for submitted bots and the default SQLite file [env ARENA_DATA; ./arena-data].",
    )(function)
    return click.option(
        "--db",
        "db",
        default=None,
        help="SQLAlchemy URL of the database [env ARENA_DB; sqlite under the data directory].",
    )(function)


def open_engine(db: str | None, data: Path | None) -> Engine:
    """Open (and migrate) the database; a one-line error if it cannot be opened."""
    if data is not None:
        os.environ["ARENA_DATA"] = str(data)
    try:
        return open_database(db)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
