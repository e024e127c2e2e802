"""Look-alike bot names through the real ``arena`` command (``python -m arena.cli`` in a
subprocess): another participant's look-alike submission is refused in one line before
anything is stored, and ``--bots`` resolves typed names to the stored ones and refuses one
bot named twice under look-alike spellings. Each hostile case has a control."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from arena import storage
from arena.storage import open_database
from arena.storage.users import create_user
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_bots" / "greedy_bot"


@pytest.fixture
def where(tmp_path: Path) -> list[str]:
    """``--db`` and ``--data`` of a fresh SQLite arena."""
    return ["--db", migrated_sqlite_url(tmp_path / "arena.db"), "--data", str(tmp_path / "data")]


@pytest.fixture
def engine(where: list[str]) -> Iterator[Engine]:
    """The same arena, opened in this process to set it up and to look inside."""
    engine = open_database(where[1])
    yield engine
    engine.dispose()


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True, text=True, cwd=ROOT, env=environment, timeout=300, check=False,
    )  # fmt: skip


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("arena: error: ")
    assert "Traceback" not in result.stderr
    return result.stderr.strip()


def _greedy_named(tmp_path: Path, name: str) -> Path:
    """greedy_bot's files under the manifest name *name*."""
    target = tmp_path / f"copy-{name}"
    shutil.copytree(GREEDY, target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = target / "bot.toml"
    manifest.write_text(manifest.read_text().replace('"greedy_bot"', f'"{name}"'))
    return target


def test_a_look_alike_submission_by_another_user_is_refused_in_one_line(
    tmp_path: Path, where: list[str], engine: Engine
) -> None:
    for name in ("alice", "mallory"):
        create_user(engine, name, "participant", None)
    stored = _arena("bot", "submit", str(GREEDY), "--user", "alice", *where)
    assert stored.returncode == 0, stored.stderr

    for look_alike in ("Greedy_Bot", "GREEDY.B0T"):
        refused = _arena(
            "bot", "submit", str(_greedy_named(tmp_path, look_alike)), "--user", "mallory", *where
        )
        assert refused.returncode == 1
        assert _one_line_error(refused) == (
            f"arena: error: bot name {look_alike!r} is too close to 'greedy_bot' (alice's): "
            "choose another name in bot.toml"
        )
        assert not (tmp_path / "data" / "bots" / look_alike).exists()  # nothing copied
    assert [b.name for b in storage.list_bots(engine)] == ["greedy_bot"]
    assert len(storage.bot_versions(engine, "greedy_bot")) == 1

    # Control: a name that looks like no stored name is stored for mallory.
    control = _arena(
        "bot", "submit", str(_greedy_named(tmp_path, "greedy_bots")), "--user", "mallory", *where
    )
    assert control.returncode == 0, control.stderr
    assert "stored greedy_bots@1.0.0" in control.stdout
    assert storage.bot_owner(engine, "greedy_bots") == "mallory"


@pytest.fixture
def three_bots(engine: Engine) -> dict[str, int]:
    """greedy_bot, heuristic_bot and random_bot stored (never played); their version ids."""
    ids = {}
    for number, name in enumerate(("greedy_bot", "heuristic_bot", "random_bot")):
        fields = {"name": name, "version": "1", "language": "python", "run": "python bot.py"}
        version, _ = storage.add_bot_version(
            engine, fields, "v2:" + "abcdefg"[number] * 52, f"/nowhere/{name}"
        )
        ids[name] = storage.row_id(version)
    return ids


def test_one_bot_named_twice_in_look_alike_spellings_is_refused_in_one_line(
    where: list[str], engine: Engine, three_bots: dict[str, int]
) -> None:
    refused = _arena(
        "tournament", "create", "cup", "--bots", "Greedy_Bot,greedy_bot,greedy-bot", *where
    )
    assert refused.returncode == 2
    message = _one_line_error(refused)
    assert (
        "bot 'greedy_bot' is named more than once: 'Greedy_Bot', 'greedy_bot', 'greedy-bot'"
        in message
    )
    assert storage.list_tournaments(engine) == []


def test_control_typed_names_resolve_to_the_stored_bots(
    where: list[str], engine: Engine, three_bots: dict[str, int]
) -> None:
    created = _arena(
        "tournament", "create", "cup", "--bots", "GREEDY_BOT,heuristic_bot,random_bot", *where
    )
    assert created.returncode == 0, created.stderr
    tournament = storage.get_tournament(engine, "cup")
    entered = storage.entries(engine, storage.row_id(tournament))
    assert [storage.row_id(v) for v in entered] == list(three_bots.values())
    assert [v.label for v in entered] == ["greedy_bot@1", "heuristic_bot@1", "random_bot@1"]
