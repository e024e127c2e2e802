"""A bot author's whole loop on a hosted arena, in a real browser, with no organiser in it.

The arena: joining by invitation, an open ladder of house-made bots (three, or two for the
test: :data:`WAITING_HOUSE_BOTS`) played by a
following ``arena tournament run --follow`` (its own process), the dashboard served by
``arena dashboard``. The author, in headless Chromium: signs up with the code, uploads a bot
(a zip, as from their own machine), sees it enter the open ladder by itself and play its
first ladder game, queues a test match against ``builtin:greedy`` (played by the queue
runner the dashboard starts), opens its replay, reads the bot's own logs for one game on
My bots and downloads that game's record.

Used by ``tests/dashboard/test_author_loop_browser.py`` (which asserts what happens) and
``benchmarks/author_loop.py`` (which reports how long each step took): timings are
returned, never asserted.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import storage
from arena.accounts import joining
from arena.storage import test_matches as queue
from arena.storage.database import open_database
from arena.storage.settings import set_setting
from arena.submission import submit_bot
from tests.dashboard.helpers import free_port, settled, upload_then_submit, wait_for_url
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
LADDER = "club ladder"
AUTHOR = "newbie"
PASSWORD = "a long walk in the park"
BOT = "newbie_bot"
TIME_CONTROL = "decision=5000,bank=60000,grace=500,startup=30000"
STEP_TIMEOUT_S = 300.0
"""The longest one step may take (a loaded CI machine plays a ladder match slowly)."""
HOUSE_BOTS = (("club_random", "random_bot"), ("club_greedy", "greedy_bot"),
              ("club_heuristic", "heuristic_bot"))  # fmt: skip
"""(house bot, the sample it is made from): the open ladder's bots before the author's."""
WAITING_HOUSE_BOTS = HOUSE_BOTS[:2]
"""Two house bots: too few for a match, so the following runner plays nothing until the
author's bot enters and makes three, and its first ladder game is the ladder's first. With
three, the runner plays house matches from the start (twelve games and more, each with
three bot processes, before the author's first) that the author's loop never looks at."""


@dataclass
class Hosted:
    """A running hosted arena: its address, database, invitation code and processes."""

    url: str
    database: str
    data: Path
    code: str
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    def log_tails(self) -> str:
        """The end of every process's log, for a failure's message."""
        return "\n".join(
            f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}"
            for log in self.logs
            if log.exists()
        )


def _house_bot(where: Path, name: str, sample: str) -> Path:
    folder = where / name
    shutil.copytree(SAMPLES / sample, folder)
    manifest = folder / "bot.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace(f'"{sample}"', f'"{name}"', 1), encoding="utf-8")
    return folder


def author_bot_zip(version: str = "1") -> bytes:
    """The author's bot as they would upload it: random_bot's code under their name."""
    source = (SAMPLES / "random_bot" / "bot.py").read_bytes()
    manifest = (
        f'name = "{BOT}"\nversion = "{version}"\nlanguage = "python"\nrun = "python bot.py"\n'
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{BOT}/bot.toml", manifest)
        archive.writestr(f"{BOT}/bot.py", source)
    return buffer.getvalue()


def _start(hosted: Hosted, name: str, *args: str) -> subprocess.Popen[bytes]:
    log = hosted.data.parent / f"{name}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env=dict(os.environ),
            start_new_session=True,
        )
    hosted.processes.append(process)
    hosted.logs.append(log)
    return process


@contextmanager
def hosted_arena(
    folder: Path, house_bots: tuple[tuple[str, str], ...] = HOUSE_BOTS
) -> Iterator[Hosted]:
    """A fresh arena that takes invitations, with an open ladder of *house_bots* being
    played by a following runner, and its dashboard; everything stopped on exit."""
    database = migrated_sqlite_url(folder / "arena.db")
    data = folder / "data"
    engine = open_database(database)
    organiser = storage.actor(engine)
    set_setting(engine, "join", "invite", organiser.id)
    code = joining.create_invite(engine, organiser).code
    sources = folder / "house"
    for name, sample in house_bots:
        submit_bot(engine, _house_bot(sources, name, sample), data, submitter=organiser)
    engine.dispose()
    hosted = Hosted("", database, data, code)
    common = ("--db", database, "--data", str(data))
    try:
        create = subprocess.run(
            [sys.executable, "-m", "arena.cli", "tournament", "create", LADDER,
             "--format", "ladder", "--open", "--time-control", TIME_CONTROL,
             "--bots", ",".join(name for name, _ in house_bots), *common],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert create.returncode == 0, create.stdout + create.stderr
        _start(hosted, "ladder", "tournament", "run", LADDER, "--follow", "--parallel", "1",
               *common)  # fmt: skip
        port = free_port()
        dashboard = _start(hosted, "dashboard", "dashboard", *common, "--port", str(port))
        hosted.url = wait_for_url(dashboard, hosted.logs[-1])
        yield hosted
    finally:
        for process in hosted.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
        for process in hosted.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        # The queue runner the dashboard started, if it outlived it.
        subprocess.run(["pkill", "-f", f"queue run --once --db {database}"], check=False)


def _until(what: str, hosted: Hosted, condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + STEP_TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{hosted.log_tails()}")
        time.sleep(0.5)


def _stop_ladder(hosted: Hosted) -> None:
    """Stop the ladder's runner (the first process), so that a test match's games are the
    newest (My bots shows the newest first) and no ladder match is left half played
    after them."""
    ladder = hosted.processes[0]
    os.killpg(ladder.pid, signal.SIGINT)
    ladder.wait(timeout=STEP_TIMEOUT_S)


def _first_ladder_game(hosted: Hosted) -> bool:
    engine = open_database(hosted.database)
    try:
        tournament = storage.get_tournament(engine, LADDER)
        for game_id in storage.tournament_game_ids(engine, storage.row_id(tournament)):
            record = storage.game_record(engine, game_id)
            if any(player.startswith(f"{BOT}@") for player in record["players"]):
                return True
        return False
    finally:
        engine.dispose()


def _test_match_status(hosted: Hosted) -> str:
    engine = open_database(hosted.database)
    try:
        match = queue.get_test_match(engine, 1)
        return match.status if match is not None else "missing"
    finally:
        engine.dispose()


@dataclass
class LoopResult:
    """What the loop saw, and how long its steps took (seconds)."""

    timings: dict[str, float] = field(default_factory=dict)
    downloaded: dict[str, Any] = field(default_factory=dict)
    my_bots_text: str = ""


def run_author_loop(  # noqa: PLR0915  (one scripted walk, step by step, as the author takes it)
    page: Any, hosted: Hosted, shot: Callable[[str], None]
) -> LoopResult:
    """Drive the author's loop in *page*; raises AssertionError naming the step that failed."""
    result = LoopResult()
    main = page.locator("[data-testid='stMain']")
    sidebar = page.locator("[data-testid='stSidebar']")

    # 1. Join with the invitation code.
    page.goto(hosted.url)
    sidebar.get_by_role("link", name="Sign up").click()
    page.get_by_text("Joining needs an invitation code").wait_for()
    settled(page)
    main.get_by_role("textbox", name="User name").fill(AUTHOR)
    main.get_by_role("textbox", name="Password", exact=True).fill(PASSWORD)
    main.get_by_role("textbox", name="Password again").fill(PASSWORD)
    main.get_by_role("textbox", name="Invitation code").fill(hosted.code)
    settled(page)
    signed_up = time.monotonic()
    main.get_by_role("button", name="Sign up").click()
    page.get_by_text(f"Logged in as {AUTHOR} (participant)").wait_for()
    shot("1-signed-up")

    # 2. Upload the bot: manifest, build and smoke game, then it enters the open ladder.
    page.goto(f"{hosted.url}/bots")
    page.get_by_text("Submit a bot").wait_for()
    settled(page)
    if not page.locator("[data-testid='stFileUploaderDropzone']").is_visible():
        page.get_by_text("Submit a bot").click()  # open the expander (a click closes it)
    upload_then_submit(page, f"{BOT}.zip", author_bot_zip(), STEP_TIMEOUT_S * 1000)
    page.get_by_text(f"Stored {BOT}@1").wait_for(timeout=STEP_TIMEOUT_S * 1000)
    result.timings["sign-up to stored bot"] = time.monotonic() - signed_up
    shot("2-stored")

    # 3. Its first ladder game, played by the following runner with nobody asking.
    _until("the bot's first ladder game", hosted, lambda: _first_ladder_game(hosted))
    result.timings["sign-up to first ladder game"] = time.monotonic() - signed_up
    _stop_ladder(hosted)

    # 4. A test match against builtin:greedy, played by the queue runner.
    page.goto(f"{hosted.url}/test_match")
    page.get_by_role("button", name="Queue the test match").wait_for()
    settled(page)
    requested = time.monotonic()
    page.get_by_role("button", name="Queue the test match").click()
    page.get_by_text("Queued test match #1.").wait_for()
    _until("the test match to be played", hosted, lambda: _test_match_status(hosted) == "played")
    page.get_by_role("button", name="Replays of test match #1").click(timeout=STEP_TIMEOUT_S * 1000)
    page.get_by_role("heading", name="Replays").wait_for()
    page.get_by_text(f"{queue.tournament_name(1)} game #0").first.wait_for()
    result.timings["test match request to its replay"] = time.monotonic() - requested
    shot("3-test-match-replay")

    # 5. My bots: the version entered the ladder; one game's own logs; its record.
    sidebar.get_by_role("link", name="My bots").click()
    page.get_by_role("heading", name="My bots").wait_for()
    settled(page)
    # The versions' table is drawn on a canvas; its cells are in the page, hidden.
    state = page.locator("[role='gridcell']", has_text=f"entered in {LADDER}").first
    state.wait_for(state="attached")
    result.my_bots_text = f"{main.inner_text()}\n{state.text_content()}"
    # The page shows the newest game: the test match's (the ladder stopped at step 4). A
    # ladder game whose match is still being played would offer no record to download: it
    # holds cards still to be dealt (docs/security.md, section 10).
    with page.expect_download(timeout=STEP_TIMEOUT_S * 1000) as caught:
        page.get_by_role("button", name="Download this game's record (JSON)").click()
    result.downloaded = json.loads(Path(caught.value.path()).read_text(encoding="utf-8"))
    shot("4-my-bots")
    return result
