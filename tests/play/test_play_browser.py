"""The Play page in a real browser (``arena dashboard``, headless Debian chromium): a person
plays a whole game against two ``builtin:random`` house bots (real sandboxed processes that
play any legal card), the page offers only legal cards, a forged illegal click is refused,
the person's page never holds another seat's cards or the unseen kitty (DOM and websocket
traffic, each check with a control that plants a card), and a tab closed mid-game ends the
game by the person's timeout with no bot process left. Screenshots go to
``test-artifacts/play/``. The click-to-reply times of the whole game are printed (and
written to ``test-artifacts/play/latency.json`` for ``benchmarks/play_latency.py``)."""

from __future__ import annotations

import contextlib
import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.storage import play_games
from arena.storage.models import Game
from arena.storage.users import find_user
from tests.dashboard.helpers import settled
from tests.play.support import (
    DECISION_FORMAT,
    TABLE,
    Arena,
    decision_leaks,
    dom_cards,
    dom_leaks,
    leaks,
    log_in_and_sit,
    seat_secrets,
    seat_views,
    served_arena,
    wait_until,
)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "play"
SEAT = 1
GAME_TIMEOUT_S = 900.0
STEP_TIMEOUT_S = 120.0


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """(Asked for before the browser: storing the house bot runs its own event loop.)"""
    with served_arena(tmp_path_factory.mktemp("play-browser"), decision_seconds=300) as served:
        yield served


@pytest.fixture(scope="module")
def hasty_arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """An arena whose people have 4 seconds a decision."""
    with served_arena(tmp_path_factory.mktemp("play-hasty"), decision_seconds=4) as served:
        yield served


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _record_frames(page: Any) -> list[bytes | str]:
    frames: list[bytes | str] = []

    def watch(socket: Any) -> None:
        socket.on("framereceived", lambda payload: frames.append(payload))  # noqa: PLW0108  (Playwright tags its handler: no builtin)

    page.on("websocket", watch)
    return frames


def _the_game(arena: Arena) -> Any:
    alice = find_user(arena.engine, "alice")
    assert alice is not None and alice.id is not None
    games = play_games.list_play_games(arena.engine, alice.id)
    return games[0] if games else None


def _asked(page: Any, done: set[str]) -> str | None:
    """The number of the decision the table asks now ("end" once the game is over)."""
    if page.get_by_text("Open the replay of game").count():
        return "end"
    number = page.locator(TABLE).get_attribute("data-no") if page.locator(TABLE).count() else ""
    return number if number and number not in done else None


RANKS = "23456789TJQKA"


def _strength(card: str, trump: str | None) -> tuple[bool, int]:
    return card[1] == trump, RANKS.index(card[0])


def _decide(page: Any, kind: str, pending: dict[str, Any], view: dict[str, Any]) -> None:
    """Answer like a person who plays to win: the strongest legal card (a trump first,
    then the highest rank), the trump suit they hold most of, their weakest cards to
    discard or give. Against two random bots they take more tricks and reach the target
    sooner than a person picking at random, whose scores made a random walk to it (271 and
    375 decisions in two runs), each decision waiting about the page's half-second poll;
    the length still varies with the secret deal."""
    trump = view.get("trump")
    if kind == "play":
        best = max(pending["cards"], key=lambda card: _strength(card, trump))
        page.locator(f"{TABLE} button.pick[data-card='{best}']").click()
    elif kind == "trump":
        suits = [card[1] for card in view["hand"]]
        options = [t for t in pending["trump_options"] if t != "NT"] or ["NT"]
        best = max(options, key=suits.count)
        page.locator(f"{TABLE} button.choice[data-trump='{best}']").click()
    else:
        counts = (
            [pending["discard_count"]]
            if kind == "discard"
            else [count for _seat, count in pending["give_legs"]]
        )
        unchosen = f"{TABLE} button.pick:not(.chosen)"
        for count in counts:
            for _ in range(count):
                # A chosen card stays a button (to take it back): pick an unchosen one.
                cards = page.locator(unchosen).evaluate_all("els => els.map(e => e.dataset.card)")
                worst = min(cards, key=lambda card: _strength(card, trump))
                page.locator(f"{unchosen}[data-card='{worst}']").click()
            page.locator(f"{TABLE} button.choice").click()


