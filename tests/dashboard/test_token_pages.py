"""Personal tokens on the Account page under Streamlit's ``AppTest``: a token made there
shows its secret once (in that run only, kept nowhere in the session), is listed without
it, and is revoked by its button; refusals are shown and store nothing; a spectator, and a
session ended elsewhere, get nothing of it. Each hostile case has its control. The rules
themselves are tested in tests/accounts/test_tokens.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.accounts import logins
from arena.storage import open_database
from arena.storage.tokens import TokenRefused, authenticate_token, create_token, list_tokens
from dashboard import auth
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.test_pages import texts
from tests.migrated_sqlite import migrated_sqlite_url

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
SECRET = re.compile(r"a952_[A-Za-z0-9_-]{43}")
CREATE = "FormSubmitter:token_create-Create token"


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """A fresh arena the dashboard serves (``ARENA_DB``)."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    yield engine
    engine.dispose()


def _open(engine: Engine, name: str | None = None, role: str = "participant") -> AppTest:
    """The dashboard, with *name* (a new account with *role*) logged in, or a spectator."""
    app = _run(AppTest.from_file(str(APP), default_timeout=60))
    if name is not None:
        password = add_account(engine, name, "organiser" if role == "organiser" else "participant")
        log_in(app, name, password)
    return app


def _account_page(engine: Engine, name: str | None, role: str = "participant") -> AppTest:
    """The Account page, seen by *name* (see :func:`_open`) or by a spectator (``None``)."""
    return _run(_open(engine, name, role).switch_page("views/account.py"))


def _run(app: AppTest) -> AppTest:
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _create(app: AppTest, name: str, *, submit: bool = True, expiry: int | None = 90) -> AppTest:
    app.text_input(key="token_name").input(name)
    app.checkbox(key="token_scope_submit").set_value(submit)
    app.selectbox(key="token_expiry").set_value(expiry)
    app.button(key=CREATE).click()
    return _run(app)


def _secrets(app: AppTest) -> list[str]:
    """Every token secret anywhere on the page, in its text or in its session state."""
    shown = texts(app) + repr(app.session_state.to_dict())
    return SECRET.findall(shown)


def _errors(app: AppTest) -> list[str]:
    return [str(e.value) for e in app.error]


def test_a_new_token_shows_its_secret_once(arena: Engine) -> None:
    app = _account_page(arena, "alice")
    assert "Personal tokens" in [s.value for s in app.subheader]
    assert "No token yet." in texts(app)
    _create(app, "laptop", submit=False, expiry=30)
    assert not _errors(app)
    codes = [str(c.value) for c in app.code]
    assert len(codes) == 1 and SECRET.fullmatch(codes[0])
    secret = codes[0]
    assert "shown only this once" in " ".join(str(w.value) for w in app.warning)
    grant = authenticate_token(arena, secret)
    assert (grant.actor.name, sorted(grant.scopes)) == ("alice", ["read"])
    (made,) = list_tokens(arena, grant.actor, "alice")
    assert made.expires_at is not None and (made.expires_at - made.created_at).days == 30
    assert secret not in repr(app.session_state.to_dict())  # never kept in the session
    table = app.dataframe[0].value
    assert list(table["Name"]) == ["laptop"] and list(table["Scopes"]) == ["read"]
    assert list(table["Prefix"]) == [secret[:12]] and list(table["State"]) == ["active"]
    assert list(table["Last used"]) == ["—"]  # never used: the empty cell of every page
    assert secret not in table.to_string()
    # The next run (any click, a reload) no longer has it; nor does another visit.
    _run(app)
    assert _secrets(app) == [] and not app.code
    assert list(app.dataframe[0].value["Name"]) == ["laptop"]  # control: still listed
    assert list(app.dataframe[0].value["Last used"]) != ["-"]  # the authentication above
    _run(app.switch_page("views/standings.py"))
    _run(app.switch_page("views/account.py"))
    assert _secrets(app) == []


