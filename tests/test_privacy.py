"""The one privacy rule (:mod:`arena.storage.privacy`): what each viewer reads of a record.

A record with a canary in every private place of every seat (its logs, its faults'
detail and stderr tail) is redacted for each kind of viewer; what is left is checked
exactly, and the redacted copy still replays.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from arena.replay.steps import build_replay
from arena.storage.privacy import (
    HIDDEN,
    ORGANISER,
    SPECTATOR,
    Viewer,
    redact_fault,
    redact_record,
)
from arena.storage.users import Actor
from tests.storage.helpers import make_record

OWNERS = [10, 20, 10]
"""Seats 0 and 2 are user 10's bots, seat 1 user 20's."""


def canary(seat: int) -> str:
    return f"CANARY-seat-{seat}"


@pytest.fixture
def record() -> dict[str, Any]:
    made = make_record(3)
    made["bot_logs"] = [
        {"stdout": canary(s) + " out", "stderr": canary(s) + " err", "dropped_bytes": 5}
        for s in range(3)
    ]
    made["faults"] = [
        {"seat": s, "hand": 1, "decision": "play", "kind": "illegal", "autopilot": True,
         "detail": f"played {canary(s)}", "stderr_tail": canary(s) + " tail"}
        for s in range(3)
    ]  # fmt: skip
    return made


def _text(record: dict[str, Any]) -> str:
    return json.dumps(record)


@pytest.mark.parametrize(
    ("viewer", "readable"),
    [
        (SPECTATOR, set()),
        (Viewer(30), set()),  # a participant owning none of the seats
        (Viewer(10), {0, 2}),
        (Viewer(20), {1}),
        (Viewer(30, organiser=True), {0, 1, 2}),
        (ORGANISER, {0, 1, 2}),
    ],
)
def test_each_viewer_reads_exactly_their_seats(
    record: dict[str, Any], viewer: Viewer, readable: set[int]
) -> None:
    original = copy.deepcopy(record)
    shown = redact_record(record, viewer, OWNERS)
    assert record == original  # a copy: the cached original is never changed
    for seat in range(3):
        logs, fault = shown["bot_logs"][seat], shown["faults"][seat]
        if seat in readable:
            assert logs == original["bot_logs"][seat] and fault == original["faults"][seat]
        else:
            assert canary(seat) not in _text({"logs": logs, "fault": fault})
            assert logs == {"stdout": "", "stderr": "", "dropped_bytes": 0, "hidden": True}
            assert fault == {"seat": seat, "hand": 1, "decision": "play", "kind": "illegal",
                             "autopilot": True, "detail": HIDDEN, "hidden": True}  # fmt: skip
    # Everything else is the game itself, unchanged, and it still replays.
    rest = {k: v for k, v in shown.items() if k not in ("bot_logs", "faults")}
    assert rest == {k: v for k, v in original.items() if k not in ("bot_logs", "faults")}
    assert build_replay(shown).steps


def test_unknown_owners_are_organisers_only(record: dict[str, Any]) -> None:
    shown = redact_record(record, Viewer(10), [None, None, 10])
    assert canary(0) not in _text(shown) and canary(2) in _text(shown)
    assert canary(0) in _text(redact_record(record, ORGANISER, [None, None, None]))


def test_odd_entries_are_hidden_too() -> None:
    assert redact_fault("not a fault") == {"detail": HIDDEN, "hidden": True}
    odd = {"bot_logs": ["text", {"stderr": "x"}], "faults": [{"seat": "0", "detail": "x"}]}
    shown = redact_record(odd, Viewer(10), [10, 20, 20])
    assert shown["faults"] == [{"seat": "0", "detail": HIDDEN, "hidden": True}]  # "0" is no seat
    assert shown["bot_logs"][0] == "text"  # seat 0 is the viewer's
    assert shown["bot_logs"][1]["hidden"] and shown["bot_logs"][1]["stderr"] == ""


def test_the_viewer_of_an_actor() -> None:
    assert Viewer.of(None) == SPECTATOR
    assert Viewer.of(Actor(7, "alice", "participant")) == Viewer(7, organiser=False)
    assert Viewer.of(Actor(8, "olga", "organiser")).may_read(12345)
    assert not SPECTATOR.may_read(None) and not Viewer(7).may_read(None)
