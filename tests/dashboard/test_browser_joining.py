"""End to end, joining: the real server (``arena dashboard``) in headless Chromium.

A visitor follows the sidebar's "Sign up" link, is refused for a wrong invitation code,
signs up with the real one and is logged in (and stays so across a reload); a participant
whose password an organiser set must replace it: opening another page's URL shows only the
change form until the password is changed, then the page opens. Screenshots go to
``test-artifacts/dashboard/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from arena import storage
from arena.accounts import admin, joining
from arena.storage.database import open_database
from arena.storage.settings import set_setting
from arena.storage.users import find_user
from tests.dashboard.helpers import served_dashboard, settled
from tests.dashboard.test_browser import ARTIFACTS
from tests.migrated_sqlite import migrated_sqlite_url

NEW_PASSWORD = "a long walk in the park"


@dataclass(frozen=True)
class Arena:
    url: str
    database: str
    code: str
    """An invitation code for one participant."""
    fresh_password: str
    """The one-time password an organiser set for ``fresh``."""


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """A fresh arena that takes invitations, with one code and the participant ``fresh``
    (made by ``arena user add``: must replace the password), served by ``arena dashboard``."""
    data = tmp_path_factory.mktemp("joining")
    database = migrated_sqlite_url(data / "arena.db")
    engine = open_database(database)
    local = storage.actor(engine)
    set_setting(engine, "join", "invite", local.id)
    code = joining.create_invite(engine, local).code
    fresh_password = admin.add_user(engine, local, "fresh", "participant")
    engine.dispose()
    with served_dashboard(database, data / "data", data / "dashboard.log") as url:
        yield Arena(url, database, code, fresh_password)


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"joining-{name}.png"), full_page=True)


def _no_exception(page: Any) -> None:
    assert page.locator("[data-testid='stException']").count() == 0


def _main(page: Any) -> Any:
    return page.locator("[data-testid='stMain']")


def test_a_visitor_signs_up_with_an_invitation_code(arena: Arena, page: Any) -> None:
    page.goto(arena.url)
    page.get_by_text("Viewing as a spectator").wait_for()
    page.locator("[data-testid='stSidebar']").get_by_role("link", name="Sign up").click()
    page.get_by_text("Joining needs an invitation code").wait_for()
    settled(page)
    main = _main(page)

    def sign_up(code: str) -> None:
        main.get_by_role("textbox", name="User name").fill("newbie")
        main.get_by_role("textbox", name="Password", exact=True).fill(NEW_PASSWORD)
        main.get_by_role("textbox", name="Password again").fill(NEW_PASSWORD)
        main.get_by_role("textbox", name="Invitation code").fill(code)
        settled(page)
        main.get_by_role("button", name="Sign up").click()

    sign_up("not-the-code-" + "x" * 19)
    page.get_by_text("this invitation code is not valid (ask for a new one)").wait_for()
    assert page.get_by_text("Logged in as").count() == 0
    _shot(page, "1-wrong-code")
    settled(page)
    sign_up(arena.code)  # the control: the real code
    page.get_by_text("Logged in as newbie (participant)").wait_for()
    page.get_by_text("your account is made and you are logged in").wait_for()
    _no_exception(page)
    _shot(page, "2-signed-up")
    page.goto(f"{arena.url}/bots")  # a fresh page load: the login cookie keeps the session
    page.get_by_text("Logged in as newbie (participant)").wait_for()
    page.get_by_text("Submit a bot").wait_for()
    engine = open_database(arena.database)
    user = find_user(engine, "newbie")
    (invite,) = joining.list_invites(engine, storage.actor(engine))
    engine.dispose()
    assert user is not None and user.role == "participant" and invite.uses == 1


def test_an_organisers_password_is_replaced_before_any_page_opens(arena: Arena, page: Any) -> None:
    page.goto(f"{arena.url}/bots")
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("textbox", name="User name").fill("fresh")
    sidebar.get_by_role("textbox", name="Password").fill(arena.fresh_password)
    sidebar.get_by_role("button", name="Log in").click()
    page.get_by_text("Logged in as fresh (participant)").wait_for()
    page.get_by_text("Choose your own password").wait_for()
    assert page.get_by_text("Submit a bot").count() == 0
    _shot(page, "3-forced-change")
    for path in ("/bots", "/tournaments", "/account", "/"):  # typed URLs: the same form
        page.goto(f"{arena.url}{path}")
        page.get_by_text("Choose your own password").wait_for()
        settled(page)
        assert page.get_by_text("Submit a bot").count() == 0, path
        assert page.get_by_role("heading", name="Standings").count() == 0, path
    main = _main(page)
    main.get_by_role("textbox", name="Current password").fill(arena.fresh_password)
    main.get_by_role("textbox", name="New password", exact=True).fill(NEW_PASSWORD)
    main.get_by_role("textbox", name="New password again").fill(NEW_PASSWORD)
    settled(page)
    main.get_by_role("button", name="Change password").click()
    page.get_by_text("Your password is changed").wait_for()
    # The control: now the page opens, in the same session.
    page.goto(f"{arena.url}/bots")
    page.get_by_text("Submit a bot").wait_for()
    assert page.get_by_text("Choose your own password").count() == 0
    page.get_by_text("Logged in as fresh (participant)").wait_for()
    _no_exception(page)
    _shot(page, "4-after-the-change")
