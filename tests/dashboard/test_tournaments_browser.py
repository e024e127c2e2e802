"""The Tournaments page in a real browser (``arena dashboard`` in headless Chromium): its
list follows a tournament as it changes, like the followed tournament below it.

The list used to be drawn once per page run, above a section that refreshes itself every
2 s: a tournament started and finished on the page stayed ``created 0/6`` in the list
above its own ``finished 6/6``. Here the tournament changes under the open page (as its
runner would change it), and the list's row must follow without a reload.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena import storage
from tests.dashboard.helpers import served_dashboard
from tests.dashboard.seed import Seeded, store_next_game

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(seeded: Seeded, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``arena dashboard`` on the seeded database, stopped with Ctrl-C at the end."""
    data = tmp_path_factory.mktemp("data")
    with served_dashboard(seeded.url, data, data / "dashboard.log") as url:
        yield url


def _row(page: Any, name: str) -> Any:
    """The list's row of tournament *name* (the table's accessible grid)."""
    cell = page.locator("[role='gridcell']", has_text=re.compile(rf"^{re.escape(name)}$"))
    return page.locator("[role='row']", has=cell)


def _wait_for_cell(row: Any, text: str, timeout: int = 120_000) -> None:
    """Wait until *row* has a cell reading exactly *text*. The grid draws on a canvas;
    its cells are in the page for assistive technology only, hidden: attached is enough."""
    cell = row.locator("[role='gridcell']", has_text=re.compile(rf"^{re.escape(text)}$"))
    cell.first.wait_for(state="attached", timeout=timeout)


def test_the_list_follows_a_tournament_without_a_reload(
    page: Any, server: str, seeded: Seeded
) -> None:
    page.goto(f"{server}/tournaments?tournament=fresh")
    page.get_by_role("heading", name="Tournaments").wait_for()
    row = _row(page, "fresh")
    # Control: the row is found, and says what is stored now.
    _wait_for_cell(row, "created")
    _wait_for_cell(row, "0 / 24")
    page.evaluate("window.__same_page = true")  # gone if the page were reloaded

    store_next_game(seeded, seeded.created_id)
    storage.set_status(seeded.engine, seeded.created_id, "finished")

    _wait_for_cell(row, "finished")
    _wait_for_cell(row, "1 / 24")
    page.get_by_text("Finished: see").wait_for(timeout=20_000)  # the followed section too
    assert page.evaluate("window.__same_page === true")
    assert row.locator("[role='gridcell']", has_text=re.compile(r"^created$")).count() == 0
