"""The ``--db`` and ``--data`` options shared by every command that uses the database."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError

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
        callback=_check_url,
        help="SQLAlchemy URL of the database [env ARENA_DB; sqlite under the data directory].",
    )(function)


def _check_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A usage error now for ``--db`` text that is no URL at all (never echoed: it may hold
    a password); whether the database answers is found out when it is opened."""
    if value is not None:
        try:
            make_url(value)
        except ArgumentError:
            raise click.BadParameter(
                "not a database URL (for example sqlite:///arena.db or "
                "postgresql://user@host/arena)"
            ) from None
    return value


def open_engine(db: str | None, data: Path | None) -> Engine:
    """Open (and migrate) the database; a one-line error if it cannot be opened.

    An unusable ``--data`` directory is a usage error (exit 2), found before the database
    is touched; a database that cannot be opened is an error of the run (exit 1).
    """
    if data is not None:
        try:
            data.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise click.BadParameter(f"{data}: {reason}", param_hint="--data") from None
        os.environ["ARENA_DATA"] = str(data)
    try:
        return open_database(db)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
