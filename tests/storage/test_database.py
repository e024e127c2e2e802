"""The database layer: URLs, engines, SQLite settings, migrations against the models."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, MetaData, inspect, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

import arena.storage.models  # noqa: F401  (the tables the migrations must match)
from arena.storage import StorageError, default_url, make_engine, migrate, open_database
from arena.storage.database import MIGRATIONS_DIR

TABLES = {
    "alembic_version",
    "arena_user",
    "login_attempt",
    "login_session",
    "login_device",
    "version_test",
    "bot",
    "bot_version",
    "entry",
    "game",
    "game_seat",
    "ladder",
    "ladder_match",
    "rating",
    "rating_snapshot",
    "tournament",
    "invite",
    "signup_attempt",
    "arena_setting",
    "submission",
    "test_match",
    "api_token",
    "live_game",
    "play_game",
    "bot_tally",
    "pair_board_tally",
    "pair_tally",
}


def _differences(engine: Engine, metadata: MetaData) -> list[object]:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))


def test_migrated_schema_matches_the_models(engine: Engine) -> None:
    assert set(inspect(engine).get_table_names()) == TABLES
    assert _differences(engine, SQLModel.metadata) == []
    # The comparison does look at the database: against no models, every table differs.
    removed = {d[1].name for d in _differences(engine, MetaData()) if d[0] == "remove_table"}  # type: ignore[index]
    assert removed == TABLES - {"alembic_version"}


def test_migrate_again_is_a_no_op_and_downgrade_reverses(engine: Engine) -> None:
    migrate(engine)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    head = ScriptDirectory.from_config(config).get_current_head()
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
            (head,)
        ]
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    assert set(inspect(engine).get_table_names()) == {"alembic_version"}
    migrate(engine)
    assert _differences(engine, SQLModel.metadata) == []


def test_sqlite_uses_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        with engine.connect() as connection:
            pragma = connection.exec_driver_sql
            assert pragma("PRAGMA journal_mode").scalar() == "wal"
            assert pragma("PRAGMA foreign_keys").scalar() == 1
            assert pragma("PRAGMA busy_timeout").scalar() == 30000
    finally:
        engine.dispose()


def test_foreign_keys_are_enforced(engine: Engine) -> None:
    with pytest.raises(IntegrityError, match=r"(?i)foreign key"), engine.begin() as connection:
        connection.execute(
            text("INSERT INTO entry (tournament_id, position, bot_version_id) VALUES (99, 0, 99)")
        )


def test_default_url_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ARENA_DB", raising=False)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data" / "dir"))
    assert default_url() == f"sqlite:///{tmp_path / 'data' / 'dir' / 'arena.db'}"
    assert (tmp_path / "data" / "dir").is_dir()
    monkeypatch.setenv("ARENA_DB", "postgresql://arena@db.example/arena")
    assert default_url() == "postgresql://arena@db.example/arena"


def test_default_data_dir_is_arena_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ARENA_DB", raising=False)
    monkeypatch.delenv("ARENA_DATA", raising=False)
    monkeypatch.chdir(tmp_path)
    assert default_url() == f"sqlite:///{tmp_path / 'arena-data' / 'arena.db'}"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "bad database URL 'not a url'"),
        ("nosuchdb://x/y", "bad database URL nosuchdb://x/y"),
    ],
)
def test_bad_url_is_one_clear_line(url: str, message: str) -> None:
    with pytest.raises(StorageError, match="^" + message) as caught:
        make_engine(url)
    assert "\n" not in str(caught.value)


def test_unreachable_database_is_one_clear_line(tmp_path: Path) -> None:
    unreachable = [
        "postgresql://arena:secret@127.0.0.1:1/arena",  # nothing listens on port 1
        f"sqlite:///{tmp_path / 'no' / 'such' / 'dir' / 'a.db'}",
    ]
    for url in unreachable:
        with pytest.raises(StorageError, match=r"^cannot open database ") as caught:
            open_database(url)
        assert "\n" not in str(caught.value)
        assert "secret" not in str(caught.value)


def test_a_database_from_a_newer_arena_is_refused(engine: Engine, database_url: str) -> None:
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(StorageError, match=r"^cannot open database .*9999"):
        open_database(database_url)


def test_in_memory_sqlite_is_one_shared_database() -> None:
    engine = open_database("sqlite://")
    try:
        assert set(inspect(engine).get_table_names()) == TABLES
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_start_waits_while_another_connection_writes_to_a_new_sqlite_file(
    tmp_path: Path,
) -> None:
    # A file still in SQLite's default journal mode, mid-write in another connection (as
    # another starter migrating it): there SQLite refuses the switch to WAL at once,
    # without waiting on its busy handler.
    path = tmp_path / "arena.db"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE being_written (x)")
    probe = sqlite3.connect(path, timeout=5, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        probe.execute("PRAGMA journal_mode=WAL")  # control: the refusal is really there
    probe.close()
    outcome: list[BaseException | None] = []

    def start() -> None:
        try:
            open_database(f"sqlite:///{path}").dispose()
            outcome.append(None)
        except BaseException as exc:  # collected: a thread cannot raise into the test
            outcome.append(exc)

    starter = threading.Thread(target=start)
    starter.start()
    time.sleep(0.5)
    other.execute("ROLLBACK")  # the file stays new: no other program's table in it
    other.close()
    starter.join(timeout=60)
    assert outcome == [None]


@pytest.mark.slow
def test_concurrent_starts_migrate_once(empty_database_url: str) -> None:
    errors: list[BaseException] = []

    def start() -> None:
        try:
            open_database(empty_database_url).dispose()
        except BaseException as exc:  # collected: a thread cannot raise into the test
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    engine = make_engine(empty_database_url)
    try:
        assert _differences(engine, SQLModel.metadata) == []
    finally:
        engine.dispose()


def test_another_programs_database_is_refused_and_left_as_it_is(
    empty_database_url: str, tmp_path: Path
) -> None:
    """A mistyped --db naming another program's database: the arena's tables would be
    added to it (and a SQLite file switched to WAL mode) if nothing checked."""
    sqlite_file = tmp_path / "arena.db" if empty_database_url.startswith("sqlite") else None
    _execute_plainly(empty_database_url, sqlite_file, "CREATE TABLE notes (body TEXT)")
    before = sqlite_file.read_bytes() if sqlite_file else b""

    with pytest.raises(StorageError, match="1 table\\(s\\) of another program"):
        open_database(empty_database_url)
    if sqlite_file:
        assert sqlite_file.read_bytes() == before
        with sqlite3.connect(sqlite_file) as plain:
            assert plain.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    else:
        raw = make_engine(empty_database_url)
        with raw.connect() as connection:
            assert inspect(connection).get_table_names() == ["notes"]
        raw.dispose()

    # Control: without the other program's table the same database is taken and migrated.
    _execute_plainly(empty_database_url, sqlite_file, "DROP TABLE notes")
    engine = open_database(empty_database_url)
    with engine.connect() as connection:
        assert "alembic_version" in inspect(connection).get_table_names()
    engine.dispose()


def _execute_plainly(database_url: str, sqlite_file: Path | None, statement: str) -> None:
    """*statement* as another program would run it: on SQLite with the plain driver (the
    arena's engine would switch the file to WAL mode on connecting)."""
    if sqlite_file is not None:
        with sqlite3.connect(sqlite_file) as plain:
            plain.execute(statement)
        plain.close()
        return
    raw = make_engine(database_url)
    with raw.begin() as connection:
        connection.execute(text(statement))
    raw.dispose()
