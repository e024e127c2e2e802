"""End to end: the real server (``arena dashboard``) in headless Chromium, every page.

Drives Debian's ``chromium`` (``/usr/bin/chromium``) through Playwright's Python package;
no browser is ever downloaded. Screenshots go to ``test-artifacts/dashboard/`` (ignored by
git) for a person to look at. Without chromium or playwright the test fails on CI
(``CI=true``) and is skipped elsewhere, with the reason.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.dashboard.helpers import free_port, wait_for_url
from tests.dashboard.seed import Seeded, store_next_game

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "dashboard"
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def server(seeded: Seeded, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``arena dashboard --db ... --port <free>``, stopped with Ctrl-C (SIGINT) at the end."""
    port = free_port()
    data = tmp_path_factory.mktemp("data")
    log = data / "dashboard.log"
    with log.open("w") as out:  # a file, not a pipe nobody reads once the server is up
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "arena.cli", "dashboard"),
                *("--db", seeded.url, "--data", str(data), "--port", str(port)),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
        )
    url = wait_for_url(process, log)
    assert url == f"http://127.0.0.1:{port}"
    try:
        yield url
    finally:
        process.send_signal(2)  # Ctrl-C
        try:
            code = process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
        assert code == 0, "arena dashboard should exit cleanly on Ctrl-C"


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)  # let charts finish drawing
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _no_exception(page: Any) -> None:
    assert page.locator("[data-testid='stException']").count() == 0


def test_every_page_in_a_real_browser(page: Any, server: str, seeded: Seeded) -> None:
    main = "?tournament=main"
    page.goto(f"{server}/{main}")
    page.get_by_role("heading", name="Standings").wait_for()
    page.get_by_text("24 / 24 games stored").wait_for()
    page.locator("[data-testid='stDataFrame']").first.wait_for()
    _no_exception(page)
    _shot(page, "1-standings")

    page.goto(f"{server}/?tournament=live")
    page.get_by_text("6 / 24 games stored (running)").wait_for()
    store_next_game(seeded, seeded.running_id)  # the page must notice by itself
    # A busy machine may take long to draw the first page (the subject is not the clock).
    page.get_by_text("7 / 24 games stored (running)").wait_for(timeout=120_000)
    _shot(page, "1-standings-live")

    page.goto(f"{server}/rating_history?tournament=main")
    page.get_by_role("heading", name="Rating history").wait_for()
    page.locator("[data-testid='stVegaLiteChart']").first.wait_for()
    _no_exception(page)
    _shot(page, "2-rating-history")

    page.get_by_role("link", name="Statistics").click()
    page.get_by_role("heading", name="Statistics").wait_for()
    page.get_by_text("Mean score difference per game").wait_for()
    page.locator("[data-testid='stVegaLiteChart']").first.wait_for()
    _shot(page, "3-statistics-head-to-head")
    page.get_by_role("tab", name="By seat").click()
    page.get_by_text("Trump calls (as dealer)").wait_for()
    _no_exception(page)
    _shot(page, "3-statistics-by-seat")

    index, seat = seeded.faulted[0]
    faulty = seeded.records[index]["players"][seat].split("@")[0]
    page.goto(f"{server}/bots?bot={faulty}")
    page.get_by_role("heading", name="Bots").wait_for()
    page.get_by_text("Fault history").wait_for()
    page.get_by_text("· hand 1 · trump: timeout").first.click()
    # A spectator sees the fault, but not the bot's stderr (its owner's and organisers').
    page.get_by_text("shown only to the bot's owner and to organisers").first.wait_for()
    assert page.get_by_text("ValueError: boom").count() == 0
    _no_exception(page)
    _shot(page, "4-bots")

    page.get_by_role("link", name="Tournaments").click()
    page.get_by_role("heading", name="Tournaments").wait_for()
    page.get_by_text("Log in as an organiser (in the sidebar) to create or run").wait_for()
    assert page.get_by_text("Create a tournament").count() == 0  # a spectator
    _no_exception(page)
    _shot(page, "5-tournaments")


def _wait_for_more_than(cards: Any, least: int, timeout_s: float = 30.0) -> None:
    """Wait until *cards* (a locator) matches more than *least* elements: the step's
    caption can be drawn a moment before the table of cards beside it."""
    deadline = time.monotonic() + timeout_s
    while cards.count() <= least:
        assert time.monotonic() < deadline, f"{cards.count()} cards shown, wanted > {least}"
        time.sleep(0.1)


def test_step_through_a_replay(page: Any, server: str, seeded: Seeded) -> None:
    faulted_index, seat = seeded.faulted[0]
    game_id = seeded.game_ids[faulted_index]
    page.goto(f"{server}/replays?tournament=main&game={game_id}")
    page.get_by_role("heading", name="Replays").wait_for()
    # The viewer draws the game in its iframe: a step is no rerun of the page.
    page.wait_for_selector("iframe")
    viewer = page.frame_locator("iframe").first
    viewer.get_by_text("Step 1 of").wait_for()
    viewer.get_by_text("deals; contracts").first.wait_for()
    _shot(page, "6-replay-deal")

    # Hand 1 starts with the dealer's trump call: the injected fault is marked there.
    viewer.get_by_role("button", name="Next").click()
    viewer.get_by_text("Step 2 of").wait_for()
    viewer.get_by_text(f"Fault: seat {seat} (timeout)").wait_for()
    viewer.get_by_text("autopilot").first.wait_for()
    for number in range(3, 12):
        viewer.get_by_role("button", name="Next").click()
        viewer.get_by_text(f"Step {number} of").wait_for()
    _wait_for_more_than(viewer.locator(".a952 .card[data-card]"), 40)  # all cards face up
    _no_exception(page)
    _shot(page, "7-replay-all-cards")

    viewer.get_by_role("button", name="Back").click()
    viewer.get_by_text("Step 10 of").wait_for()

    other = (seat + 1) % 3
    viewer.get_by_role("radio", name=f"Seat {other} (").click()
    viewer.get_by_text("this view").wait_for()
    viewer.get_by_text("hidden", exact=False).first.wait_for()
    viewer.get_by_text("Step 10 of").wait_for()  # the view changed, not the step
    # The seat sees its own 16-ish cards plus what was played, never the others' hands.
    _wait_for_more_than(viewer.locator(".a952 .seat .card.back"), 10)
    _no_exception(page)
    _shot(page, "8-replay-seat-view")

    viewer.get_by_role("button", name="End").click()
    viewer.get_by_text("Hand 1 over").first.wait_for()
    _shot(page, "9-replay-hand-end")

    viewer.get_by_role("button", name="Next").click()
    viewer.get_by_text("Hand 2:").first.wait_for()
    if seeded.records[faulted_index]["hands"][1]["exchange"]:
        viewer.get_by_role("button", name="Next").click()
        leg = seeded.records[faulted_index]["hands"][1]["exchange"][0]
        # The outsider reads "gives N card(s) to seat R", a party the cards; both name R.
        viewer.get_by_text(f"to seat {leg['receiver']}").first.wait_for()
        viewer.get_by_role("radio", name="All cards").click()
        viewer.get_by_text("gets back").first.wait_for()  # the whole story, cards and all
    _no_exception(page)
    _shot(page, "10-replay-exchange")
