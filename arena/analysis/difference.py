"""Where two games on the same cards part: the first replay step that differs.

Two games of one deal key start from the same deal, so their replays
(:func:`arena.replay.steps.build_replay`) agree step by step until somebody decides
differently. Steps are compared by hand, kind, acting seat and their full text with the
players' names taken out (the names are the one thing that always differs); the first step
that differs is the first differing decision, or a forced step it caused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from arena.replay.steps import Replay, ReplayStep, StepKind

DECISION_KINDS: Final = {
    StepKind.GIVE: "exchange",
    StepKind.TRUMP: "trump",
    StepKind.DISCARD: "discard",
    StepKind.PLAY: "play",
}
"""The replay steps a seat chooses, by the decision kind the analysis reports."""


@dataclass(frozen=True, slots=True)
class Difference:
    """The first step at which two replays differ."""

    index: int
    """The step index (the same in both replays: every earlier step is equal)."""
    hand: int
    seat: int | None
    """The seat acting at that step in the first replay (``None``: deal or hand end)."""
    kind: str
    """The step kind (``play``, ``give``, ``trump``, ``discard``, ``hand_end``, ...)."""
    decision: str | None
    """The decision kind (exchange, trump, discard, play), if the step is a decision."""
    first: str
    """The first replay's step, as all-cards text (empty if it has no such step)."""
    second: str


def step_key(step: ReplayStep, players: tuple[str, str, str]) -> tuple[object, ...]:
    """What must be equal for two games' steps to count as the same: the step without the
    players' names."""
    return (step.hand, step.kind, step.seat, anonymous(step.private_text, players))


def anonymous(text: str, players: tuple[str, str, str]) -> str:
    """*text* with ``seat N (name)`` (how a replay names a seat) shortened to ``seat N``."""
    for seat, name in enumerate(players):
        text = text.replace(f"seat {seat} ({name})", f"seat {seat}")
    return text


def step_keys(replay: Replay) -> list[tuple[object, ...]]:
    """:func:`step_key` of every step of *replay* (worth keeping for a replay compared
    with many others)."""
    return [step_key(step, replay.players) for step in replay.steps]


def first_difference(
    first: Replay,
    second: Replay,
    keys: tuple[list[tuple[object, ...]], list[tuple[object, ...]]] | None = None,
) -> Difference | None:
    """The first step at which *first* and *second* differ, ``None`` if they never do;
    *keys*: their :func:`step_keys`, if already known."""
    a_keys, b_keys = keys if keys is not None else (step_keys(first), step_keys(second))
    same = 0
    for a_key, b_key in zip(a_keys, b_keys, strict=False):
        if a_key != b_key:
            break
        same += 1
    if same == len(a_keys) == len(b_keys):
        return None
    a = first.steps[same] if same < len(first.steps) else None
    b = second.steps[same] if same < len(second.steps) else None
    shown = a if a is not None else b
    assert shown is not None  # *same* is below the longer length
    return Difference(
        index=same,
        hand=shown.hand,
        seat=shown.seat,
        kind=shown.kind.value,
        decision=DECISION_KINDS.get(shown.kind) if shown.seat is not None else None,
        first="" if a is None else anonymous(a.private_text, first.players),
        second="" if b is None else anonymous(b.private_text, second.players),
    )


def hand_delta(record: Mapping[str, object], hand: int, seat: int) -> int | None:
    """Tricks minus contract of *seat* in hand number *hand* of *record* (``None`` if the
    game ended before it)."""
    hands = record.get("hands")
    if not isinstance(hands, list) or not 1 <= hand <= len(hands):
        return None
    played = hands[hand - 1]
    return int(played["tricks_won"][seat]) - int(played["contracts"][seat])


__all__ = [
    "DECISION_KINDS",
    "Difference",
    "anonymous",
    "first_difference",
    "hand_delta",
    "step_key",
]
