"""Bot names belong to their first submitter; roles decide who runs tournaments and
manages accounts. Through the real CLI (``arena ...`` in this process) and through storage
directly (the owner check inside the storing transaction), plus migration 0003 on a
database that already holds bots, on SQLite and a real PostgreSQL."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect

from arena import storage
from arena.accounts import admin
from arena.cli import main
from arena.storage import open_database
from arena.storage.users import find_user
from tests.migrated_sqlite import migrated_sqlite_url
from tests.storage.test_migration_0002 import _alembic

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
CHECKSUM = "v2:" + "a" * 52


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


def _bot_copy(tmp_path: Path, name: str, marker: str = "") -> Path:
    """random_bot under another name (and, with *marker*, other files)."""
    target = tmp_path / f"{name}-{marker or 'v1'}"
    shutil.copytree(SAMPLES / "random_bot", target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = target / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random_bot"', f'name = "{name}"'))
    if marker:
        with (target / "bot.py").open("a") as out:
            out.write(f"\n# {marker}\n")
    return target


def _arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_second_users_cli_submission_under_an_owned_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    where = ("--db", url, "--data", str(tmp_path / "data"))
    for name in ("alice", "bob"):
        code, out, _ = _arena(capsys, "user", "add", name, "--role", "participant", *where)
        assert code == 0 and "One-time password" in out
    code, out, err = _arena(capsys, "bot", "submit", str(_bot_copy(tmp_path, "alice_bot")),
                            "--user", "alice", *where)  # fmt: skip
    assert code == 0, err
    assert "stored alice_bot@" in out
    stored = tmp_path / "data" / "bots" / "alice_bot"
    folders = sorted(p.name for p in stored.iterdir())

    changed = _bot_copy(tmp_path, "alice_bot", "bob's code")
    code, out, err = _arena(capsys, "bot", "submit", str(changed), "--user", "bob", *where)
    assert code == 1
    assert err.strip() == (
        "arena: error: bot name 'alice_bot' belongs to alice: only alice or an organiser may "
        "submit versions of it (choose another name in bot.toml)"
    )
    engine = open_database(url)
    assert len(storage.bot_versions(engine, "alice_bot")) == 1  # nothing stored
    assert sorted(p.name for p in stored.iterdir()) == folders  # no files either

    # Control: the owner may, and so may an organiser (the host's CLI, no --user).
    assert _arena(capsys, "bot", "submit", str(changed), "--user", "alice", *where)[0] == 0
    third = _bot_copy(tmp_path, "alice_bot", "organiser's fix")
    assert _arena(capsys, "bot", "submit", str(third), *where)[0] == 0
    versions = storage.bot_versions(engine, "alice_bot")
    users = {u.id: u.name for u in storage.list_user_rows(engine)}
    assert [(users[v.submitted_by], v.submitted_via) for v in versions] == [
        ("alice", "cli"), ("alice", "cli"), ("local", "cli"),
    ]  # fmt: skip
    assert storage.bot_owner(engine, "alice_bot") == "alice"
    code, out, _ = _arena(capsys, "bot", "show", "alice_bot", *where)
    assert "owner: alice" in out and "by local via cli" in out
    engine.dispose()


def test_the_owner_check_holds_inside_the_storing_transaction(engine: Engine) -> None:
    """Even a caller that skips the early check (or races it) cannot store under a name it
    does not own."""
    local = storage.actor(engine)
    for name in ("alice", "bob"):
        admin.add_user(engine, local, name, "participant")
    alice, bob = storage.actor(engine, "alice"), storage.actor(engine, "bob")
    fields = {"name": "shared", "version": "1", "language": "python"}
    storage.add_bot_version(engine, fields, CHECKSUM, "/x", submitter=alice)
    with pytest.raises(storage.PermissionDenied, match="'shared' belongs to alice"):
        storage.add_bot_version(
            engine, fields, "v2:" + "b" * 52, "/y", submitter=bob, via="dashboard"
        )
    assert len(storage.bot_versions(engine, "shared")) == 1
    version, created = storage.add_bot_version(
        engine, fields, "v2:" + "b" * 52, "/y", submitter=alice
    )
    assert created and version.submitted_by == alice.id


def test_roles_decide_who_runs_tournaments_and_manages_accounts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    where = ("--db", url, "--data", str(tmp_path / "data"))
    engine = open_database(url)
    admin.add_user(engine, storage.actor(engine), "alice", "participant")
    for bot in ("random_bot", "greedy_bot", "heuristic_bot"):
        owner = storage.actor(engine, "alice") if bot == "greedy_bot" else None
        storage.add_bot_version(
            engine, {"name": bot, "version": "1"}, CHECKSUM, f"/{bot}", submitter=owner
        )
    create = ("tournament", "create", "cup", "--bots", "random_bot,greedy_bot,heuristic_bot")

    refusals = {
        create: "creating a tournament needs an organiser account; alice is a participant",
        ("tournament", "run", "cup"): "running or stopping a tournament needs an organiser",
        ("user", "add", "mallory", "--role", "organiser"): "adding a user needs an organiser",
        ("user", "list"): "listing users needs an organiser",
    }
    for command, message in refusals.items():
        code, _, err = _arena(capsys, *command, "--user", "alice", *where)
        assert code == 1 and message in err and err.count("\n") == 1, (command, err)
    assert find_user(engine, "mallory") is None
    # Control: the host's organiser may.
    code, out, err = _arena(capsys, *create, *where)
    assert code == 0 and "created tournament 'cup'" in out, err
    code, out, _ = _arena(capsys, "standings", "cup", "--json", *where)
    owners = {row["bot"]: row["owner"] for row in json.loads(out)["standings"]}
    assert owners == {"random_bot": "local", "greedy_bot": "alice", "heuristic_bot": "local"}

    code, _, err = _arena(capsys, "user", "list", "--user", "nobody", *where)
    assert code == 2 and "no user named 'nobody'" in err
    assert _arena(capsys, "user", "disable", "alice", *where)[0] == 0
    code, _, err = _arena(capsys, "bot", "list", *where)
    assert code == 0
    code, _, err = _arena(capsys, "user", "list", "--user", "alice", *where)
    assert code == 2 and "user 'alice' is disabled" in err
    code, out, _ = _arena(capsys, "user", "list", *where)
    assert code == 0 and "alice" in out and "disabled" in out and "$argon2" not in out
    engine.dispose()


def test_a_reset_password_replaces_the_old_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.accounts.passwords import verify  # noqa: PLC0415

    url = migrated_sqlite_url(tmp_path / "arena.db")
    where = ("--db", url, "--data", str(tmp_path / "data"))
    first = _arena(capsys, "user", "add", "alice", "--role", "organiser", *where)[1].split()[-1]
    second = _arena(capsys, "user", "reset", "alice", *where)[1].split()[-1]
    engine = open_database(url)
    user = find_user(engine, "alice")
    assert user is not None and first != second
    assert verify(second, user.password_hash)[0] and not verify(first, user.password_hash)[0]
    engine.dispose()


@pytest.mark.slow
def test_migration_0003_gives_existing_bots_to_the_local_organiser(engine: Engine) -> None:
    for bot in ("random_bot", "greedy_bot"):
        storage.add_bot_version(engine, {"name": bot, "version": "1"}, CHECKSUM, f"/{bot}")
    _alembic(engine, "downgrade", "0002")
    assert "arena_user" not in inspect(engine).get_table_names()
    assert "owner_id" not in {c["name"] for c in inspect(engine).get_columns("bot")}
    storage.migrate(engine)
    overview = storage.bot_overview(engine)
    assert [(b.name, b.owner) for b in overview] == [
        ("greedy_bot", "local"),
        ("random_bot", "local"),
    ]
    assert {(v.submitted_by, v.submitted_via) for b in overview for v in b.versions} == {
        ("local", "unknown")
    }
    local = storage.actor(engine)
    assert local.is_organiser
    # A refused downgrade: bots owned by someone else cannot lose their owner.
    admin.add_user(engine, local, "alice", "participant")
    storage.add_bot_version(
        engine,
        {"name": "mine", "version": "1"},
        CHECKSUM,
        "/m",
        submitter=storage.actor(engine, "alice"),
    )
    with pytest.raises(RuntimeError, match="owned by users other than 'local'"):
        _alembic(engine, "downgrade", "0002")
