"""A real tournament with a slow bot runs while Chromium follows one of its games on the
Live page: the page shows cards as they are played, and no card that is not public yet
(a hand, the kitty, the discards, an exchange) reaches the browser, neither in the page's
text nor in any websocket frame. The control feeds the same check a hand card rendered as
the page renders cards, and a card id in plain text: both are caught."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from arena.cli import main
from arena.game.cards import CARDS
from arena.storage import live, open_database
from tests.dashboard.helpers import served_dashboard
from tests.live.slow_bots import slow_bot
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SUITS = {"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C"}
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA])([SHDC\u2660\u2665\u2666\u2663])(?![A-Za-z0-9])")


def cards_in_text(text: str) -> set[str]:
    """Every card in *text*, as an id or as the page shows it (rank and suit symbol)."""
    return {rank + SUITS.get(suit, suit) for rank, suit in CARD.findall(text)}


def not_yet_public(texts: list[str], played: set[str]) -> set[str]:
    """The cards *texts* name that are not among the *played* ones."""
    return set().union(*(cards_in_text(t) for t in texts)) - played if texts else set()


def _cli(*args: str) -> int:
    """``arena ...`` in a thread of its own: Playwright's loop runs in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(main, list(args)).result()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[str, Path, Engine]]:
    """A tournament of the slow bot and two sample bots being run by a real runner."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    data = tmp_path / "data"
    bots = [slow_bot(tmp_path), ROOT / "sample_bots" / "random_bot",
            ROOT / "sample_bots" / "greedy_bot"]  # fmt: skip
    for bot in bots:
        assert _cli("bot", "submit", str(bot), "--db", url, "--data", str(data)) == 0
    create = ["tournament", "create", "lv", "--bots", "slow_bot,random_bot,greedy_bot",
              "--boards", "1", "--seed", "4", "--db", url, "--data", str(data)]  # fmt: skip
    assert _cli(*create) == 0
    runner = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "run", "lv", "--parallel", "1",
         "--db", url, "--data", str(data)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "ARENA_LIVE": "1"},
    )  # fmt: skip
    try:
        yield url, data, open_database(url)
    finally:
        os.killpg(runner.pid, signal.SIGKILL)
        runner.wait()


def _live_view(engine: Engine) -> tuple[int, set[str]] | None:
    """The live game's hand number and the cards played so far in that hand, from the
    table (``None``: none is live)."""
    rows = live.live_rows(engine)
    if not rows:
        return None
    state = rows[0].state
    tricks = [*state["tricks"], *([state["current_trick"]] if state["current_trick"] else [])]
    return int(state["hand_number"]), {c for t in tricks for c in t["cards"]}


HAND_HEADING = re.compile(r"Hand (\d+)(?:</b>)?\s*(?:\u00b7|&middot;)")
"""The live page's heading of the hand it shows ("Hand 3 · dealer ..."), as text or HTML."""


