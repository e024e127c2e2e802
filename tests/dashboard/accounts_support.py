"""Accounts for dashboard tests: make a user and log in through the sidebar's form."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.accounts import admin
from arena.storage.models import Role


def add_account(
    engine: Engine, name: str, role: Role, email: str | None = None, *, must_change: bool = False
) -> str:
    """Create *name* with *role* (as the host's organiser); its password. Unless
    *must_change*, the account is as if its user had already replaced the organiser's
    password (the forced change has its own tests: tests/dashboard/test_joining_pages.py)."""
    return admin.add_user(
        engine, storage.actor(engine), name, role, email, must_change_password=must_change
    )


def log_in(app: AppTest, name: str, password: str) -> AppTest:
    """Log in through the sidebar's built-in form (the way a visitor does)."""
    app.text_input(key="login_name").input(name)
    app.text_input(key="login_password").input(password)
    app.button(key="FormSubmitter:login-Log in").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def logged_in_line(app: AppTest) -> str:
    """The sidebar's "Logged in as ..." line, or "" for a spectator."""
    return next((m.value for m in app.sidebar.markdown if "Logged in as" in m.value), "")