def test_a_person_plays_a_whole_game_against_two_house_bots(  # noqa: PLR0915  (one story)
    arena: Arena, hasty_arena: Arena, page: Any
) -> None:
    """(*hasty_arena* is asked for here, before the module's browser starts: storing its
    house bot runs an event loop, which Playwright's would refuse.)"""
    frames = _record_frames(page)
    log_in_and_sit(page, arena, seat=SEAT, house="builtin:greedy")
    done: set[str] = set()
    dom_seen: list[tuple[int, list[str], list[str]]] = []
    latencies: list[float] = []
    forged = False
    kinds: set[str] = set()
    deadline = time.monotonic() + GAME_TIMEOUT_S
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        number = wait_until(lambda: _asked(page, done), STEP_TIMEOUT_S, "a decision or the end")
        if number == "end":
            break
        game = _the_game(arena)
        pending = json.loads(game.pending)
        assert str(pending["no"]) == number
        kind = page.locator(TABLE).get_attribute("data-kind")
        assert kind == pending["kind"]
        clickable = page.locator(f"{TABLE} button.pick").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
        if kind == "play":
            # The page offers exactly the legal cards the referee asked with.
            assert sorted(clickable) == sorted(pending["cards"])
        else:
            assert set(clickable) <= set(pending["cards"])
        dom_seen.append(dom_cards(page))
        illegal = sorted(set(json.loads(game.view)["hand"]) - set(pending["cards"]))
        if kind == "play" and illegal and not forged:
            # Control: a forged click on an illegal card goes through the page's message...
            page.locator(f"{TABLE} button.pick").first.evaluate(
                f"el => {{ el.dataset.card = {json.dumps(illegal[0])}; }}"
            )
            page.locator(f"{TABLE} button.pick").first.click()
            page.get_by_text(f"Refused: {illegal[0]} is not a card you may play now.").wait_for()
            _shot(page, "refused")
            # ... and is refused: nothing was written, the same decision is still asked.
            after = _the_game(arena)
            assert after.answer_no < pending["no"]
            assert page.locator(TABLE).get_attribute("data-no") == number
            forged = True
        clicked = time.monotonic()
        _decide(page, kind, pending, json.loads(game.view))
        done.add(number)
        # The bots have replied once the table asks the next decision (or the game ended).
        wait_until(lambda: _asked(page, done), STEP_TIMEOUT_S, "the bots' replies")
        latencies.append(time.monotonic() - clicked)
        kinds.add(kind)
        if len(done) == 3:
            _shot(page, "playing")
    _shot(page, "finished")
    assert forged, "no turn had an illegal card to forge a click on"

    game = _the_game(arena)
    assert game.status == "finished"
    record = json.loads(game.record)
    assert record["format"] == "arena952.game/1"
    assert record["players"][SEAT] == "human:alice"
    assert all(
        p.startswith("builtin_random@") for i, p in enumerate(record["players"]) if i != SEAT
    )
    assert [f for f in record["faults"] if f["seat"] == SEAT] == []
    assert record["result"]["scores"] == json.loads(game.view)["result"]["scores"]
    # Unranked: the game is in no tournament, so in no standings.
    from sqlmodel import Session, select  # noqa: PLC0415

    with Session(arena.engine) as session:
        assert session.exec(select(Game)).all() == []

    # The person's page held nothing their seat may not see: the DOM at every turn ...
    secrets = seat_secrets(record, SEAT)
    assert dom_seen
    for hand, mine, others in dom_seen:
        assert dom_leaks(hand, mine, others, secrets) == []
    # ... and every seat view that came over the websocket.
    views = seat_views(frames)
    assert len(views) >= len(done)
    assert all(v["seat"] == SEAT for v in views)
    for view in views:
        assert leaks(view, secrets) == []
    # ... and every decision asked: its options are the seat's own cards.
    decisions = seat_views(frames, DECISION_FORMAT)
    assert len(decisions) >= len(done)
    for pending in decisions:
        assert decision_leaks(pending, secrets) == []
    # Controls: a planted card (another seat's, or the kitty) is caught by both checks.
    first = views[0]
    hand = record["hands"][first["hand_number"] - 1]
    other = next(
        c for c in hand["deal"][(SEAT + 1) % 3] if c not in secrets.private[hand["number"]]
    )
    assert leaks(dict(first, hand=[*first["hand"], other]), secrets) == [other]
    planted_decision = dict(decisions[0], cards=[*decisions[0]["cards"], other])
    assert other in decision_leaks(
        dict(planted_decision, hand_number=first["hand_number"]), secrets
    )
    kitty = next(h for h in record["hands"] if h["dealer"] != SEAT)
    planted = kitty["kitty"][0]
    page.locator(f"{TABLE} .mine").evaluate(
        f"el => {{ const s = document.createElement('span'); s.dataset.card = {json.dumps(planted)};"
        " el.appendChild(s); }"
    )
    _hand, mine, others = dom_cards(page)
    assert planted in dom_leaks(kitty["number"], mine, others, secrets)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "latency.json").write_text(json.dumps({"seconds": latencies}))
    print(
        f"\nclick to the bots' replies, {len(latencies)} decisions: median "
        f"{statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms; "
        f"decision kinds answered: {', '.join(sorted(kinds))}"
    )

    # Duplicate for people: builtin:greedy then played the same cards in the same seat.
    page.get_by_text("Duplicate:").wait_for(timeout=STEP_TIMEOUT_S * 1000)
    _shot(page, "duplicate")
    house = _the_game(arena)
    theirs = json.loads(house.house_record)
    assert theirs["players"][SEAT].startswith("builtin_greedy@")
    assert [p for i, p in enumerate(theirs["players"]) if i != SEAT] == [
        p for i, p in enumerate(record["players"]) if i != SEAT
    ]
    assert theirs["hands"][0]["deal"] == record["hands"][0]["deal"]
    assert theirs["hands"][0]["kitty"] == record["hands"][0]["kitty"]
    score = f"scored {theirs['result']['scores'][SEAT]:+d}"
    assert score in page.locator("p", has_text="Duplicate:").inner_text()

    # The replay opens from the link.
    page.get_by_text(f"Open the replay of game #{game.id}").click()
    page.get_by_text(f"Replay of game #{game.id}").wait_for()
    settled(page)
    _shot(page, "replay")


