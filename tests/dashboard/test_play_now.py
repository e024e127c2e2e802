"""Play now: three chosen bots play an unranked match in the background (real bot
processes through ``arena tournament run``), and the page opens the replay of its first
game as soon as it is stored."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from dashboard import actions

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def _play_now_page(app: AppTest) -> AppTest:
    app.switch_page("views/play_now.py").run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.title[0].value == "Play now"
    return app


def test_play_now_opens_the_replay_of_its_first_game(
    tournaments_page: tuple[AppTest, Engine],
) -> None:
    app, engine = tournaments_page
    _play_now_page(app)
    # Two bots are refused before anything is stored (the control of the happy path).
    app.multiselect[0].set_value(["random_bot", "greedy_bot"])
    app.button(key="FormSubmitter:play_now-Play now").click().run()
    assert "choose three different bots" in app.error[0].value
    assert storage.list_tournaments(engine) == []

    app.multiselect[0].set_value(["random_bot", "heuristic_bot", "greedy_bot"])
    app.button(key="FormSubmitter:play_now-Play now").click().run()
    assert not app.error, [e.value for e in app.error]
    (match,) = storage.list_tournaments(engine)
    assert match.name.startswith(f"{actions.PLAY_NOW_PREFIX} ")
    assert (match.format, match.boards, match.games_total) == ("round_robin", 1, 6)
    runner = actions.runner(match.name)
    assert runner is not None
    try:
        deadline = time.monotonic() + 90
        while app.title[0].value != "Replays" and time.monotonic() < deadline:
            time.sleep(1)
            app.run()
            assert not app.exception, [e.value for e in app.exception]
        assert app.title[0].value == "Replays", runner.log_tail()
        first = storage.tournament_game_ids(engine, storage.row_id(match))[0]
        assert app.query_params["game"] == str(first)
        assert app.session_state["replay_pick"] == first
    finally:
        if runner.running:
            runner.process.send_signal(signal.SIGINT)  # as Stop does: finished games stay
        runner.process.wait(timeout=60)


def test_a_spectator_gets_no_play_button(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DB", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    app = AppTest.from_file(str(APP), default_timeout=60).run()
    _play_now_page(app)
    assert "Log in as an organiser" in app.main.caption[-1].value
    # The control of the test above: no Play now form without an organiser's login.
    assert not [b for b in app.button if b.key == "FormSubmitter:play_now-Play now"]
    assert not app.main.multiselect
    assert actions.runner("anything") is None
