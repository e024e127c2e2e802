"""My bots in a real browser: the real server (``arena dashboard``) in headless Chromium,
on the canary arena (:mod:`tests.privacy_support`).

The owner logs in, opens My bots, reads their bot's own stderr for one game, and downloads
that game's record and the version's archive: the files hold the owner's seat's logs (the
canary) and no other seat's. Another participant's browser never shows the canary.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.dashboard.helpers import free_port, settled, wait_for_url
from tests.dashboard.test_browser import ARTIFACTS
from tests.privacy_support import ROOT, CanaryArena, copied_canary_arena

TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class Served:
    world: CanaryArena
    url: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """(Asked for before the browser: submitting runs its own event loop.) The canary
    arena, served by ``arena dashboard``."""
    root = tmp_path_factory.mktemp("my_bots_browser")
    world = copied_canary_arena(root)
    log = root / "dashboard.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "dashboard", *world.db(), "--port", str(free_port())],
            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=dict(os.environ),
        )  # fmt: skip
    try:
        yield Served(world, wait_for_url(process, log))
    finally:
        process.send_signal(2)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        world.engine.dispose()


def _log_in_and_open_my_bots(page: Any, served: Served, name: str) -> None:
    page.goto(served.url)
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("textbox", name="User name").fill(name)
    sidebar.get_by_role("textbox", name="Password").fill(served.world.passwords[name])
    sidebar.get_by_role("button", name="Log in").click()
    sidebar.get_by_text(f"Logged in as {name}").first.wait_for(timeout=TIMEOUT_MS)
    settled(page)
    sidebar.get_by_role("link", name="My bots").click()
    page.get_by_role("heading", name="My bots").wait_for(timeout=TIMEOUT_MS)
    settled(page)


def _seat(record: dict[str, Any]) -> int:
    return [p.split("@")[0] for p in record["players"]].index("canary_bot")


def _only_own_seat(record: dict[str, Any], canary: str) -> None:
    seat = _seat(record)
    assert canary in record["bot_logs"][seat]["stderr"]
    for other in {0, 1, 2} - {seat}:
        assert record["bot_logs"][other] == {
            "stdout": "", "stderr": "", "dropped_bytes": 0, "hidden": True
        }  # fmt: skip


def test_the_owner_reads_a_games_logs_and_downloads_its_record(
    served: Served, page: Any, tmp_path: Path
) -> None:
    world = served.world
    _log_in_and_open_my_bots(page, served, "owner")
    # The newest game's stderr, shown (the smoke game's, in a closed expander, is not).
    page.locator("code:visible", has_text="thinking slowly").first.wait_for(timeout=TIMEOUT_MS)
    main = page.locator("[data-testid='stMain']")
    assert world.canary in main.inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "my-bots-owner.png"), full_page=True)

    with page.expect_download(timeout=TIMEOUT_MS) as caught:
        page.get_by_role("button", name="Download this game's record (JSON)").click()
    saved = tmp_path / "record.json"
    caught.value.save_as(saved)
    record = json.loads(saved.read_text())
    assert record["format"] == "arena952.game/1" and record["hands"]
    _only_own_seat(record, world.canary)
    newest = max(world.game_ids)
    assert caught.value.suggested_filename == f"game-{newest}.json"

    with page.expect_download(timeout=TIMEOUT_MS) as caught:
        page.get_by_role("button", name="Download all games").click()
    archive = tmp_path / "games.zip"
    caught.value.save_as(archive)
    with zipfile.ZipFile(io.BytesIO(archive.read_bytes())) as games:
        names = sorted(games.namelist())
        assert names == sorted(f"game-{g}.json" for g in world.game_ids)
        for name in names:
            _only_own_seat(json.loads(games.read(name)), world.canary)


def test_another_participant_never_sees_the_canary(served: Served, page: Any) -> None:
    _log_in_and_open_my_bots(page, served, "other")
    page.get_by_text("No bot yet").wait_for(timeout=TIMEOUT_MS)
    assert served.world.canary not in page.content()
    page.goto(f"{served.url}/bots?bot=canary_bot")
    page.get_by_text("Fault history").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text(re.compile(r"· hand 1 · \w+: timeout")).first.click()
    page.get_by_text("shown only to the bot's owner and to organisers").first.wait_for()
    assert served.world.canary not in page.content()
