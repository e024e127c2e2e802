"""The settings of version tests (``arena bot compare``), one JSON text per tournament.

The statistics live in :mod:`arena.ratings.sprt` and the driver in
:mod:`arena.tournament.compare`, which owns the JSON's shape; storage keeps the text.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

from sqlalchemy import Engine

from arena.storage.database import database_errors, read_session, write_session
from arena.storage.models import VersionTest


@database_errors
def save_version_test(engine: Engine, tournament_id: int, spec_json: str) -> None:
    """Store (or replace) the settings of the version test of *tournament_id*."""
    with write_session(engine) as session:
        found = session.get(VersionTest, tournament_id)
        if found is None:
            session.add(VersionTest(tournament_id=tournament_id, spec=spec_json))
        else:
            found.spec = spec_json
            session.add(found)
        session.commit()


@database_errors
def version_test_spec(engine: Engine, tournament_id: int) -> str | None:
    """The stored settings of the version test of *tournament_id*, or ``None``."""
    with read_session(engine) as session:
        found = session.get(VersionTest, tournament_id)
    return None if found is None else found.spec
