"""Single sign-on end to end: ``st.login`` against a real OpenID Connect provider.

The provider is ``oidc-provider-mock`` (a complete OIDC server for tests, on loopback), the
dashboard is the real ``arena dashboard`` with an ``[auth]`` section in
``.streamlit/secrets.toml`` in its working directory, and the browser is Debian's
Chromium. The provider's verified address picks the arena account; an address without
one gets no rights (the control).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from arena import storage
from arena.accounts import admin
from arena.storage.database import open_database
from dashboard import remember
from tests.dashboard.helpers import free_port, login_cookie, wait_for_url
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class SingleSignOn:
    url: str
    database: str


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"single sign-on test needs {reason}", pytrace=False)
    pytest.skip(f"single sign-on test needs {reason}")


@pytest.fixture(scope="module")
def provider() -> Iterator[int]:
    """A real OIDC provider on a free loopback port."""
    try:
        from oidc_provider_mock import run_server_in_thread  # noqa: PLC0415  (dev extra)
    except ImportError:
        _missing("oidc-provider-mock (pip install -e '.[dev]')")
    with run_server_in_thread(port=free_port()) as server:
        yield int(server.server_port)


@pytest.fixture(scope="module")
def arena(provider: int, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SingleSignOn]:
    """``arena dashboard`` configured for the provider; ``alice@example.org`` is alice's."""
    home = tmp_path_factory.mktemp("sso")
    database = migrated_sqlite_url(home / "arena.db")
    engine = open_database(database)
    admin.add_user(engine, storage.actor(engine), "alice", "participant", "alice@example.org")
    engine.dispose()
    port = free_port()
    (home / ".streamlit").mkdir()
    (home / ".streamlit" / "secrets.toml").write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_urlsafe(32)}"\n'
        'client_id = "arena952"\n'
        'client_secret = "arena952-secret"\n'
        f'server_metadata_url = "http://127.0.0.1:{provider}/.well-known/openid-configuration"\n'
    )
    log = home / "dashboard.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "arena.cli", "dashboard"),
                *("--db", database, "--data", str(home / "data"), "--port", str(port)),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=home,  # Streamlit reads .streamlit/secrets.toml from here
        )
    url = wait_for_url(process, log)
    try:
        yield SingleSignOn(url, database)
    finally:
        process.send_signal(2)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _sign_on(page: Any, url: str, address: str) -> None:
    page.goto(url)
    page.get_by_text("Viewing as a spectator").wait_for()
    page.get_by_role("button", name="Log in with single sign-on").click()
    page.locator("input[name='sub']").fill(address)  # the provider's own form
    page.get_by_role("button", name="Authorize").click()


def test_single_sign_on_logs_in_the_account_with_the_verified_address(
    arena: SingleSignOn, page: Any
) -> None:
    _sign_on(page, arena.url, "alice@example.org")
    page.get_by_text("Logged in as alice (participant)").wait_for()
    login_cookie(page)  # kept like a built-in login's
    page.goto(f"{arena.url}/bots")
    page.get_by_text("Logged in as alice (participant)").wait_for()
    page.reload()
    page.get_by_text("Logged in as alice (participant)").wait_for()
    assert _sessions(arena.database) == 1  # the reloads found alice's session again
    page.locator("[data-testid='stSidebar']").get_by_role("button", name="Log out").click()
    page.get_by_role("button", name="End session").click()  # the provider's logout, too
    page.get_by_text("Viewing as a spectator").wait_for()
    page.goto(f"{arena.url}/bots")  # and it stays logged out
    page.get_by_text("Log in as a participant (in the sidebar) to submit bots.").wait_for()


def test_a_provider_login_ends_when_the_provider_no_longer_vouches_for_it(
    arena: SingleSignOn, page: Any
) -> None:
    _sign_on(page, arena.url, "alice@example.org")
    page.get_by_text("Logged in as alice (participant)").wait_for()
    login_cookie(page)
    assert _sessions(arena.database) == 1
    # Logged out at the provider (its cookie is gone), while the arena's cookie stays.
    for cookie in page.context.cookies():
        if cookie["name"].startswith("_streamlit_user"):
            page.context.clear_cookies(name=cookie["name"])
    assert any(c["name"] == remember.COOKIE for c in page.context.cookies())
    page.reload()
    page.get_by_text("Viewing as a spectator").wait_for()
    assert page.get_by_text("Logged in as").count() == 0
    assert _sessions(arena.database) == 0  # and the arena session is over, not just hidden


def _sessions(database: str) -> int:
    """How many arena sessions are stored."""
    engine = open_database(database)
    try:
        with engine.connect() as connection:
            return int(connection.execute(text("SELECT count(*) FROM login_session")).scalar_one())
    finally:
        engine.dispose()


def test_an_address_without_an_account_gets_no_rights(arena: SingleSignOn, page: Any) -> None:
    _sign_on(page, arena.url, "eve@example.org")
    page.get_by_text("eve@example.org has no arena account").wait_for()
    assert page.get_by_text("Logged in as").count() == 0
    page.goto(f"{arena.url}/bots")
    page.get_by_text("Log in as a participant (in the sidebar) to submit bots.").wait_for()
