"""Migration 0008 (canonical names) on SQLite and a real PostgreSQL, on a database that
already holds look-alike bot and user names: it upgrades without renaming or losing a row,
warns once per collision naming both names, and :func:`name_collisions` lists them later;
new look-alikes are refused from then on, while the old ones keep working by exact name."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, text

from arena import storage
from arena.cli import cli
from arena.storage import migrate, open_database
from arena.storage import names as name_keys_module
from arena.storage.bots import name_collisions, resolve_bot_name
from arena.storage.names import KeyClaims, legacy_key, name_keys
from arena.storage.users import AmbiguousName, PermissionDenied, create_user
from tests.storage.test_migration_0002 import _alembic

MIGRATION_LOGGER = "arena.storage.migrations.0008"
USERS = ("alice", "mallory", "Alice", "ALICE", "MALL0RY")
BOTS = (  # (name, owner), in the order they were stored
    ("greedy_bot", "alice"),
    ("heuristic_bot", "alice"),
    ("Greedy_Bot", "mallory"),
    ("greedy.bot", "mallory"),
    ("paypal", "alice"),
    ("paypaI", "mallory"),
)
COLLISIONS = [
    "user names 'alice' and 'Alice' look alike",
    "user names 'alice' and 'ALICE' look alike",
    "user names 'mallory' and 'MALL0RY' look alike",
    "bot names 'greedy_bot' (alice's) and 'Greedy_Bot' (mallory's) look alike",
    "bot names 'greedy_bot' (alice's) and 'greedy.bot' (mallory's) look alike",
    "bot names 'paypal' (alice's) and 'paypaI' (mallory's) look alike",
]


@pytest.fixture
def at_0007(database_url: str) -> Iterator[Engine]:
    """A database at revision 0007 holding :data:`USERS` and :data:`BOTS`."""
    engine = open_database(database_url)
    _alembic(engine, "downgrade", "0007")
    _store_0007_rows(engine, USERS, BOTS)
    yield engine
    engine.dispose()


def _store_0007_rows(engine: Engine, users: Sequence[str], bots: Sequence[tuple[str, str]]) -> None:
    """Users and bots as the schema of revision 0007 stores them (no name keys)."""
    now = datetime.now(UTC)
    with engine.begin() as connection:
        for name in users:
            connection.execute(
                text(
                    "INSERT INTO arena_user (name, role, disabled, created_at) "
                    "VALUES (:name, 'participant', false, :now)"
                ),
                {"name": name, "now": now},
            )
        for name, owner in bots:
            connection.execute(
                text(
                    "INSERT INTO bot (name, created_at, owner_id) "
                    "VALUES (:name, :now, (SELECT id FROM arena_user WHERE name = :owner))"
                ),
                {"name": name, "now": now, "owner": owner},
            )


def _rows(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as connection:
        return {
            table: [tuple(r) for r in connection.execute(text(query))]
            for table, query in (
                ("users", "SELECT id, name, role FROM arena_user ORDER BY id"),
                ("bots", "SELECT id, name, owner_id FROM bot ORDER BY id"),
            )
        }


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == MIGRATION_LOGGER and r.levelno == logging.WARNING
    ]


def test_look_alike_names_migrate_kept_and_reported_once_each(
    at_0007: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    engine = at_0007
    before = _rows(engine)
    with caplog.at_level(logging.WARNING, logger=MIGRATION_LOGGER):
        migrate(engine)

    assert _rows(engine) == before  # every row, every name, every owner
    warnings = _warnings(caplog)
    assert len(warnings) == len(COLLISIONS)
    for warning, collision in zip(warnings, COLLISIONS, strict=True):
        assert warning.startswith(collision + " (stored before names were compared)")
    assert [str(c) for c in name_collisions(engine)] == COLLISIONS

    # The oldest name of a key keeps it plain; the later look-alikes' keys carry their id.
    with engine.connect() as connection:
        stored = dict(connection.execute(text("SELECT name, name_folded FROM bot")).all())
        ids = dict(connection.execute(text("SELECT name, id FROM bot")).all())
    assert stored["greedy_bot"] == name_keys("greedy_bot").folded
    assert stored["Greedy_Bot"] == legacy_key("greedybot", ids["Greedy_Bot"])
    assert stored["paypaI"] == name_keys("paypaI").folded  # only its shape key collided


@pytest.mark.slow
def test_after_the_migration_old_look_alikes_work_by_exact_name_and_new_ones_are_refused(
    at_0007: Engine,
) -> None:
    engine = at_0007
    migrate(engine)
    mallory = storage.actor(engine, "mallory")
    for name in ("greedy_bot", "Greedy_Bot", "greedy.bot"):
        assert resolve_bot_name(engine, name) == name
    with pytest.raises(AmbiguousName) as ambiguous:
        resolve_bot_name(engine, "GREEDY-BOT")
    assert str(ambiguous.value) == (
        "bot name 'GREEDY-BOT' looks like 3 bots: 'greedy_bot', 'Greedy_Bot', 'greedy.bot'; "
        "give one of them exactly"
    )
    with pytest.raises(AmbiguousName, match="looks like 3 users"):
        storage.actor(engine, "a.l.i.c.e")
    fields = {"name": "Greedy_Bot", "version": "1", "language": "python"}
    _, created = storage.add_bot_version(engine, fields, "v2:" + "a" * 52, "/m", submitter=mallory)
    assert created  # a legacy look-alike's owner still adds versions under its exact name
    with pytest.raises(PermissionDenied, match=r"too close to 'greedy_bot' \(alice's\)"):
        storage.add_bot_version(
            engine, {**fields, "name": "GREEDY_B0T"}, "v2:" + "b" * 52, "/m", submitter=mallory
        )
    with pytest.raises(storage.StorageError, match="'A-lice' is too close to 'alice'"):
        create_user(engine, "A-lice", "participant", None)

    # And the migration goes down and up again with the look-alikes in place.
    _alembic(engine, "downgrade", "0007")
    migrate(engine)
    assert [str(c) for c in name_collisions(engine)] == COLLISIONS


def test_control_a_database_without_look_alikes_reports_nothing(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    engine = open_database(database_url)
    _alembic(engine, "downgrade", "0007")
    _store_0007_rows(engine, ("alice", "bob"), [("greedy_bot", "alice"), ("greedy_bots", "bob")])
    with caplog.at_level(logging.WARNING, logger=MIGRATION_LOGGER):
        migrate(engine)
    assert _warnings(caplog) == []
    assert name_collisions(engine) == []
    engine.dispose()


def test_control_plain_keys_for_every_row_would_break_the_migration(
    at_0007: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the marked keys of newer look-alikes the unique indexes cannot be made:
    the migration fails whole and leaves the database at 0007."""

    def plain_keys(rows: Any) -> KeyClaims:
        return KeyClaims({row_id: name_keys(name) for row_id, name in rows}, [])

    monkeypatch.setattr(name_keys_module, "claim_keys", plain_keys)
    before = _rows(at_0007)
    with pytest.raises(storage.StorageError, match="cannot open database"):
        migrate(at_0007)
    with at_0007.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
            ("0007",)
        ]
    assert _rows(at_0007) == before


def test_user_list_shows_the_look_alike_names_kept_from_before(
    at_0007: Engine, database_url: str
) -> None:
    migrate(at_0007)
    listed = CliRunner().invoke(cli, ["user", "list", "--db", database_url], terminal_width=200)
    assert listed.exit_code == 0, listed.output
    kept = [line for line in listed.output.splitlines() if "look-alike names" in line]
    assert [line.split(": ", 1)[1] for line in kept] == [
        c for c in COLLISIONS if c.startswith("user")
    ]