class Watch:
    """What the live table said, read every 50 ms in a thread.

    A text the browser had at time *t* that shows hand *h* may name only cards played in
    hand *h* in a view stored by *t* (plus :data:`SLACK_S`: this thread may read a view a
    moment after the page did). Keyed by the hand, not by a time window: under heavy load
    the page lags the table by several seconds (its poll and cache), and a window of
    seconds then took the cards of a hand the page still showed for leaks. A text that
    shows no hand is judged by the window :data:`WINDOW_S` before *t*.
    """

    WINDOW_S = 4.0
    SLACK_S = 2.0

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.views: list[tuple[float, int, set[str]]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            view = _live_view(self.engine)
            if view is not None:
                self.views.append((time.monotonic(), *view))
            time.sleep(0.05)

    def allowed(self, at: float, hand: int | None = None) -> set[str]:
        """The cards public by *at* in *hand*, or, with no hand, at some moment of the
        window before *at*."""
        if hand is None:
            seen = [p for t, _, p in self.views if at - self.WINDOW_S <= t <= at]
        else:
            seen = [p for t, h, p in self.views if h == hand and t <= at + self.SLACK_S]
        return set().union(*seen) if seen else set()

    def leaks(self, texts: list[tuple[float, str]]) -> set[str]:
        """The cards of *texts* (each with when the browser had it) not public then."""
        found: set[str] = set()
        for at, text in texts:
            heading = HAND_HEADING.search(text)
            hand = int(heading.group(1)) if heading else None
            found |= cards_in_text(text) - self.allowed(at, hand)
        return found


FOLLOW_TIMEOUT_S = 60.0
"""The most the game is followed; it stops sooner once :func:`_followed_enough`."""
ENOUGH_CHANGES = 3
ENOUGH_TEXTS = 10


def _followed_enough(
    changes: int, frames: list[tuple[float, str]], shown: list[tuple[float, str]]
) -> bool:
    """Whether the game was followed long enough to judge, with a margin over what the
    test asserts: :data:`ENOUGH_CHANGES` new cards shown, and :data:`ENOUGH_TEXTS` frames
    and page texts naming cards (the page polls every 0.5 s, so about 5 s of play at
    least); following longer would only wait."""
    return (
        changes >= ENOUGH_CHANGES
        and sum(bool(cards_in_text(t)) for _, t in frames) >= ENOUGH_TEXTS
        and sum(bool(cards_in_text(t)) for _, t in shown) >= ENOUGH_TEXTS
    )


def test_a_live_game_is_followed_and_shows_no_private_card(
    page: Any, running: tuple[str, Path, Engine], tmp_path: Path
) -> None:
    url, data, engine = running
    frames: list[tuple[float, str]] = []
    """Every websocket frame the browser received, with when."""
    shown: list[tuple[float, str]] = []
    """The followed game's text on the page, with when."""

    def on_socket(socket: Any) -> None:
        def keep(payload: Any) -> None:
            raw = payload if isinstance(payload, bytes) else str(payload).encode()
            frames.append((time.monotonic(), raw.decode("utf-8", errors="replace")))

        socket.on("framereceived", keep)

    page.on("websocket", on_socket)
    watch = Watch(engine)
    try:
        with served_dashboard(url, data, tmp_path / "dashboard.log") as server:
            deadline = time.monotonic() + 120
            while not watch.views:
                assert time.monotonic() < deadline, "no game went live"
                time.sleep(0.1)
            page.goto(f"{server}/live")
            game = page.locator(".live-game")
            game.wait_for()
            first = game.inner_text()
            changes = 0
            end = time.monotonic() + FOLLOW_TIMEOUT_S
            while time.monotonic() < end and not _followed_enough(changes, frames, shown):
                page.wait_for_timeout(500)  # lets Playwright deliver the frames meanwhile
                text = game.inner_text() if game.count() else ""
                shown.append((time.monotonic(), text))
                if cards_in_text(text) - cards_in_text(first):
                    changes += 1
                first = text or first
    finally:
        watch.stop.set()
        watch.thread.join()
    assert changes >= 1, "the followed game never showed a new card"
    assert sum(bool(cards_in_text(t)) for _, t in frames) >= 5, "too few frames to judge"
    assert sum(bool(cards_in_text(t)) for _, t in shown) >= 5, "too few page texts to judge"
    texts = frames + shown
    assert watch.leaks(texts) == set(), "cards not yet public reached the browser"
    # Control: the same check catches a card not played yet, as the page would draw it
    # or as a plain id.
    at = texts[-1][0]
    hidden = sorted({str(c) for c in CARDS} - watch.allowed(at))[0]
    symbol = {v: k for k, v in SUITS.items()}[hidden[1]]
    drawn = f'<span style="color:inherit">{hidden[0]}{symbol}</span>'
    assert watch.leaks([*texts, (at, drawn)]) == {hidden}
    assert watch.leaks([*texts, (at, f"hand: {hidden}")]) == {hidden}
    # ... and in a text showing a hand, a card not played in that hand by then.
    hand = watch.views[-1][1]
    unplayed = sorted({str(c) for c in CARDS} - watch.allowed(at, hand))[0]
    heading = f"<p><b>Hand {hand}</b> &middot; dealer 0</p>"
    assert watch.leaks([*texts, (at, f"{heading} hand: {unplayed}")]) == {unplayed}