def _bot_processes(runner: psutil.Process, arena: Arena) -> list[psutil.Process]:
    """The live processes below *runner*, and any running from a stored bot's files."""
    found: dict[int, psutil.Process] = {}
    with contextlib.suppress(psutil.NoSuchProcess):
        found.update((p.pid, p) for p in runner.children(recursive=True) if _alive(p))
    stored = str(arena.data / "bots")
    for process in psutil.process_iter(["cmdline"]):
        try:
            if any(stored in part for part in process.info["cmdline"] or []) and _alive(process):
                found[process.pid] = process
        except psutil.Error:
            continue
    return list(found.values())


def test_a_tab_closed_mid_game_ends_it_by_the_persons_timeout(
    hasty_arena: Arena, browser: Any
) -> None:
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = context.new_page()
    page.set_default_timeout(60_000)
    log_in_and_sit(page, hasty_arena, seat=0, house="nobody")
    wait_until(lambda: _asked(page, set()), STEP_TIMEOUT_S, "the first decision")
    game = _the_game(hasty_arena)
    assert game.status == "playing" and game.runner_pid is not None
    runner = psutil.Process(game.runner_pid)
    # The bots' processes: the runner's descendants (sandbox helpers and the bots), and
    # whatever runs from the stored bot's directory.
    bots = wait_until(lambda: _bot_processes(runner, hasty_arena), 60, "the bots' processes")
    context.close()  # the person leaves: the tab is gone

    ended = wait_until(
        lambda: (g := _the_game(hasty_arena)).status != "playing" and g, 300, "the game's end"
    )
    assert ended.status == "finished"
    record = json.loads(ended.record)
    mine = [f for f in record["faults"] if f["seat"] == 0]
    assert [f["kind"] for f in mine] == ["timeout"]
    assert "the person left the table or ran out of time" in mine[0]["detail"]
    assert "timeout" in ended.message
    assert record["result"]["winners"]  # the autopilot played the seat to the end
    wait_until(lambda: not _alive(runner), 60, "the runner's exit")
    wait_until(lambda: not [p for p in bots if _alive(p)], 60, "no bot process left")
    assert _bot_processes(runner, hasty_arena) == []


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
