"""The Play page's runner as the dashboard starts it (``python -m arena.play.runner ID``,
detached), without a browser: told to stop mid-game, it marks the game failed in one line
and leaves no bot process; a game that cannot start (an opponent gone) fails in one line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import psutil
import pytest

from arena import storage
from arena.accounts import admin
from arena.play.starter import start_play_runner
from arena.storage import play_games
from arena.storage.database import open_database
from arena.tournament.house import house_version
from tests.migrated_sqlite import migrated_sqlite_url


def _wait(check: object, timeout_s: float, what: str) -> object:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = check()  # type: ignore[operator]
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.fixture
def arena(tmp_path: Path) -> object:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    admin.add_user(
        engine, storage.actor(engine), "alice", "participant", must_change_password=False
    )
    house_version(engine, "builtin:random", tmp_path / "data")
    yield engine, url, tmp_path / "data"
    engine.dispose()


def test_a_runner_told_to_stop_mid_game_fails_it_and_leaves_no_bot(arena: object) -> None:
    engine, url, data = arena  # type: ignore[misc]
    alice = storage.actor(engine, "alice")
    game_id = play_games.create_play_game(
        engine,
        alice,
        opponents=["builtin:random"] * 2,
        ruleset="classic",
        seat=2,
        decision_seconds=600,
    )
    pid = start_play_runner(engine, url, data, game_id)
    runner = psutil.Process(pid)
    _wait(lambda: (g := play_games.get_play_game(engine, game_id)) and g.pending, 120, "a decision")
    bots = [p for p in runner.children(recursive=True) if _alive(p)]
    assert bots, "the bots should be running"
    runner.terminate()  # what `kill PID` (or a stopping host) does
    _wait(lambda: not _alive(runner), 60, "the runner's exit")
    _wait(lambda: not [p for p in bots if _alive(p)], 60, "no bot process left")
    game = play_games.get_play_game(engine, game_id)
    assert game is not None
    assert (game.status, game.message, game.pending) == ("failed", "the game was stopped", None)
    # Control: the person may start again (the stopped game blocks nothing).
    assert play_games.create_play_game(
        engine,
        alice,
        opponents=["builtin:random"] * 2,
        ruleset="classic",
        seat=0,
        decision_seconds=60,
    )


def test_a_game_whose_opponent_is_gone_fails_in_one_line(arena: object) -> None:
    engine, url, data = arena  # type: ignore[misc]
    alice = storage.actor(engine, "alice")
    game_id = play_games.create_play_game(
        engine,
        alice,
        opponents=["no_such_bot", "builtin:random"],
        ruleset="classic",
        seat=0,
        decision_seconds=60,
    )
    pid = start_play_runner(engine, url, data, game_id)
    _wait(lambda: not _alive(psutil.Process(pid)) if psutil.pid_exists(pid) else True, 60, "exit")
    game = play_games.get_play_game(engine, game_id)
    assert game is not None and game.status == "failed"
    assert game.message == "opponent 'no_such_bot' no longer exists"
    assert json.loads(game.opponents)[0] == "no_such_bot"


def test_a_house_bot_not_yet_stored_is_stored_before_the_game_starts(arena: object) -> None:
    """The page offers every house bot; one nobody has played yet is stored (built, with a
    smoke game in an event loop of its own) by the runner before the game's loop starts.
    The control: the house bot was not stored before, and the game reaches its first
    decision (before this was fixed it crashed and stayed "starting" for good)."""
    engine, url, data = arena  # type: ignore[misc]
    assert storage.latest_version(engine, "builtin_greedy", exact=True) is None
    alice = storage.actor(engine, "alice")
    game_id = play_games.create_play_game(
        engine,
        alice,
        opponents=["builtin:greedy", "builtin:random"],
        ruleset="classic",
        seat=1,
        decision_seconds=600,
    )
    pid = start_play_runner(engine, url, data, game_id)
    runner = psutil.Process(pid)
    _wait(
        lambda: (
            (g := play_games.get_play_game(engine, game_id)) and (g.pending or g.status == "failed")
        ),
        180,
        "a decision",
    )
    game = play_games.get_play_game(engine, game_id)
    assert game is not None and game.status != "failed", game.message if game else None
    assert json.loads(game.players or "[]")[0].startswith("builtin_greedy@")
    runner.terminate()
    _wait(lambda: not _alive(runner), 60, "the runner's exit")
