"""What the Play page's tests share: an arena served by ``arena dashboard`` with a logged-in
person, the hidden-information check over the seat views the page receives, and the
helpers that drive the table in the browser."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from arena import storage
from arena.accounts import admin
from arena.storage.database import open_database
from arena.tournament.house import house_version
from tests.dashboard.helpers import served_dashboard, settled
from tests.migrated_sqlite import migrated_sqlite_url

SEAT_FORMAT = "arena952.seat/1"
DECISION_FORMAT = "arena952.decision/1"
TABLE = ".a952play"


@dataclass
class Arena:
    url: str
    database: str
    password: str
    data: Path
    engine: Engine
    """Open for the arena's life: a test reads its game at every decision, and opening an
    engine (with its migration check) each time cost more than the read."""


@contextmanager
def served_arena(folder: Path, decision_seconds: int) -> Iterator[Arena]:
    """A fresh arena with participant ``alice`` and the house bots ``builtin:random`` and
    ``builtin:greedy`` stored,
    served by ``arena dashboard`` with *decision_seconds* per decision of a person."""
    database = migrated_sqlite_url(folder / "arena.db")
    engine = open_database(database)
    password = admin.add_user(
        engine, storage.actor(engine), "alice", "participant", must_change_password=False
    )
    for house in ("builtin:random", "builtin:greedy"):
        house_version(engine, house, folder / "data")
    saved = os.environ.get("ARENA_PLAY_DECISION_SECONDS")
    os.environ["ARENA_PLAY_DECISION_SECONDS"] = str(decision_seconds)
    try:
        with served_dashboard(database, folder / "data", folder / "dashboard.log") as url:
            yield Arena(url, database, password, folder / "data", engine)
    finally:
        engine.dispose()
        if saved is None:
            os.environ.pop("ARENA_PLAY_DECISION_SECONDS", None)
        else:
            os.environ["ARENA_PLAY_DECISION_SECONDS"] = saved


def log_in_and_sit(page: Any, arena: Arena, seat: int, house: str) -> None:
    """Log in as alice on the Play page and take *seat* against builtin:random twice, with
    *house* to play her cards afterwards (or ``nobody``)."""
    page.goto(f"{arena.url}/play")
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("textbox", name="User name").fill("alice")
    sidebar.get_by_role("textbox", name="Password").fill(arena.password)
    sidebar.get_by_role("button", name="Log in").click()
    page.get_by_text("Logged in as alice (participant)").wait_for()
    settled(page)
    for label in ("First opponent", "Second opponent"):
        page.get_by_role("combobox", name=label, exact=True).click()
        page.get_by_role("option", name="builtin:random", exact=True).click()
    page.get_by_role("combobox", name="Your seat", exact=True).click()
    page.get_by_role("option", name=str(seat), exact=True).click()
    duplicate = "Afterwards, a house bot plays your cards in your seat (duplicate)"
    page.get_by_role("combobox", name=duplicate, exact=True).click()
    page.get_by_role("option", name=house, exact=True).click()
    page.get_by_role("button", name="Take the seat").click()


# ------------------------------------------------------------ hidden information


def seat_views(frames: list[bytes | str], kind: str = SEAT_FORMAT) -> list[dict[str, Any]]:
    """Every JSON object of format *kind* (the seat's views, or with ``DECISION_FORMAT`` the
    decisions asked) inside the websocket frames the page received."""
    found: list[dict[str, Any]] = []
    decoder = json.JSONDecoder()
    for frame in frames:
        text = frame.decode("utf-8", "replace") if isinstance(frame, bytes) else frame
        # Both views and decisions are dicts whose first key is their format.
        for hit in re.finditer(r'\{"format":\s*"' + re.escape(kind) + '"', text):
            try:
                value, _ = decoder.raw_decode(text, hit.start())
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict) and value.get("format") == kind:
                found.append(value)
    return found


@dataclass(frozen=True)
class SeatSecrets:
    """Per hand of a stored record: the cards one seat may ever hold or see privately, and
    the cards played in that hand (public once played)."""

    private: dict[int, set[str]] = field(default_factory=dict)
    played: dict[int, set[str]] = field(default_factory=dict)


def seat_secrets(record: dict[str, Any], seat: int) -> SeatSecrets:
    secrets = SeatSecrets()
    for hand in record["hands"]:
        number = hand["number"]
        mine = set(hand["deal"][seat])
        for leg in hand.get("exchange") or []:
            if seat in (leg["giver"], leg["receiver"]):
                mine |= set(leg["given"]) | set(leg["returned"])
        for show in hand.get("shown") or []:
            mine |= set(show.get("cards") or [])
        if hand["dealer"] == seat:
            mine |= set(hand["kitty"]) | set(hand.get("discards") or [])
        secrets.private[number] = mine
        secrets.played[number] = {c for trick in hand["tricks"] for c in trick["cards"]}
    return secrets


def _cards_outside_tricks(view: dict[str, Any]) -> set[str]:
    cards = set(view["hand"]) | set(view.get("kitty") or []) | set(view.get("discards") or [])
    for leg in view["exchange"]:
        cards |= set(leg.get("given") or []) | set(leg.get("returned") or [])
    return cards


def leaks(view: dict[str, Any], secrets: SeatSecrets) -> list[str]:
    """The cards *view* shows that its seat may not know: a card of its own area that is not
    its own, or a trick card not played in that hand."""
    number = view["hand_number"]
    wrong = sorted(_cards_outside_tricks(view) - secrets.private[number])
    tricks = list(view["tricks"]) + ([view["current_trick"]] if view["current_trick"] else [])
    wrong += sorted({c for t in tricks for c in t["cards"]} - secrets.played[number])
    return wrong


def decision_leaks(pending: dict[str, Any], secrets: SeatSecrets) -> list[str]:
    """The cards a decision offers that its seat may not hold in that hand."""
    return sorted(set(pending["cards"]) - secrets.private[pending["hand_number"]])


def dom_cards(page: Any) -> tuple[int, list[str], list[str]]:
    """The hand number the table shows, the cards drawn in the person's own area, and every
    other card drawn on the table (``data-card``)."""
    hand = int(page.locator(TABLE).get_attribute("data-hand") or 0)
    every = "els => els.map(e => e.dataset.card)"
    mine = page.locator(f"{TABLE} .mine [data-card]").evaluate_all(every)
    allcards = page.locator(f"{TABLE} [data-card]").evaluate_all(every)
    others = list(allcards)
    for card in mine:
        others.remove(card)
    return hand, list(mine), others


def dom_leaks(hand: int, mine: list[str], others: list[str], secrets: SeatSecrets) -> list[str]:
    """Cards drawn on the person's table that their seat may not see in hand *hand*: in
    their own area, cards not theirs; elsewhere (the trick), cards not played that hand."""
    return sorted((set(mine) - secrets.private[hand]) | (set(others) - secrets.played[hand]))


def wait_until(check: Any, timeout_s: float, what: str) -> Any:
    """Poll *check* until it returns something truthy; that value."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
