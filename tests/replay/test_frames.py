"""The viewer's frames (``arena.replay.frames``): every step from every perspective, the
same tables as ``Replay.view``, compact, and no seat's frame shows another's secrets."""

from __future__ import annotations

import copy
import json

import pytest

from arena.replay.frames import (
    FIELDS,
    PERSPECTIVES,
    SAME,
    decoded_views,
    frame_cards,
    frame_of,
    frames_json,
    replay_frames,
    split_cards,
    step_text,
    whole_frames,
)
from arena.replay.steps import build_replay
from tests.presets import every_preset
from tests.replay.support import seat_leaks, seeded_record


@pytest.mark.parametrize("preset", every_preset())
def test_every_step_and_perspective_round_trips(preset: str) -> None:
    replay = build_replay(seeded_record(preset, 3))
    payload = json.loads(frames_json(replay))
    assert payload["players"] == list(replay.players)
    assert len(payload["steps"]) == len(replay.steps)
    views = decoded_views(payload)
    for key, perspective in PERSPECTIVES:
        frames = views[key]
        assert len(frames) == len(replay.steps)
        for index, frame in enumerate(frames):
            view = replay.view(index, perspective)
            assert set(frame) == set(FIELDS)
            assert frame == json.loads(json.dumps(frame_of(view)))
            assert frame_cards(frame) == {str(c) for c in view.visible_cards()}
            entry = payload["steps"][index]
            assert step_text(entry, key) == replay.steps[index].text(perspective)


def test_faults_and_the_autopilot_are_in_the_steps() -> None:
    replay = build_replay(seeded_record())
    steps = replay_frames(replay)["steps"]
    marked = [i for i, s in enumerate(steps) if s[4]]
    assert marked == [i for i, s in enumerate(replay.steps) if s.faults] and marked
    (fault,) = steps[marked[0]][4]
    assert fault == {
        "seat": "1",
        "kind": "timeout",
        "decision": "play",
        "detail": "no answer in 1000 ms",
    }
    assert [s[3] for s in steps] == [s.autopilot for s in replay.steps]
    assert any(s[3] for s in steps)


def test_later_frames_hold_only_what_changed() -> None:
    replay = build_replay(seeded_record())
    views = replay_frames(replay)["views"]
    assert set(views["a"][0]) == set(FIELDS)  # the first frame is whole
    for key, frames in views.items():
        assert set(frames[0]) | set(str(frames[0].get(SAME, "")).split(",")) >= set(FIELDS)
        later = [len(f) for f in frames[1:]]
        assert max(later) < len(FIELDS) and sum(later) / len(later) < 6, key
        if key != "a":  # what a seat sees as everybody does is named, not repeated
            assert sum(SAME in f for f in frames) > len(frames) / 2


def test_cards_are_two_character_ids_run_together() -> None:
    assert split_cards("TSAH2C") == ["TS", "AH", "2C"]
    assert split_cards(None) == [] and split_cards("") == []


@pytest.mark.parametrize("preset", every_preset())
def test_a_seat_frame_never_shows_another_seats_hidden_cards(preset: str) -> None:
    replay = build_replay(seeded_record(preset, 13))
    payload = replay_frames(replay)
    assert seat_leaks(payload, replay) == []
    # The seats do miss cards that the all-cards view shows: there is something to hide.
    views = decoded_views(payload)
    hidden = sum(
        len(frame_cards(everything) - frame_cards(seat))
        for everything, seat in zip(views["a"], views["0"], strict=True)
    )
    assert hidden > 0


def test_the_control_a_leaking_frame_is_caught() -> None:
    replay = build_replay(seeded_record())
    payload = copy.deepcopy(replay_frames(replay))
    step = 5
    others = whole_frames(payload["views"]["a"])[step]["p2"]  # seat 2's hand, face up
    payload["views"]["0"][step]["p2"] = others
    leaks = seat_leaks(payload, replay)
    assert leaks and leaks[0][:2] == (step, 0)
    assert leaks[0][2] <= set(split_cards(others[0]))
