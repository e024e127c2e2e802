"""A whole replay as compact JSON "frames" for the browser's replay viewer (arena.viewer).

The viewer steps, goes back, autoplays and switches seat views without asking the server
again, so it is sent every step's table from every perspective at once. Those tables are
:meth:`arena.replay.steps.Replay.view`'s, serialised and nothing else: the observer stays
the one place that decides what a seat sees (docs/style.md 3), and no rule is written
again in JavaScript.

The payload (docs/replays.md):

``{"v": 1, "players": [3 names], "steps": [step, ...], "views": {"a": [...], "0": [...],
"1": [...], "2": [...]}}``

A step (:func:`step_entry`) is ``[hand, kind, seat, autopilot, [fault, ...], text,
{seat: text}]``: the story of the step as the all-cards view tells it, and a seat's own
where it is told less (:meth:`arena.replay.steps.ReplayStep.text` decides).

``views`` holds one list of frames per perspective (``"a"`` all cards). A frame is an
object of short keys (:data:`FIELDS`); the first frame of a list is whole, each later one
holds only the keys whose value changed since the frame before it, so a step of a trick
costs a few dozen bytes; in a seat's frame, a key whose value is the all-cards frame's of
the same step (the trick, the scores, its own hand) is only named, under :data:`SAME`.
Cards are their two-character ids (``"TS"``) run together in one string (``"TSAH"``),
``null`` where the perspective may not see them.

Pure: values in, text out (no I/O).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from arena.game.cards import Card
from arena.replay.steps import Replay
from arena.replay.views import Perspective, TableView

FORMAT_VERSION: Final = 1
PERSPECTIVES: Final[tuple[tuple[str, Perspective], ...]] = (
    ("a", None),
    ("0", 0),
    ("1", 1),
    ("2", 2),
)
"""The key of each perspective's list of frames, and the perspective."""

FIELDS: Final = {
    "h": "hand number",
    "d": "dealer seat",
    "c": "contracts [3]",
    "s": "scores [3] (before the hand; after it at its end)",
    "tr": "trump: S H D C NT, or null before the call",
    "p0": "seat 0: [cards or null (hidden), card count, tricks won]",
    "p1": "seat 1, as p0",
    "p2": "seat 2, as p0",
    "a": "the seat to act, or null",
    "k": "kitty cards, or null (hidden)",
    "kt": "kitty taken by the dealer",
    "ds": "discards so far, or null (hidden)",
    "dd": "the discard is done",
    "x": "exchange legs [giver, receiver, count, status, given or null, returned or null]",
    "sh": "dealer shows [to, cards]",
    "tk": "the trick [number, leader, cards, winner or null], or null",
    "tp": "completed tricks of the hand",
    "sm": "the hand's result [tricks won [3], deltas [3], scores [3]], or null",
    "r": "the game's result [winner seats, reason], or null",
}
"""Every key of a whole frame, and what it holds (docs/replays.md)."""

CARD_LENGTH: Final = 2
SAME: Final = "="
"""The key of a seat's frame that names (comma-separated) the keys whose values are the
all-cards frame's of the same step."""


def cards_text(cards: Iterable[Card] | None) -> str | None:
    """Card ids run together (``"TSAH"``), or ``None`` for cards the viewer may not see."""
    return None if cards is None else "".join(str(c) for c in cards)


def split_cards(text: str | None) -> list[str]:
    """The card ids in a :func:`cards_text` string (none for ``None``)."""
    if not text:
        return []
    return [text[i : i + CARD_LENGTH] for i in range(0, len(text), CARD_LENGTH)]


def frame_of(view: TableView) -> dict[str, Any]:
    """The whole frame of one table view."""
    trick = view.trick
    summary = view.summary
    result = view.result
    return {
        "h": view.hand_number,
        "d": view.dealer,
        "c": list(view.contracts),
        "s": list(view.scores),
        "tr": None if view.trump is None else view.trump.value,
        **{f"p{p.seat}": [cards_text(p.cards), p.card_count, p.tricks_won] for p in view.seats},
        "a": next((p.seat for p in view.seats if p.to_act), None),
        "k": cards_text(view.kitty),
        "kt": view.kitty_taken,
        "ds": cards_text(view.discards),
        "dd": view.discard_done,
        "x": [
            [
                leg.giver,
                leg.receiver,
                leg.count,
                leg.status,
                cards_text(leg.given),
                cards_text(leg.returned),
            ]
            for leg in view.exchange
        ],
        "sh": [[to, cards_text(cards)] for to, cards in view.shown],
        "tk": None
        if trick is None
        else [trick.number, trick.leader, cards_text(trick.cards), trick.winner],
        "tp": view.tricks_played,
        "sm": None
        if summary is None
        else [list(summary.tricks_won), list(summary.deltas), list(summary.scores)],
        "r": None if result is None else [sorted(result.winners), result.reason.value],
    }


