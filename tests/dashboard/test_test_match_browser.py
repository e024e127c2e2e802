"""A test match in a real browser: the real server (``arena dashboard``) in headless
Chromium. A participant queues a match of her bot against ``builtin:greedy``; the queue
runner the dashboard starts (a separate ``arena queue run --once`` process) plays it; its
replay opens. Screenshots go to ``test-artifacts/dashboard/``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena import storage
from arena.accounts import admin
from arena.storage import test_matches as queue
from arena.storage.database import open_database
from arena.submission import submit_bot
from tests.dashboard.helpers import served_dashboard, settled
from tests.dashboard.test_browser import ARTIFACTS
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_MS = 240_000


@dataclass(frozen=True)
class Arena:
    url: str
    database: str
    password: str
    log: Path


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """(Asked for before the browser: submitting runs its own event loop.) A fresh arena
    with participant ``alice`` and her bot (random_bot's code), served by ``arena
    dashboard``."""
    folder = tmp_path_factory.mktemp("test-match-browser")
    database = migrated_sqlite_url(folder / "arena.db")
    engine = open_database(database)
    copy = folder / "alice_bot"
    shutil.copytree(ROOT / "sample_bots" / "random_bot", copy)
    manifest = copy / "bot.toml"
    manifest.write_text(manifest.read_text().replace('"random_bot"', '"alice_bot"'))
    local = storage.actor(engine)
    password = admin.add_user(engine, local, "alice", "participant", must_change_password=False)
    submit_bot(engine, copy, folder / "data", submitter=storage.actor(engine, "alice"))
    engine.dispose()
    with served_dashboard(database, folder / "data", folder / "dashboard.log") as url:
        yield Arena(url, database, password, folder / "data" / "logs" / "test-queue.log")


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"test-match-{name}.png"), full_page=True)


def test_a_test_match_against_builtin_greedy_is_played_and_its_replay_opens(
    arena: Arena, page: Any
) -> None:
    page.goto(f"{arena.url}/test_match")
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("textbox", name="User name").fill("alice")
    sidebar.get_by_role("textbox", name="Password").fill(arena.password)
    sidebar.get_by_role("button", name="Log in").click()
    page.get_by_text("Logged in as alice (participant)").wait_for()
    settled(page)
    page.get_by_text("With one opponent the third seat goes to builtin:random").wait_for()
    page.get_by_role("button", name="Queue the test match").click()
    page.get_by_text("Queued test match #1.").wait_for()
    _shot(page, "1-queued")
    replay = page.get_by_role("button", name="Replays of test match #1")
    try:
        page.get_by_text("played", exact=True).wait_for(timeout=RUN_TIMEOUT_MS)
    except Exception:
        _shot(page, "failed-played")
        runner_log = arena.log.read_text(errors="replace") if arena.log.exists() else "(none)"
        pytest.fail(f"the test match was not played; queue runner log:\n{runner_log}")
    _shot(page, "2-played")
    engine = open_database(arena.database)
    try:
        match = queue.get_test_match(engine, 1)
        assert match is not None and match.status == "played"
        assert match.tournament_id is not None
        first = storage.tournament_game_ids(engine, match.tournament_id)[0]
    finally:
        engine.dispose()
    replay.click()
    page.get_by_role("heading", name="Replays").wait_for()
    page.get_by_text(f"{queue.tournament_name(1)} game #0").first.wait_for()
    assert f"game={first}" in page.url
    assert page.locator("[data-testid='stException']").count() == 0
    _shot(page, "3-replay")
