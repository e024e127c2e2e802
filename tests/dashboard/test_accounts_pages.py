"""Logins on the dashboard under Streamlit's ``AppTest``: what a spectator, a participant and
an organiser are offered, that the actions refuse by themselves whatever a page shows, the
private setting, logout, a session ended elsewhere, and the failed-login limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.accounts import logins
from dashboard import actions, auth
from tests.dashboard.accounts_support import add_account, log_in, logged_in_line
from tests.dashboard.seed import Seeded
from tests.dashboard.test_pages import texts

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def _open(seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> AppTest:
    monkeypatch.setenv("ARENA_DB", seeded.url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _page(app: AppTest, page: str) -> AppTest:
    app.switch_page(f"views/{page}.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_a_spectator_sees_everything_but_can_change_nothing(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = _open(seeded, monkeypatch, tmp_path)
    assert "Viewing as a spectator" in texts(app)
    assert app.dataframe  # the standings
    assert set(app.dataframe[0].value["Owner"]) == {"local"}  # standings show owners
    _page(app, "bots")
    assert not app.file_uploader and "Log in as a participant" in texts(app)
    assert set(app.dataframe[0].value["Owner"]) == {"local"}
    assert "Owned by **local**" in texts(app)
    _page(app, "tournaments")
    assert "Log in as an organiser" in texts(app)
    assert not [e for e in app.expander if e.label == "Create a tournament"]
    assert not [b for b in app.button if b.label in ("Start", "Resume", "Stop")]


def test_a_participant_may_upload_but_not_run_tournaments(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = _open(seeded, monkeypatch, tmp_path)
    log_in(app, "pat", add_account(seeded.engine, "pat", "participant"))
    assert logged_in_line(app) == "Logged in as **pat** (participant)"
    _page(app, "bots")
    assert len(app.file_uploader) == 1
    _page(app, "tournaments")
    assert not [e for e in app.expander if e.label == "Create a tournament"]
    # Logging out makes a spectator again, and ends the session in the database.
    app.button(key="logout").click().run()
    assert logged_in_line(app) == "" and "Viewing as a spectator" in texts(app)


def test_a_database_that_cannot_be_asked_ends_no_login(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = _open(seeded, monkeypatch, tmp_path)
    log_in(app, "pam", add_account(seeded.engine, "pam", "participant"))
    assert logged_in_line(app) == "Logged in as **pam** (participant)"
    checked = logins.current

    def down(*args: object, **kwargs: object) -> None:
        raise storage.StorageError("database unavailable")

    monkeypatch.setattr(logins, "current", down)
    app.run()  # a spectator for this run, and no "session ended"
    assert "Viewing as a spectator" in texts(app) and "Your session ended" not in texts(app)
    monkeypatch.setattr(logins, "current", checked)
    app.run()  # the database is back: so is the login
    assert logged_in_line(app) == "Logged in as **pam** (participant)"


def test_actions_refuse_by_themselves_whatever_the_page_showed(
    seeded: Seeded, tmp_path: Path
) -> None:
    engine: Engine = seeded.engine
    add_account(engine, "pat2", "participant")
    add_account(engine, "org2", "organiser")
    pat, org = storage.actor(engine, "pat2"), storage.actor(engine, "org2")
    data = tmp_path / "data"
    with pytest.raises(actions.ActionError, match="log in as a participant to submit a bot"):
        actions.submit_archive(engine, b"PK", "bot.zip", data, None)
    settings = {"ruleset": "classic", "bots": ["a", "b", "c"], "boards": 1}
    with pytest.raises(actions.ActionError, match="log in as an organiser to create"):
        actions.create_tournament(engine, name="x", by=None, **settings)  # type: ignore[arg-type]
    with pytest.raises(
        actions.ActionError,
        match="creating a tournament needs an organiser account; pat2 is a participant",
    ):
        actions.create_tournament(engine, name="x", by=pat, **settings)  # type: ignore[arg-type]
    for by in (None, pat):
        with pytest.raises(actions.ActionError, match="organiser"):
            actions.start_runner(seeded.url, data, "main", by)
        with pytest.raises(actions.ActionError, match="organiser"):
            actions.stop_runner("main", by)
    assert actions.runner("main") is None  # nothing was started
    # Control: the organiser passes the role check (and meets the next one: unknown bots).
    with pytest.raises(actions.ActionError, match="no bot named 'a'"):
        actions.create_tournament(engine, name="x", by=org, **settings)  # type: ignore[arg-type]


def test_a_private_dashboard_shows_nothing_before_a_login(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(auth.PRIVATE_VARIABLE, "1")
    app = _open(seeded, monkeypatch, tmp_path)
    assert "This arena is private" in texts(app)
    assert not app.dataframe and "Standings" not in [t.value for t in app.title]
    log_in(app, "viewer", add_account(seeded.engine, "viewer", "participant"))
    assert "This arena is private" not in texts(app)
    assert app.dataframe  # now the standings
    monkeypatch.setenv(auth.PRIVATE_VARIABLE, "0")  # control: open again
    app = _open(seeded, monkeypatch, tmp_path)
    assert app.dataframe and "This arena is private" not in texts(app)


def test_a_session_ended_elsewhere_logs_the_page_out(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = _open(seeded, monkeypatch, tmp_path)
    log_in(app, "org3", add_account(seeded.engine, "org3", "organiser"))
    assert logged_in_line(app) == "Logged in as **org3** (organiser)"
    logins.log_out(seeded.engine, app.session_state[auth.SESSION_KEY])  # e.g. `arena user reset`
    app.run()
    assert logged_in_line(app) == ""
    assert "Your session ended; log in again." in texts(app)


def test_wrong_passwords_are_refused_then_throttled_on_the_page(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    password = add_account(seeded.engine, "victim", "participant")
    app = _open(seeded, monkeypatch, tmp_path)
    log_in(app, "victim", "guess")
    assert [e.value for e in app.sidebar.error] == ["wrong user name or password"]
    for n in range(logins.LoginPolicy().throttle.max_account_failures):  # strangers guessing
        with pytest.raises(logins.LoginRefused):
            logins.log_in(seeded.engine, "victim", "guess", f"203.0.113.{n}")
    log_in(app, "victim", password)  # held back: the password is not even checked
    errors = [e.value for e in app.sidebar.error]
    assert errors == ["too many failed logins for this name: try again in 15 minutes"]
    assert logged_in_line(app) == ""
