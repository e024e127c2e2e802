"""The sidebar names the database (a server path, or PostgreSQL's host, user and database)
to organisers only: spectators and participants see the arena's name and nothing more."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena.storage import Actor
from arena.storage.database import open_database
from dashboard import auth
from tests.dashboard.accounts_support import add_account, log_in, logged_in_line
from tests.migrated_sqlite import migrated_sqlite_url

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def sidebar_text(app: AppTest) -> str:
    """Everything the sidebar writes as text (captions and markdown), one line each."""
    return "\n".join(
        [str(c.value) for c in app.sidebar.caption] + [str(m.value) for m in app.sidebar.markdown]
    )


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, str]]:
    """A fresh arena's database path and the passwords of ``org`` and ``player``."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    engine = open_database(url)
    passwords = {
        "org": add_account(engine, "org", "organiser"),
        "player": add_account(engine, "player", "participant"),
    }
    engine.dispose()
    return str(tmp_path / "arena.db"), passwords


@pytest.mark.parametrize("who", [None, "player"])
def test_spectators_and_participants_see_no_database(
    who: str | None, arena: tuple[str, dict[str, str]]
) -> None:
    path, passwords = arena
    app = AppTest.from_file(str(APP), default_timeout=60).run()
    if who is not None:
        log_in(app, who, passwords[who])
        assert "(participant)" in logged_in_line(app)
    assert not app.exception, [e.value for e in app.exception]
    text = sidebar_text(app)
    assert "952 Arena" in text
    for detail in ("database", "sqlite", path, Path(path).parent.name):
        assert detail not in text, text


def test_control_the_organiser_sees_the_database(arena: tuple[str, dict[str, str]]) -> None:
    path, passwords = arena
    app = AppTest.from_file(str(APP), default_timeout=60).run()
    log_in(app, "org", passwords["org"])
    assert "(organiser)" in logged_in_line(app)
    assert f"952 Arena · database `sqlite:///{path}`" in sidebar_text(app)


POSTGRES = "postgresql+psycopg://arena_user:s3cret@db.internal:5432/arena_prod"


@pytest.mark.parametrize("role", [None, "participant"])
def test_no_postgres_host_user_or_name_for_others(
    role: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DB", POSTGRES)
    actor = None if role is None else Actor(id=2, name="player", role="participant")
    assert auth.sidebar_caption(actor) == "952 Arena"


def test_control_the_organiser_sees_postgres_without_its_password(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_DB", POSTGRES)
    line = auth.sidebar_caption(Actor(id=1, name="org", role="organiser"))
    assert "arena_user:***@db.internal:5432/arena_prod" in line and "s3cret" not in line