def test_a_refused_token_is_said_and_stores_nothing(arena: Engine) -> None:
    app = _account_page(arena, "alice")
    _create(app, "no/slash")
    assert _errors(app) and _errors(app)[0].startswith("a token")
    assert _secrets(app) == [] and list_tokens(arena, storage.actor(arena), "alice") == []
    app.checkbox(key="token_scope_read").set_value(False)
    _create(app, "no-scope", submit=False)
    assert _errors(app) == ["a token needs a scope: read and/or submit"]
    assert list_tokens(arena, storage.actor(arena), "alice") == []
    _create(app, "ci")  # control (the form was cleared: both scopes again)
    assert not _errors(app) and len(_secrets(app)) == 1
    _create(app, "ci")  # a live token's name is taken
    assert _errors(app) == ["alice already has a live token named 'ci'"]
    assert _secrets(app) == []
    assert [t.scopes for t in list_tokens(arena, storage.actor(arena), "alice")] == [
        ("read", "submit")
    ]


def test_a_token_is_revoked_by_its_button(arena: Engine) -> None:
    app = _account_page(arena, "alice")
    secrets = {}
    for name in ("ci", "laptop"):
        _create(app, name)
        secrets[name] = _secrets(app)[0]
    ids = {t.name: t.id for t in list_tokens(arena, storage.actor(arena), "alice")}
    app.button(key=f"token_revoke_{ids['ci']}").click()
    _run(app)
    assert "Token **ci** revoked." in texts(app)
    with pytest.raises(TokenRefused) as refused:
        authenticate_token(arena, secrets["ci"])
    assert refused.value.code == "revoked_token"
    states = dict(zip(app.dataframe[0].value["Name"], app.dataframe[0].value["State"], strict=True))
    assert states == {"ci": "revoked", "laptop": "active"}
    buttons = [b.key for b in app.button if str(b.key).startswith("token_revoke_")]
    assert buttons == [f"token_revoke_{ids['laptop']}"]  # live tokens only
    assert authenticate_token(arena, secrets["laptop"]).actor.name == "alice"  # control


def test_a_revoke_click_after_the_session_ended_does_nothing(arena: Engine) -> None:
    password = add_account(arena, "alice", "participant")
    app = log_in(_open(arena), "alice", password)
    _run(app.switch_page("views/account.py"))
    _create(app, "ci")
    secret = _secrets(app)[0]
    revoke = f"token_revoke_{list_tokens(arena, storage.actor(arena), 'alice')[0].id}"
    logins.log_out(arena, app.session_state[auth.SESSION_KEY])  # ended in another tab
    app.button(key=revoke).click()
    _run(app)
    assert "Your session ended; log in again." in texts(app) + str(app.sidebar.warning)
    assert "Personal tokens" not in [s.value for s in app.subheader]
    assert authenticate_token(arena, secret).actor.name == "alice"  # not revoked
    # Control: logged in again, the same click revokes it.
    log_in(app, "alice", password)
    _run(app.switch_page("views/account.py"))
    app.button(key=revoke).click()
    _run(app)
    with pytest.raises(TokenRefused):
        authenticate_token(arena, secret)


def test_a_spectator_sees_no_token_section(arena: Engine) -> None:
    create_token(arena, storage.actor(arena), owner="local", name="host", scopes="read")
    app = _account_page(arena, None)
    assert "Personal tokens" not in [s.value for s in app.subheader]
    assert "token_name" not in [t.key for t in app.text_input]
    assert not app.dataframe and "a952_" not in texts(app)
    assert not [b for b in app.button if str(b.key).startswith("token_revoke_")]
    # Control: a participant logged in sees the section, with their own tokens only.
    app = _account_page(arena, "pat")
    assert "Personal tokens" in [s.value for s in app.subheader]
    assert "token_name" in [t.key for t in app.text_input]
    assert "No token yet." in texts(app) and "a952_" not in texts(app)