def frame_cards(frame: Mapping[str, Any]) -> set[str]:
    """Every card id a whole frame shows face up: what the viewer can draw from it (the
    counterpart of :meth:`arena.replay.views.TableView.visible_cards`)."""
    seen: set[str] = set()
    for seat in range(3):
        seen.update(split_cards(frame[f"p{seat}"][0]))
    seen.update(split_cards(frame["k"]))
    seen.update(split_cards(frame["ds"]))
    for leg in frame["x"]:
        seen.update(split_cards(leg[4]))
        seen.update(split_cards(leg[5]))
    for _, cards in frame["sh"]:
        seen.update(split_cards(cards))
    if frame["tk"] is not None:
        seen.update(split_cards(frame["tk"][2]))
    return seen


def _changes(
    before: Mapping[str, Any] | None,
    frame: Mapping[str, Any],
    reference: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The keys of *frame* whose values differ from *before* (all of them without one);
    those equal to the all-cards frame of the same step (*reference*) are only named, in
    the :data:`SAME` key: a seat sees the trick, the scores and its own hand as they are."""
    changed = {
        key: value for key, value in frame.items() if before is None or before.get(key) != value
    }
    if reference is None:
        return changed
    same = [key for key, value in changed.items() if reference.get(key) == value]
    if same:
        for key in same:
            del changed[key]
        changed[SAME] = ",".join(same)
    return changed


def _fault(fault: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded fault as the viewer shows it: its public fields and its detail (already
    redacted for this reader); never its stderr, which the page shows beside the viewer."""
    return {key: str(fault.get(key)) for key in ("seat", "kind", "decision", "detail")}


def step_entry(replay: Replay, index: int) -> list[Any]:
    """Step *index* as the viewer's step list holds it: ``[hand, kind, seat, autopilot,
    [fault, ...], text, {seat: text}]``: the text is the all-cards view's, and the object
    holds a seat's own text where :meth:`~arena.replay.steps.ReplayStep.text` gives it
    another (the public story of a step it is not party to)."""
    step = replay.steps[index]
    text = step.text(None)
    others = {str(seat): step.text(seat) for seat in (0, 1, 2) if step.text(seat) != text}
    faults = [_fault(f) for f in step.faults]
    return [step.hand, step.kind.value, step.seat, step.autopilot, faults, text, others]


def step_text(entry: Sequence[Any], key: str) -> str:
    """The text of a :func:`step_entry` as perspective *key* (``"a"``, ``"0"`` ..) reads it."""
    others: Mapping[str, str] = entry[6]
    return others.get(key, entry[5])


def replay_frames(replay: Replay) -> dict[str, Any]:
    """Every step of *replay* from every perspective, as the viewer's payload."""
    views: dict[str, list[dict[str, Any]]] = {}
    everything: list[dict[str, Any]] = []  # the all-cards frames, whole
    for key, perspective in PERSPECTIVES:
        frames: list[dict[str, Any]] = []
        before: dict[str, Any] | None = None
        for index in range(len(replay.steps)):
            frame = frame_of(replay.view(index, perspective))
            if perspective is None:
                everything.append(frame)
                frames.append(_changes(before, frame))
            else:
                frames.append(_changes(before, frame, everything[index]))
            before = frame
        views[key] = frames
    return {
        "v": FORMAT_VERSION,
        "players": list(replay.players),
        "steps": [step_entry(replay, i) for i in range(len(replay.steps))],
        "views": views,
    }


def frames_json(replay: Replay) -> str:
    """:func:`replay_frames` as compact JSON text (not yet safe inside an HTML page:
    :func:`arena.viewer.viewer_html` escapes it)."""
    return json.dumps(replay_frames(replay), separators=(",", ":"), ensure_ascii=False)


def whole_frames(
    changes: Sequence[Mapping[str, Any]], reference: Sequence[Mapping[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The whole frames of one perspective from its list of changes, as the viewer
    rebuilds them; *reference* is the all-cards view's whole frames (for a seat's)."""
    whole: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for index, change in enumerate(changes):
        current = dict(current)
        for key in str(change.get(SAME, "")).split(","):
            if key:
                current[key] = reference[index][key]
        current.update((key, value) for key, value in change.items() if key != SAME)
        whole.append(current)
    return whole


def decoded_views(payload: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every perspective's whole frames of a :func:`replay_frames` payload."""
    everything = whole_frames(payload["views"]["a"])
    return {
        key: everything if key == "a" else whole_frames(payload["views"][key], everything)
        for key, _ in PERSPECTIVES
    }


__all__ = [
    "FIELDS",
    "FORMAT_VERSION",
    "PERSPECTIVES",
    "SAME",
    "cards_text",
    "decoded_views",
    "frame_cards",
    "frame_of",
    "frames_json",
    "replay_frames",
    "split_cards",
    "step_entry",
    "step_text",
    "whole_frames",
]
