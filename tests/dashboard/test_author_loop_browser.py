"""The bot author's whole loop in a real browser (tests/dashboard/author_loop.py): sign up
with an invitation, upload, enter the open ladder by itself and play there, a test match
against ``builtin:greedy`` and its replay, the bot's own logs for one game and its record.
Screenshots go to ``test-artifacts/dashboard/``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from arena import storage
from arena.storage.database import open_database
from tests.dashboard.author_loop import (
    AUTHOR,
    BOT,
    LADDER,
    WAITING_HOUSE_BOTS,
    Hosted,
    hosted_arena,
    run_author_loop,
)
from tests.dashboard.test_browser import ARTIFACTS


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosted]:
    """(Asked for before the browser: it submits the house bots in its own event loop.)
    Two house bots, so the ladder plays only once the author's bot has entered it."""
    with hosted_arena(tmp_path_factory.mktemp("author-loop"), WAITING_HOUSE_BOTS) as arena:
        yield arena


def _shot(page: Any) -> Any:
    def shot(name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"author-loop-{name}.png"), full_page=True)

    return shot


def test_a_new_author_joins_uploads_plays_the_ladder_tests_and_reads_their_logs(
    hosted: Hosted, page: Any
) -> None:
    result = run_author_loop(page, hosted, _shot(page))
    # The version entered the open ladder by itself, which no organiser touched.
    assert LADDER in result.my_bots_text and "entered" in result.my_bots_text
    engine = open_database(hosted.database)
    try:
        owner = storage.bot_owner(engine, BOT)
        entrants = storage.ladder_entrants(
            engine, storage.row_id(storage.get_tournament(engine, LADDER))
        )
    finally:
        engine.dispose()
    assert owner == AUTHOR
    assert [e.label for e in entrants if e.active][-1] == f"{BOT}@1"
    # The downloaded record is a real game of the bot's, with its own seat's log only.
    record = result.downloaded
    assert record["format"] == "arena952.game/1" and record["hands"]
    seats = [i for i, player in enumerate(record["players"]) if player.startswith(f"{BOT}@")]
    assert seats
    for seat, log in enumerate(record["bot_logs"]):
        assert log.get("hidden", False) is (seat not in seats)
    assert set(result.timings) == {
        "sign-up to stored bot",
        "sign-up to first ladder game",
        "test match request to its replay",
    }
