"""The Play page in Streamlit's AppTest (no browser, no process): a spectator is asked to log
in; a participant gets the form; a finished game's replay is the owner's alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.game.policies import GreedyPolicy
from arena.game.record import game_record
from arena.game.rules import get_ruleset
from arena.simulate import play_game
from arena.storage import play_games
from arena.storage.database import open_database
from tests.dashboard.accounts_support import add_account, log_in
from tests.migrated_sqlite import migrated_sqlite_url

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    engine = open_database(url)
    passwords = {name: add_account(engine, name, "participant") for name in ("alice", "bob")}
    yield engine, passwords
    engine.dispose()


def _page(name: str | None = None, password: str = "", **query: str) -> AppTest:
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params.update(query)
    app.run()
    if name is not None:
        log_in(app, name, password)
    app.switch_page("views/play.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _texts(app: AppTest) -> str:
    return "\n".join(
        str(e.value) for kind in ("markdown", "caption", "error") for e in getattr(app, kind)
    )


def test_a_spectator_is_asked_to_log_in(arena: Any) -> None:
    app = _page()
    assert "Log in (in the sidebar) to take a seat." in _texts(app)
    assert not [b for b in app.button if b.label == "Take the seat"]


def test_a_participant_gets_the_form_with_the_house_bots(arena: Any) -> None:
    _engine, passwords = arena
    app = _page("alice", passwords["alice"])
    assert app.selectbox[0].label == "First opponent"
    assert {"builtin:random", "builtin:greedy", "builtin:pimc"} <= set(app.selectbox[0].options)
    assert app.selectbox[0].value == "builtin:pimc"
    assert [b for b in app.button if b.label == "Take the seat"]


@pytest.mark.slow
def test_a_finished_games_replay_is_its_owners_alone(arena: Any) -> None:
    engine, passwords = arena
    alice = storage.actor(engine, "alice")
    game_id = play_games.create_play_game(
        engine,
        alice,
        opponents=["builtin:random"] * 2,
        ruleset="classic",
        seat=0,
        decision_seconds=60,
    )
    state = play_game(get_ruleset("classic"), 4, [GreedyPolicy()] * 3)
    record = game_record(state, ["human:alice", "b", "c"])
    play_games.finish_play_game(engine, game_id, "finished", "you won", json.dumps(record))
    mine = _page("alice", passwords["alice"], replay=str(game_id))
    assert f"Replay of game #{game_id}" in [s.value for s in mine.subheader]
    theirs = _page("bob", passwords["bob"], replay=str(game_id))
    assert "No finished game of yours with that number." in _texts(theirs)
    # Control: a number that is no game at all reads the same.
    assert "No finished game of yours" in _texts(_page("bob", passwords["bob"], replay="999"))
