"""End to end with logins: the real server (``arena dashboard``) in headless Chromium.

A spectator sees standings and replays but is offered no upload and no tournament control;
a participant uploads a new bot and a new version of it, and is refused, with the owner's
name, for another user's bot name; an organiser creates and starts a tournament; a wrong
password is refused, and strangers guessing a password hold back new browsers but not the
owner's; a login survives a reload (an HttpOnly cookie) until it is logged out, and a
forged or outlived cookie logs nobody in. Screenshots go to
``test-artifacts/dashboard/``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena import storage
from arena.accounts import admin, logins, passwords
from arena.storage.database import open_database
from arena.storage.users import set_password_hash
from arena.submission import submit_bot
from dashboard import remember
from tests.dashboard.helpers import (
    BROWSER_TIMEOUT_MS,
    free_port,
    login_cookie,
    settled,
    upload_then_submit,
    wait_for_url,
)
from tests.dashboard.test_browser import ARTIFACTS
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
RUN_TIMEOUT_MS = 240_000
STACK_DUMP = Path(__file__).resolve().parent / "stack_dump"


@dataclass(frozen=True)
class Arena:
    url: str
    """The dashboard's address."""
    database: str
    passwords: dict[str, str]
    server: subprocess.Popen[bytes]
    log: Path
    """The server's output (with its thread stacks once :func:`_explain` asks for them)."""


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """(Asked for before the browser: submitting runs its own event loop, which cannot
    start inside Playwright's.) A fresh arena: the three Python sample bots (the host's), an organiser ``olga``,
    participants ``alice`` and ``bob``, and ``arena dashboard`` serving it."""
    data = tmp_path_factory.mktemp("accounts")
    database = migrated_sqlite_url(data / "arena.db")
    engine = open_database(database)
    for bot in ("random_bot", "greedy_bot", "heuristic_bot"):
        submit_bot(engine, SAMPLES / bot, data / "data")
    local = storage.actor(engine)
    passwords = {
        name: admin.add_user(engine, local, name, role, must_change_password=False)
        for name, role in (("olga", "organiser"), ("alice", "participant"), ("bob", "participant"))
    }
    engine.dispose()
    port = free_port()
    log = data / "dashboard.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "arena.cli", "dashboard"),
                *("--db", database, "--data", str(data / "data"), "--port", str(port)),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": _with_stack_dump(os.environ.get("PYTHONPATH"))},
        )
    url = wait_for_url(process, log)
    try:
        yield Arena(url, database, passwords, process, log)
    finally:
        process.send_signal(2)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _with_stack_dump(python_path: str | None) -> str:
    """*python_path* with ``stack_dump/`` (a ``sitecustomize``) in front."""
    return os.pathsep.join(p for p in (str(STACK_DUMP), python_path) if p)


