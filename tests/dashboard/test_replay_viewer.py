"""The replay viewer (``arena.viewer``) in headless Chromium, from a file: a whole hand
autoplayed in every view shows no card a seat may not see (and a leaking frame is
caught), the page ``arena replay --html`` writes works offline, stepping and Back change no more than the step, and
hostile bot names are text."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import arena.viewer
from arena.cli import cli
from arena.replay.frames import frames_json, replay_frames, whole_frames
from arena.replay.steps import Replay, build_replay
from arena.viewer import viewer_html
from tests.dashboard.seed import Seeded
from tests.dashboard.viewer_checks import FAST_AUTOPLAY, autoplay_hand, hand_one_last_step, leaks
from tests.replay.support import HOSTILE_NAME, seeded_record


@pytest.fixture(scope="module")
def replay() -> Replay:
    return build_replay(seeded_record())


def _open(page: Any, tmp_path: Path, document: str, name: str = "game.html") -> list[str]:
    """Open *document* as a file, offline, every request refused; the requests tried.
    Autoplay steps fast (:data:`FAST_AUTOPLAY`)."""
    path = tmp_path / name
    path.write_text(document, encoding="utf-8")
    tried: list[str] = []
    page.on("request", lambda request: tried.append(request.url))
    page.context.set_offline(True)
    document_url = path.as_uri()

    def only_the_file(route: Any) -> None:
        if route.request.url == document_url:
            route.continue_()
        else:
            route.abort()

    page.route("**/*", only_the_file)
    page.goto(path.as_uri())
    page.wait_for_selector("[data-card]")
    page.evaluate(FAST_AUTOPLAY)
    return [url for url in tried if url != path.as_uri()]


@pytest.mark.parametrize("view", ["a", "0", "1", "2"])
def test_autoplaying_a_hand_shows_each_seat_only_its_cards(
    page: Any, tmp_path: Path, replay: Replay, view: str
) -> None:
    requests = _open(page, tmp_path, viewer_html(frames_json(replay), title="a game"))
    last = hand_one_last_step(replay)
    drawn = autoplay_hand(page, view, last)
    steps = {d["step"] for d in drawn if d["view"] == view}
    assert steps >= set(range(last + 1)), "every step of hand 1 was drawn"
    assert leaks(drawn, replay) == []
    if view == "a":  # the control of the check: all cards shows what the seats may not see
        assert leaks([dict(d, view="0") for d in drawn], replay)
    assert requests == []


def test_the_control_a_viewer_fed_a_leaking_frame_is_caught(
    page: Any, tmp_path: Path, replay: Replay
) -> None:
    payload = copy.deepcopy(replay_frames(replay))
    step = 3
    payload["views"]["1"][step]["p2"] = whole_frames(payload["views"]["a"])[step]["p2"]
    _open(page, tmp_path, viewer_html(json.dumps(payload), title="a leaking game"))
    found = leaks(autoplay_hand(page, "1", hand_one_last_step(replay)), replay)
    assert found and found[0][:2] == (step, "1")


def test_the_exported_file_steps_offline_and_back(
    page: Any, tmp_path: Path, seeded: Seeded
) -> None:
    out = tmp_path / "export.html"
    game_id = seeded.game_ids[3]
    written = CliRunner().invoke(
        cli, ["replay", str(game_id), "--html", str(out), "--db", seeded.url]
    )
    assert written.exit_code == 0, written.output
    replay = build_replay(seeded.records[3])
    requests = _open(page, tmp_path, out.read_text(encoding="utf-8"))
    assert page.evaluate("document.body.dataset.step") == "0"
    for expected in range(1, 13):
        page.click("#next")
        assert page.evaluate("document.body.dataset.step") == str(expected)
    page.click("#back")
    assert page.evaluate("document.body.dataset.step") == "11"
    page.click("#view-2")
    assert page.evaluate("document.body.dataset.step") == "11"  # the view changes, not the step
    assert page.locator(".badge.view").count() == 1
    page.select_option("#hand", "2")
    assert page.evaluate("document.body.dataset.step") == str(replay.hand_starts[2])
    assert requests == []
    assert page.evaluate("navigator.onLine") is False


def test_the_viewer_opens_at_its_start_step(page: Any, tmp_path: Path, replay: Replay) -> None:
    _open(page, tmp_path, viewer_html(frames_json(replay), start_step=7, title="g"))
    assert page.evaluate("document.body.dataset.step") == "7"
    _open(page, tmp_path, viewer_html(frames_json(replay), start_step=10**6, title="g"), "b.html")
    assert page.evaluate("document.body.dataset.step") == str(len(replay.steps) - 1)


def _hostile_page(page: Any, tmp_path: Path, document: str) -> dict[str, Any]:
    dialogs: list[str] = []

    def dismiss(dialog: Any) -> None:  # an alert() that ran
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    _open(page, tmp_path, document, "hostile.html")
    page.click("#view-1")
    return {
        "images": page.locator("img").count(),
        "names": page.locator(".seat .player").all_text_contents(),
        "dialogs": dialogs,
    }


def test_hostile_names_are_text(page: Any, tmp_path: Path) -> None:
    hostile = build_replay(seeded_record(names=("alpha", HOSTILE_NAME, "<b>bold</b>")))
    shown = _hostile_page(page, tmp_path, viewer_html(frames_json(hostile), title=HOSTILE_NAME))
    assert shown["images"] == 0 and shown["dialogs"] == []
    assert HOSTILE_NAME in shown["names"] and "<b>bold</b>" in shown["names"]
    assert page.title() == HOSTILE_NAME


def test_the_control_a_viewer_writing_names_as_html_is_injected(
    page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile = build_replay(seeded_record(names=("alpha", HOSTILE_NAME, "<b>bold</b>")))
    asset = arena.viewer._asset
    script = asset("viewer.js")
    assert "el.textContent = text;" in script
    unsafe = script.replace("el.textContent = text;", "el.innerHTML = text;")
    monkeypatch.setattr(
        arena.viewer, "_asset", lambda name: unsafe if name == "viewer.js" else asset(name)
    )
    shown = _hostile_page(page, tmp_path, viewer_html(frames_json(hostile), title="g"))
    assert shown["images"] > 0
