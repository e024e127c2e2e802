"""Joining on the dashboard under Streamlit's ``AppTest``: the sign-up page in each join
mode, the sidebar's links, and the forced replacement of an organiser's password, which no
page URL skips. Each hostile case has its control. The rules themselves are tested in
tests/accounts/test_joining.py; the real browser in test_browser_joining.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.accounts import joining, logins
from arena.storage import open_database
from arena.storage.settings import set_setting
from arena.storage.users import find_user
from dashboard import auth
from tests.dashboard.accounts_support import add_account, log_in, logged_in_line
from tests.dashboard.test_pages import texts
from tests.migrated_sqlite import migrated_sqlite_url

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
NEW_PASSWORD = "a long walk in the park"


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """A fresh, empty arena the dashboard serves (``ARENA_DB``)."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    yield engine
    engine.dispose()


def _open(page: str | None = None) -> AppTest:
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return _page(app, page) if page else app


def _page(app: AppTest, page: str) -> AppTest:
    app.switch_page(f"views/{page}.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _links(app: AppTest) -> list[str]:
    """The labels of the sidebar's page links."""
    return [str(link.proto.label) for link in app.sidebar.get("page_link")]


def _sign_up(app: AppTest, name: str, password: str, code: str | None = None) -> AppTest:
    app.text_input(key="signup_name").input(name)
    app.text_input(key="signup_password").input(password)
    app.text_input(key="signup_confirmation").input(password)
    if code is not None:
        app.text_input(key="signup_code").input(code)
    app.button(key="FormSubmitter:sign_up-Sign up").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _change(app: AppTest, old: str, new: str, again: str | None = None) -> AppTest:
    app.text_input(key="password_current").input(old)
    app.text_input(key="password_new").input(new)
    app.text_input(key="password_again").input(new if again is None else again)
    app.button(key="FormSubmitter:change_password-Change password").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _errors(app: AppTest) -> list[str]:
    return [str(e.value) for e in app.error]


# ------------------------------------------------------------------------------ sign-up


def test_a_closed_arena_says_so_and_offers_no_sign_up(arena: Engine) -> None:
    app = _open("join")
    assert "This arena takes no sign-ups" in texts(app)
    assert not app.text_input(key="login_name").value  # the sidebar's login is there
    assert "signup_name" not in [t.key for t in app.text_input]
    assert "Sign up" not in _links(app)
    # Control: the same page takes sign-ups once the organiser opens the arena.
    set_setting(arena, "join", "open", by=None)
    app = _open("join")
    assert "signup_name" in [t.key for t in app.text_input]
    assert "Sign up" in _links(app)


def test_an_invitation_code_makes_a_logged_in_account_with_its_role(arena: Engine) -> None:
    set_setting(arena, "join", "invite", by=None)
    invite = joining.create_invite(arena, storage.actor(arena), "organiser", uses=1)
    app = _open("join")
    _sign_up(app, "newcomer", NEW_PASSWORD, "x" * 32)  # a wrong code first
    assert _errors(app) == ["this invitation code is not valid (ask for a new one)"]
    assert logged_in_line(app) == "" and find_user(arena, "newcomer") is None
    # Control: the real code makes the account, with the code's role, and logs it in.
    _sign_up(app, "newcomer", NEW_PASSWORD, invite.code)
    assert logged_in_line(app) == "Logged in as **newcomer** (organiser)"
    assert "Welcome, **newcomer**" in texts(app)
    assert "Account: password and tokens" in _links(app)


def test_open_sign_up_refuses_a_weak_password_then_makes_a_participant(arena: Engine) -> None:
    set_setting(arena, "join", "open", by=None)
    app = _open("join")
    assert "signup_code" not in [t.key for t in app.text_input]  # open: no code asked
    _sign_up(app, "walker", "walker-2024!")
    assert _errors(app) == ["a password may not be or contain the user name"]
    assert find_user(arena, "walker") is None
    _sign_up(app, "walker", NEW_PASSWORD)  # control
    assert logged_in_line(app) == "Logged in as **walker** (participant)"
    user = find_user(arena, "walker")
    assert user is not None and not user.must_change_password


# --------------------------------------------------------------- forced password change


def test_an_organisers_password_must_be_replaced_before_any_page_opens(arena: Engine) -> None:
    password = add_account(arena, "fresh", "participant", must_change=True)
    app = _open()
    log_in(app, "fresh", password)
    assert logged_in_line(app) == "Logged in as **fresh** (participant)"
    assert "Choose your own password" in [t.value for t in app.title]
    # Opening other pages' URLs directly shows the same form, and nothing of the page.
    for page in ("bots", "tournaments", "standings", "account", "join"):
        _page(app, page)
        assert [t.value for t in app.title] == ["Choose your own password"], page
        assert not app.file_uploader
    # Wrong current password, a confirmation that differs, the same password: refused.
    _change(app, "not it at all", NEW_PASSWORD)
    assert _errors(app) == ["the current password is wrong"]
    _change(app, password, NEW_PASSWORD, again=NEW_PASSWORD + "!")
    assert _errors(app) == ["the new password and its confirmation differ"]
    _change(app, password, password)
    assert _errors(app) == ["choose a new password, not the current one"]
    _page(app, "bots")
    assert [t.value for t in app.title] == ["Choose your own password"]
    # Control: after the change, the same session opens the page.
    _change(app, password, NEW_PASSWORD)
    _page(app, "bots")
    assert "Choose your own password" not in [t.value for t in app.title]
    assert len(app.file_uploader) == 1
    assert logged_in_line(app) == "Logged in as **fresh** (participant)"
    user = find_user(arena, "fresh")
    assert user is not None and not user.must_change_password


def test_changing_a_password_keeps_this_session_and_ends_the_others(arena: Engine) -> None:
    password = add_account(arena, "owner", "participant")
    elsewhere = logins.log_in(arena, "owner", password, "198.51.100.7")
    app = _open()
    log_in(app, "owner", password)
    _page(app, "account")
    assert "Change your password" in [s.value for s in app.subheader]
    _change(app, password, NEW_PASSWORD)
    assert "Your password is changed" in "".join(str(s.value) for s in app.sidebar.success)
    assert logins.current(arena, elsewhere.token) is None  # the other browser is out
    app.run()
    assert logged_in_line(app) == "Logged in as **owner** (participant)"  # this one goes on
    with pytest.raises(logins.LoginRefused):
        logins.log_in(arena, "owner", password, "198.51.100.8")
    assert logins.log_in(arena, "owner", NEW_PASSWORD, "198.51.100.8").actor.name == "owner"


def test_the_account_page_asks_a_spectator_to_log_in(arena: Engine) -> None:
    app = _open("account")
    assert "Log in (in the sidebar) to change your password." in texts(app)
    assert "password_current" not in [t.key for t in app.text_input]


def test_a_forced_change_does_not_hold_a_single_sign_on_session(arena: Engine) -> None:
    """The provider's login never typed the organiser's password: only password sessions
    must replace it."""
    add_account(arena, "sso", "participant", "sso@example.org", must_change=True)
    provider = logins.log_in_identity(arena, "sso@example.org", "192.0.2.1")
    assert not logins.must_replace_password(arena, provider)
    password = add_account(arena, "typed", "participant", must_change=True)
    typed = logins.log_in(arena, "typed", password, "192.0.2.2")
    assert logins.must_replace_password(arena, typed)  # control


def test_the_gate_fails_closed_when_the_check_cannot_be_made(
    arena: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    password = add_account(arena, "steady", "participant")
    app = _open()
    log_in(app, "steady", password)
    _page(app, "bots")
    assert len(app.file_uploader) == 1  # control: the page opens

    def down(*args: Any, **kwargs: Any) -> bool:
        raise storage.StorageError("database unavailable")

    monkeypatch.setattr(logins, "must_replace_password", down)
    _page(app, "bots")
    assert not app.file_uploader
    assert [t.value for t in app.title] == ["Choose your own password"]
    assert auth.SESSION_KEY in app.session_state  # the login itself goes on


def test_a_private_arena_that_takes_sign_ups_opens_only_its_sign_up_page(
    arena: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(auth.PRIVATE_VARIABLE, "1")
    set_setting(arena, "join", "open", by=None)
    app = _open("join")
    assert "This arena is private" not in texts(app)
    _sign_up(app, "insider", NEW_PASSWORD)
    assert logged_in_line(app) == "Logged in as **insider** (participant)"
    # Control: every other page stays private to a spectator.
    app.button(key="logout").click().run()
    for page in ("standings", "bots", "account"):
        _page(app, page)
        assert "This arena is private" in texts(app), page