def _bot_zip(name: str, marker: str = "") -> bytes:
    """random_bot's folder as a zip, under bot name *name* (and other files with *marker*)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((SAMPLES / "random_bot").rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            content = path.read_bytes()
            if path.name == "bot.toml":
                content = content.replace(b'name = "random_bot"', f'name = "{name}"'.encode())
            if path.name == "bot.py" and marker:
                content += f"\n# {marker}\n".encode()
            archive.writestr(f"{name}/{path.relative_to(SAMPLES / 'random_bot')}", content)
    return buffer.getvalue()


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"accounts-{name}.png"), full_page=True)


def _no_exception(page: Any) -> None:
    assert page.locator("[data-testid='stException']").count() == 0


def _wait_for_text(
    arena: Arena, page: Any, text: str, name: str, timeout_ms: float = RUN_TIMEOUT_MS
) -> None:
    """Wait for *text*; if it never shows, fail with a screenshot *name* and
    :func:`_explain`'s account of the page and the server, so a failure in CI explains
    itself."""
    try:
        page.get_by_text(text).wait_for(timeout=timeout_ms)
    except Exception:
        _shot(page, f"failed-{name}")
        pytest.fail(f"{text!r} never showed.\n{_explain(arena, page)}", pytrace=False)


def _explain(arena: Arena, page: Any) -> str:
    """What the page shows (its script and connection state, its text) and what the
    server was doing: every thread's stack (SIGUSR1, see ``stack_dump/``) and its log."""
    app = page.locator("[data-testid='stApp']")
    states = [app.get_attribute(f"data-test-{k}-state") for k in ("script", "connection")]
    main = page.locator("[data-testid='stMain']").inner_text()
    side = page.locator("[data-testid='stSidebar']").inner_text()
    import psutil  # noqa: PLC0415 - a dev dependency, as in the other process tests

    with contextlib.suppress(psutil.Error):
        server = psutil.Process(arena.server.pid)  # the CLI, and the Streamlit server it runs
        for process in [server, *server.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                process.send_signal(signal.SIGUSR1)  # one at a time: their dumps share the log
                time.sleep(0.5)  # faulthandler writes from the signal handler; let it land
    log = arena.log.read_text(errors="replace").splitlines()[-300:]
    return "\n".join(
        [
            f"page {page.url}: script {states[0]}, connection {states[1]}",
            f"main: {main!r}",
            f"sidebar: {side!r}",
            "server log (last 300 lines):",
            *log,
        ]
    )


def _log_in(page: Any, name: str, password: str) -> None:
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("textbox", name="User name").fill(name)
    sidebar.get_by_role("textbox", name="Password").fill(password)
    sidebar.get_by_role("button", name="Log in").click()


def _upload(page: Any, filename: str, content: bytes) -> None:
    settled(page)  # the expander's state is only final once the login's rerun is drawn
    if not page.locator("[data-testid='stFileUploaderDropzone']").is_visible():
        page.get_by_text("Submit a bot").click()  # open the expander (a click closes it)
    upload_then_submit(page, filename, content, RUN_TIMEOUT_MS)


def test_a_participant_uploads_own_bots_and_is_refused_for_another_name(
    arena: Arena, page: Any
) -> None:
    page.goto(f"{arena.url}/bots")
    _log_in(page, "alice", arena.passwords["alice"])
    page.get_by_text("Logged in as alice (participant)").wait_for()
    _upload(page, "alice_bot.zip", _bot_zip("alice_bot"))
    page.get_by_text("Stored alice_bot@1.0.0.").wait_for(timeout=RUN_TIMEOUT_MS)
    _upload(page, "alice_bot-2.zip", _bot_zip("alice_bot", "second version"))
    page.get_by_text("Stored alice_bot@1.0.0+").wait_for(timeout=RUN_TIMEOUT_MS)
    _no_exception(page)
    _shot(page, "1-participant-uploads")

    page.locator("[data-testid='stSidebar']").get_by_role("button", name="Log out").click()
    page.get_by_text("Viewing as a spectator").wait_for()
    _log_in(page, "bob", arena.passwords["bob"])
    page.get_by_text("Logged in as bob (participant)").wait_for()
    _upload(page, "stolen.zip", _bot_zip("alice_bot", "bob's code"))
    page.get_by_text(
        "submission refused: bot name 'alice_bot' belongs to alice: only alice or an organiser"
    ).wait_for(timeout=RUN_TIMEOUT_MS)
    _shot(page, "2-refused-for-another-name")
    engine = open_database(arena.database)
    versions = storage.bot_versions(engine, "alice_bot")
    assert len(versions) == 2 and {v.submitted_via for v in versions} == {"dashboard"}
    assert storage.bot_owner(engine, "alice_bot") == "alice"
    engine.dispose()


def test_an_organiser_creates_and_starts_a_tournament_and_a_spectator_watches(
    arena: Arena,
    page: Any,
    browser: Any,
) -> None:
    page.goto(f"{arena.url}/tournaments")
    page.get_by_text("Log in as an organiser (in the sidebar) to create or run").wait_for()
    _log_in(page, "olga", arena.passwords["olga"])
    page.get_by_text("Logged in as olga (organiser)").wait_for()
    settled(page)
    page.get_by_text("Create a tournament").click()
    # The number first and a text box last, as in the login form: a number input still
    # focused when Create is clicked commits its value on that click's blur.
    boards = page.get_by_role("spinbutton", name="Boards per table")
    boards.fill("1")
    boards.press("Tab")
    name = page.get_by_role("textbox", name="Name", exact=True)
    name.fill("browser-cup")
    settled(page)
    assert (name.input_value(), boards.input_value()) == ("browser-cup", "1")
    page.get_by_role("button", name="Create", exact=True).click()
    _wait_for_text(arena, page, "created tournament 'browser-cup'", "create")
    _wait_for_text(arena, page, "Finished: see Standings", "finish")
    _no_exception(page)
    _shot(page, "3-organiser-ran-a-tournament")

    spectator_browser = browser.new_context(viewport={"width": 1500, "height": 1100})
    spectator_browser.set_default_timeout(BROWSER_TIMEOUT_MS)
    spectator = spectator_browser.new_page()
    spectator.goto(f"{arena.url}/?tournament=browser-cup")
    spectator.get_by_text("Viewing as a spectator").wait_for()
    spectator.get_by_text("6 / 6 games stored").wait_for()
    _shot(spectator, "4-spectator-standings")
    spectator.goto(f"{arena.url}/replays?tournament=browser-cup")
    spectator.wait_for_selector("iframe")  # the replay viewer draws the game in its frame
    spectator.frame_locator("iframe").first.get_by_text("Step 1 of").wait_for()
    spectator.goto(f"{arena.url}/bots")
    spectator.get_by_text("Log in as a participant (in the sidebar) to submit bots.").wait_for()
    assert spectator.get_by_text("Submit a bot").count() == 0
    spectator.goto(f"{arena.url}/tournaments")
    spectator.get_by_text("Log in as an organiser (in the sidebar) to create or run").wait_for()
    assert spectator.get_by_text("Create a tournament").count() == 0
    for label in ("Start", "Resume", "Stop"):
        assert spectator.get_by_role("button", name=label, exact=True).count() == 0
    _shot(spectator, "5-spectator-tournaments")
    spectator.context.close()


def test_a_login_survives_a_reload_until_it_ends(arena: Arena, page: Any, browser: Any) -> None:
    page.goto(f"{arena.url}/bots")
    _log_in(page, "alice", arena.passwords["alice"])
    page.get_by_text("Logged in as alice (participant)").wait_for()
    cookie = login_cookie(page)
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"]) == (True, "Strict", "/")
    assert remember.COOKIE not in page.evaluate("document.cookie")  # no script reads it
    page.reload()
    page.get_by_text("Logged in as alice (participant)").wait_for()
    second_tab = page.context.new_page()  # the same browser: another tab is logged in too
    second_tab.goto(f"{arena.url}/bots")
    second_tab.get_by_text("Logged in as alice (participant)").wait_for()
    second_tab.close()

    # Another browser with a made-up cookie, or with alice's once she logged out: a spectator.
    def stranger(value: str) -> Any:
        context = browser.new_context()
        context.add_cookies([{"name": remember.COOKIE, "value": value, "url": arena.url}])
        tab = context.new_page()
        tab.goto(f"{arena.url}/bots")
        return tab

    forged = stranger("A" * 43)
    forged.get_by_text("Viewing as a spectator").wait_for()
    assert forged.get_by_text("Logged in as").count() == 0
    forged.context.close()
    copied = stranger(cookie["value"])  # the control: while alice is logged in, it works
    copied.get_by_text("Logged in as alice (participant)").wait_for()

    page.locator("[data-testid='stSidebar']").get_by_role("button", name="Log out").click()
    page.get_by_text("Viewing as a spectator").wait_for()
    deadline = time.monotonic() + 30
    while any(c["name"] == remember.COOKIE for c in page.context.cookies()):
        assert time.monotonic() < deadline, "logging out left the cookie"
        time.sleep(0.1)
    page.reload()
    page.get_by_text("Viewing as a spectator").wait_for()
    assert page.get_by_text("Logged in as").count() == 0
    copied.reload()  # the copy outlived the logout, but the session it names is over
    copied.get_by_text("Viewing as a spectator").wait_for()
    # The cookie scripts run through an API Streamlit keeps. It logs every call of a
    # deprecated one: "Please replace `st.components.v1.html` with `st.iframe`. ... will be
    # removed after 2026-06-01", as the earlier code's calls did.
    log = arena.log.read_text(errors="replace")
    assert re.findall(r".*(?:will be removed|deprecated).*", log, re.IGNORECASE) == []
    assert copied.get_by_text("Logged in as").count() == 0
    copied.context.close()


def test_strangers_guessing_a_password_keep_out_new_browsers_not_the_owners(
    arena: Arena, page: Any, browser: Any
) -> None:
    """bob's own browser (it logged in before: its device cookie) gets in while strangers'
    wrong passwords for bob hold back every browser new to the account (the control)."""
    page.goto(arena.url)
    _log_in(page, "bob", arena.passwords["bob"])
    page.get_by_text("Logged in as bob (participant)").wait_for()
    device = _wait_for_cookie(page, remember.DEVICE_COOKIE)
    assert (device["httpOnly"], device["sameSite"]) == (True, "Strict")
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("button", name="Log out").click()
    page.get_by_text("Viewing as a spectator").wait_for()
    _log_in(page, "bob", "guess-1")
    sidebar.get_by_text("wrong user name or password").wait_for()

    engine = open_database(arena.database)
    # bob's first login made the server re-hash his password with the arena's argon2
    # parameters (64 MiB, 3 passes), so each guess below would pay them in this process.
    # The subject is the throttle, not the hash: the same password, hashed again at the
    # tests' least cost, as a re-hash (no new password: his sessions and device stay).
    cheap = passwords.hash_password(arena.passwords["bob"])
    set_password_hash(engine, "bob", cheap, new_password=False)
    for n in range(logins.LoginPolicy().throttle.max_account_failures):
        with pytest.raises(logins.LoginRefused):
            logins.log_in(engine, "bob", f"guess-{n}", f"203.0.113.{n}")
    engine.dispose()

    stranger = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
    stranger.goto(arena.url)
    _log_in(stranger, "bob", arena.passwords["bob"])
    stranger.get_by_text("too many failed logins for this name: try again in").wait_for()
    assert stranger.get_by_text("Logged in as").count() == 0
    _shot(stranger, "6-throttled-new-browser")
    stranger.context.close()

    _log_in(page, "bob", arena.passwords["bob"])
    page.get_by_text("Logged in as bob (participant)").wait_for()
    _shot(page, "7-owner-browser-gets-in")


def _wait_for_cookie(page: Any, name: str, deadline_s: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + deadline_s
    while True:
        found = [c for c in page.context.cookies() if c["name"] == name]
        if found:
            return dict(found[0])
        assert time.monotonic() < deadline, f"the {name} cookie was never set"
        time.sleep(0.1)
