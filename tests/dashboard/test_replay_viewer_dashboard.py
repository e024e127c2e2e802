"""The Replays page's viewer in the real dashboard (``arena dashboard``) in Chromium, on a
running tournament with secret deals: a game whose deal group is complete is replayed in
the browser, every seat view of an autoplayed hand showing only that seat's cards, and a
``?step=`` link opens its step; a game whose group is not complete sends no card at all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from arena import storage
from arena.replay.frames import replay_frames, whole_frames
from arena.replay.steps import build_replay
from arena.storage.models import TABLE_DEALS
from tests.dashboard.helpers import served_dashboard
from tests.dashboard.test_held_back_deals import FAULTED, Cup, _make_cup
from tests.dashboard.viewer_checks import FAST_AUTOPLAY, autoplay_hand, hand_one_last_step, leaks

COMPLETE = 2
"""A game of the cup whose deal group (table 0's six seatings) is all stored."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cup, str]]:
    folder = tmp_path_factory.mktemp("cup")
    cup = _make_cup(folder, TABLE_DEALS, None)  # running, secret deals
    try:
        with served_dashboard(str(cup.engine.url), folder / "data", folder / "log") as url:
            yield cup, url
    finally:
        cup.engine.dispose()


def _hands(cup: Cup, index: int) -> list[str]:
    """Each seat's whole first hand as the viewer's frames write it (32 characters that
    cannot appear by chance)."""
    record = storage.game_record(cup.engine, cup.game_ids[index])
    first = whole_frames(replay_frames(build_replay(record))["views"]["a"])[0]
    return [first[f"p{seat}"][0] for seat in range(3)]


def _viewer(page: Any) -> Any:
    """The viewer's frame on the Replays page, once it has drawn its cards."""
    page.wait_for_selector("iframe")
    frame = page.locator("iframe").first.element_handle().content_frame()
    frame.wait_for_selector("[data-card]")
    return frame


def _everything(page: Any) -> str:
    """The page's HTML and every frame's."""
    return "\n".join(frame.content() for frame in page.frames)


def test_a_complete_group_is_replayed_in_the_browser(page: Any, served: tuple[Cup, str]) -> None:
    cup, url = served
    page.goto(f"{url}/replays?tournament=cup&game={cup.game_ids[COMPLETE]}")
    viewer = _viewer(page)
    viewer.evaluate(FAST_AUTOPLAY)  # in the viewer's frame only: not Streamlit's timers
    record = storage.game_record(cup.engine, cup.game_ids[COMPLETE])
    replay = build_replay(record)
    last = hand_one_last_step(replay)
    for view in ("a", "0", "1", "2"):
        drawn = autoplay_hand(viewer, view, last)
        assert {d["step"] for d in drawn if d["view"] == view} >= set(range(last + 1))
        assert leaks(drawn, replay) == []
    assert all(hand in _everything(page) for hand in _hands(cup, COMPLETE))  # the control


def test_a_step_link_opens_that_step_and_the_viewer_keeps_it(
    page: Any, served: tuple[Cup, str]
) -> None:
    cup, url = served
    page.goto(f"{url}/replays?tournament=cup&game={cup.game_ids[COMPLETE]}&step=9")
    viewer = _viewer(page)
    assert viewer.evaluate("document.body.dataset.step") == "9"
    viewer.click("#next")
    page.wait_for_url("**step=10**")


def test_a_held_back_game_sends_no_card(page: Any, served: tuple[Cup, str]) -> None:
    cup, url = served
    page.goto(f"{url}/replays?tournament=cup&game={cup.game_ids[FAULTED]}")
    page.get_by_text("(3 of 6 stored)").wait_for()
    page.wait_for_timeout(1500)  # a rerun that would draw a viewer has had its time
    assert page.locator("iframe").count() == 0
    for frame in page.frames:
        assert frame.locator("[data-card]").count() == 0
        assert frame.locator("#frames").count() == 0
    everything = _everything(page)
    assert not [hand for hand in _hands(cup, FAULTED) if hand in everything]
