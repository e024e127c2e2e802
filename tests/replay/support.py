"""Records and checks shared by the replay viewer's tests (tests/replay, and the browser
tests in tests/dashboard/test_replay_viewer.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from arena.game.record import game_record
from arena.game.rules import PRESETS
from arena.replay.frames import PERSPECTIVES, decoded_views, frame_cards
from arena.replay.steps import Replay
from arena.simulate import make_policies, play_game

HOSTILE_NAME = "</script><img src=x onerror=alert(1)>"
"""A bot label written to break out of a script element and run code."""


def seeded_record(
    preset: str = "classic", seed: int = 1, names: tuple[str, str, str] | None = None
) -> dict[str, Any]:
    """A finished game of built-in policies (seed 1: 9 hands of the classic rules), with a
    fault and the autopilot on seat 1 from its first play."""
    policies = ["greedy", "random", "greedy"]
    state = play_game(PRESETS[preset], seed, make_policies(policies, seed))
    labels = list(names) if names is not None else [f"{n}@1" for n in policies]
    fault = {
        "seat": 1,
        "hand": 1,
        "decision": "play",
        "kind": "timeout",
        "detail": "no answer in 1000 ms",
        "autopilot": True,
    }
    return game_record(state, labels, [fault])


def seat_leaks(payload: Mapping[str, Any], replay: Replay) -> list[tuple[int, int, set[str]]]:
    """``(step, seat, cards)`` wherever a seat's frame shows a card its table view (the
    observer's) does not: empty when the frames keep every seat's secrets."""
    leaks: list[tuple[int, int, set[str]]] = []
    views = decoded_views(payload)
    for key, perspective in PERSPECTIVES:
        if perspective is None:
            continue
        for index, frame in enumerate(views[key]):
            allowed = {str(c) for c in replay.view(index, perspective).visible_cards()}
            extra = frame_cards(frame) - allowed
            if extra:
                leaks.append((index, perspective, extra))
    return leaks


def embedded(document: str, ident: str) -> Any:
    """The JSON in the viewer page's ``<script type="application/json" id=ident>``."""
    found = re.search(
        rf'<script type="application/json" id="{ident}">(.*?)</script>', document, re.S
    )
    assert found is not None, f"no {ident} in the page"
    return json.loads(found.group(1))


def viewer_documents(app: Any) -> list[str]:
    """The HTML documents of the viewer iframes on a Streamlit ``AppTest`` page."""
    return [str(frame.proto.srcdoc) for frame in app.get("iframe")]
