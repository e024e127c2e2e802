"""A person plays a whole game on the demo's dashboard, in a real browser: issue 33's check.

Why: the Play page's browser test plays against two ``builtin:random`` bots on a fresh
arena. This drives the setup a new user has: ``make demo`` (its data in ``runs/demo``,
its dashboard serving), a participant who logs in, and a game of ``classic`` against
``builtin:pimc`` (stored on first use by the game's runner) and the demo's
``heuristic_bot``. Headless Debian chromium answers every decision with a random legal
choice, like a person who clicks any card the table offers, and the script prints the
stored record's players and scores and the time from each click to the next decision on
screen (the bots' replies, the database hand-over both ways and the page's redraw).

Figures are reported, not asserted. Run, with the demo's dashboard up (``make demo``, or
``make demo PORT=N``)::

    .venv/bin/python benchmarks/play_demo.py [--port 8501] [--data runs/demo]

It adds (or resets) the participant ``player`` in the demo's database.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import storage  # noqa: E402
from arena.accounts import admin  # noqa: E402
from arena.storage import play_games  # noqa: E402
from arena.storage.database import open_database  # noqa: E402
from arena.storage.users import find_user  # noqa: E402

TABLE = ".a952play"
USER = "player"
OPPONENTS = ("builtin:pimc", "heuristic_bot")


def _password(url: str) -> str:
    """A password for the participant :data:`USER`, added if needed."""
    engine = open_database(url)
    try:
        organiser = storage.actor(engine)
        if find_user(engine, USER) is None:
            return admin.add_user(
                engine, organiser, USER, "participant", must_change_password=False
            )
        return admin.reset_password(engine, organiser, USER, must_change_password=False)
    finally:
        engine.dispose()


def _pending(url: str) -> dict[str, Any]:
    engine = open_database(url)
    try:
        user = find_user(engine, USER)
        assert user is not None and user.id is not None
        game = play_games.list_play_games(engine, user.id)[0]
        return dict(json.loads(game.pending or "{}"))
    finally:
        engine.dispose()


def _wait(page: Any, found: Callable[[], str | None], seconds: float) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = found()
        if value:
            return value
        time.sleep(0.05)
    page.screenshot(path="play_demo_timeout.png", full_page=True)
    raise SystemExit(f"nothing happened on the page in {seconds:.0f} s (play_demo_timeout.png)")


def play(base: str, url: str, password: str, seed: int) -> list[float]:
    """Log in, take seat 0 against :data:`OPPONENTS` and play to the end; the seconds from
    each click to the next decision on screen."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (a dev extra)

    rng = random.Random(seed)
    done: set[str] = set()
    waits: list[float] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{base}/play")
        sidebar = page.locator("[data-testid='stSidebar']")
        sidebar.get_by_role("textbox", name="User name").fill(USER)
        sidebar.get_by_role("textbox", name="Password").fill(password)
        sidebar.get_by_role("button", name="Log in").click()
        page.get_by_text(f"Logged in as {USER} (participant)").wait_for()
        # The login's rerun may still draw the form: wait until no script run is in flight.
        page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for()
        for label, name in zip(("First opponent", "Second opponent"), OPPONENTS, strict=True):
            page.get_by_role("combobox", name=label, exact=True).click()
            page.get_by_role("option", name=name, exact=True).click()
        duplicate = "Afterwards, a house bot plays your cards in your seat (duplicate)"
        page.get_by_role("combobox", name=duplicate, exact=True).click()
        page.get_by_role("option", name="nobody", exact=True).click()
        page.get_by_role("button", name="Take the seat").click()

        def asked() -> str | None:
            if page.get_by_text("Open the replay of game").count():
                return "end"
            table = page.locator(TABLE)
            number = table.get_attribute("data-no") if table.count() else ""
            return number if number and number not in done else None

        while (number := _wait(page, asked, 300)) != "end":
            kind = page.locator(TABLE).get_attribute("data-kind")
            clicked = time.monotonic()
            if kind in ("play", "trump"):
                options = page.locator(f"{TABLE} button.{'pick' if kind == 'play' else 'choice'}")
                options.nth(rng.randrange(options.count())).click()
            else:
                pending = _pending(url)
                counts = (
                    [pending["discard_count"]]
                    if kind == "discard"
                    else [count for _seat, count in pending["give_legs"]]
                )
                for count in counts:
                    for _ in range(count):
                        page.locator(f"{TABLE} button.pick:not(.chosen)").first.click()
                    page.locator(f"{TABLE} button.choice").click()
            done.add(number)
            _wait(page, asked, 300)
            waits.append(time.monotonic() - clicked)
        browser.close()
    return waits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8501, help="the demo dashboard's port")
    parser.add_argument("--data", type=Path, default=ROOT / "runs" / "demo")
    parser.add_argument("--seed", type=int, default=1, help="the random clicker's seed")
    args = parser.parse_args()
    url = f"sqlite:///{(args.data / 'arena.db').resolve()}"
    started = time.monotonic()
    waits = play(f"http://127.0.0.1:{args.port}", url, _password(url), args.seed)
    engine = open_database(url)
    try:
        user = find_user(engine, USER)
        assert user is not None and user.id is not None
        game = play_games.list_play_games(engine, user.id)[0]
    finally:
        engine.dispose()
    record = json.loads(game.record or "{}")
    print(f"game {game.id}: {game.status}; players {record.get('players')}")
    print(f"scores {record.get('result', {}).get('scores')}; faults {record.get('faults')}")
    ordered = sorted(waits)
    print(
        f"{len(waits)} decisions in {time.monotonic() - started:.0f} s; click to the next "
        f"decision on screen: median {statistics.median(waits) * 1000:.0f} ms, "
        f"p95 {ordered[max(0, round(0.95 * len(ordered)) - 1)] * 1000:.0f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
