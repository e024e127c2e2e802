"""A bot the arena cannot run or build, at `arena bot check` and `arena bot submit`: one
line, a non-zero exit, nothing stored and no folder left behind. Each test has a control
showing the failure is real in the layer below (or that the check can see a folder)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena import storage
from arena.cli import main
from arena.game import PRESETS
from arena.game.policies import RandomPolicy
from arena.referee.errors import ArenaFault
from arena.referee.manifest import load_manifest
from arena.referee.match import MatchConfig, PolicySeat, SeatSpec, play_match
from arena.storage.database import open_database
from tests.migrated_sqlite import migrated_sqlite_url
from tests.test_bad_input import copy_bot, one_line_error


def _with_manifest_line(tmp_path: Path, key: str, value: str) -> Path:
    """A copy of the random bot whose bot.toml sets *key* to *value*."""
    bot = copy_bot(tmp_path)
    manifest = bot / "bot.toml"
    lines = [line for line in manifest.read_text().splitlines() if not line.startswith(key)]
    manifest.write_text("\n".join([*lines, f'{key} = "{value}"']) + "\n")
    return bot


def _stored_bots(data: Path) -> list[str]:
    engine = open_database(migrated_sqlite_url(data / "arena.db"))
    try:
        return [bot.name for bot in storage.list_bots(engine)]
    finally:
        engine.dispose()


def test_a_bot_whose_runtime_is_missing_gets_one_line_from_check_and_submit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = _with_manifest_line(tmp_path, "run", "no_such_runtime bot.py")
    # Control: the referee really fails, as an arena fault (a missing runtime is the
    # arena's, never charged to the bot), which used to reach the user as a traceback.
    seats: list[SeatSpec] = [
        load_manifest(bot),
        PolicySeat(RandomPolicy(1)),
        PolicySeat(RandomPolicy(2)),
    ]
    with pytest.raises(ArenaFault, match="no_such_runtime"):
        asyncio.run(play_match(seats, MatchConfig(PRESETS["classic"], games=1, seed=1)))

    assert main(["bot", "check", str(bot), "--games", "1"]) == 1
    one_line_error(capsys, "arena fault in game 1, charged to no bot", "no_such_runtime")

    data = tmp_path / "data"
    assert main(["bot", "submit", str(bot), "--data", str(data)]) == 1
    one_line_error(capsys, "could not play the smoke game, charged to no bot", "no_such_runtime")
    assert _stored_bots(data) == []
    assert list((data / "bots").iterdir()) == []


def test_a_failed_build_that_prints_nothing_says_so_and_leaves_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    bot = _with_manifest_line(tmp_path, "build", "false")
    assert main(["bot", "submit", str(bot), "--data", str(data)]) == 1
    one_line_error(capsys, "build 'false' failed with exit code 1 and printed nothing")
    assert _stored_bots(data) == []
    assert list((data / "bots").iterdir()) == []
    # Control: a submission that succeeds leaves its folder, where the check looks.
    good = _with_manifest_line(tmp_path / "good", "build", "true")
    assert main(["bot", "submit", str(good), "--data", str(data)]) == 0
    assert [p.name for p in (data / "bots").iterdir()] == ["random_bot"]
    assert _stored_bots(data) == ["random_bot"]
