"""Replay steps (``arena.replay.steps``): the step list of every preset, views that add up,
faults at the right decision, and the hidden-information property of seat views."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from arena.game.cards import Card, cards_in, parse_cards
from arena.game.record import RecordError, game_record
from arena.game.rules import PRESETS
from arena.game.state import GameState
from arena.replay.steps import StepKind, build_replay
from arena.simulate import make_policies, play_game
from tests.presets import every_preset

CARD = re.compile(r"\b[2-9TJQKA][SHDC]\b")


def record_of(preset: str, seed: int, **extra: Any) -> dict[str, Any]:
    names = ["greedy", "random", "greedy"]
    state = play_game(PRESETS[preset], seed, make_policies(names, seed))
    faults = extra.pop("faults", ())
    return game_record(state, [f"{n}@1" for n in names], faults, extra)


def known_cards(state: GameState, seat: int) -> set[Card]:
    """What docs/rules.md 6 lets *seat* know of the current hand, written from the full state."""
    log = state.hand
    known = set(cards_in(log.deal[seat])) | set(cards_in(state.hands[seat]))
    for leg in log.legs:
        if seat in (leg.leg.giver, leg.leg.receiver):
            known |= set(leg.given if leg.is_given else ()) | set(leg.returned)
    if seat == log.dealer:
        known |= set(log.discards) | (set(cards_in(log.kitty)) if log.kitty_taken else set())
    for to, mask in log.shown:
        if seat in (to, log.dealer):
            known |= set(cards_in(mask))
    for trick in log.tricks:
        known |= set(trick.cards)
    known |= set(state.trick)
    return known


@pytest.mark.parametrize("preset", every_preset())
def test_steps_of_every_preset(preset: str) -> None:
    record = record_of(preset, 5)
    replay = build_replay(record)
    kinds = Counter(step.kind for step in replay.steps)
    hands = record["hands"]
    assert kinds[StepKind.DEAL] == kinds[StepKind.HAND_END] == len(hands)
    assert kinds[StepKind.PLAY] == 48 * len(hands)
    assert kinds[StepKind.DISCARD] == 4 * len(hands)
    assert kinds[StepKind.TRUMP] == kinds[StepKind.KITTY] == len(hands)
    legs = sum(len(h["exchange"]) for h in hands)
    assert kinds[StepKind.GIVE] == legs
    split = PRESETS[preset].uses_split_exchange
    assert kinds[StepKind.RETURN] == (legs if split else 0)
    assert kinds[StepKind.SHOW] == sum(len(h["shown"]) for h in hands)
    assert list(replay.hand_starts) == [h["number"] for h in hands]
    for index, step in enumerate(replay.steps):
        assert step.index == index
    # Each hand ends with its record's result; the last one with the game's.
    for hand in hands:
        start = replay.hand_starts[hand["number"]]
        end = replay.hand_starts.get(hand["number"] + 1, len(replay.steps)) - 1
        assert replay.steps[end].kind is StepKind.HAND_END
        view = replay.view(end)
        assert view.summary is not None
        assert list(view.summary.scores) == hand["scores"]
        assert list(view.summary.tricks_won) == hand["tricks_won"]
        assert view.tricks_played == 16
        assert replay.view(start).tricks_played == 0
    final = replay.view(len(replay.steps) - 1, 1)
    assert final.result is not None and list(final.result.scores) == record["result"]["scores"]


@pytest.mark.parametrize("preset", ["classic", "classic-show", "catalan-plus-minus"])
def test_all_cards_view_accounts_for_every_card(preset: str) -> None:
    replay = build_replay(record_of(preset, 8))
    for index, step in enumerate(replay.steps):
        view = replay.view(index)
        held = [c for panel in view.seats for c in panel.cards or ()]
        played = [] if view.trick is None else list(view.trick.cards)
        basis = replay._bases[index]
        earlier = [c for t in basis.state.hand.tricks for c in t.cards]
        if view.trick is not None and view.trick.winner is not None:
            earlier = earlier[: 3 * (view.tricks_played - 1)]
        kitty = [] if view.kitty_taken else list(view.kitty or ())
        every = held + played + earlier + kitty + list(view.discards or ())
        assert sorted(every) == sorted(set(every)), f"step {index}: a card twice"
        assert len(every) == 52, f"step {index} ({step.kind}): {len(every)} cards"


@pytest.mark.parametrize("preset", every_preset())
def test_a_seat_view_shows_only_what_the_seat_may_know(preset: str) -> None:
    replay = build_replay(record_of(preset, 13))
    leaks_in_all_cards_view = 0
    for index, step in enumerate(replay.steps):
        basis = replay._bases[index]
        for seat in range(3):
            known = known_cards(basis.state, seat)
            if basis.final is not None:
                known.add(basis.final[1])
            view = replay.view(index, seat)
            assert view.visible_cards() <= known, f"step {index} ({step.kind}) seat {seat}"
            for panel in view.seats:
                assert (panel.cards is None) == (panel.seat != seat)
            own = view.seats[seat].cards or ()
            assert len(own) == view.seats[seat].card_count
            mentioned = set(parse_cards(CARD.findall(step.text(seat))))
            assert mentioned <= known, f"step {index} text leaks to seat {seat}"
            leaks_in_all_cards_view += not replay.view(index).visible_cards() <= known
    # The check can fail: the all-cards view shows what a seat may not know.
    assert leaks_in_all_cards_view > 0


def test_other_seats_card_counts_follow_the_real_hands() -> None:
    replay = build_replay(record_of("catalan-plus-minus", 21))
    for index in range(len(replay.steps)):
        truth = replay.view(index)
        for seat in range(3):
            view = replay.view(index, seat)
            for other in range(3):
                if other == replay.steps[index].seat and truth.seats[other].card_count > 16:
                    continue  # mid-discard, the others only know "20 until done"
                assert view.seats[other].card_count == truth.seats[other].card_count


def test_a_fault_is_marked_at_the_decision_that_failed() -> None:
    base = record_of("classic", 3)
    # Seat 1 answered 20 decisions, then timed out on the next one.
    probe = build_replay(base)
    decisions = [
        s
        for s in probe.steps
        if s.seat == 1
        and s.kind in _DECISION_KINDS
        and not (s.kind is StepKind.DISCARD and "(1 of 4)" not in s.text(None))
        and not (s.kind is StepKind.GIVE and probe.steps[s.index - 1].kind is StepKind.GIVE
                 and probe.steps[s.index - 1].seat == 1)
    ]  # fmt: skip
    target = decisions[20]
    kind = "play" if target.kind is StepKind.PLAY else target.kind.value
    fault = {"seat": 1, "hand": target.hand, "decision": kind, "kind": "timeout",
             "detail": "no answer", "autopilot": True}  # fmt: skip
    record = dict(base, faults=[fault], timings={"decision_ms": [[1.0] * 5, [1.0] * 20, []]})
    replay = build_replay(record)
    marked = [s for s in replay.steps if s.faults]
    assert [s.index for s in marked] == [target.index]
    assert not any(s.autopilot for s in replay.steps[: target.index])
    later = [s for s in replay.steps[target.index :] if s.seat == 1 and s.kind is StepKind.PLAY]
    assert later and all(s.autopilot for s in later)


def test_a_startup_fault_is_marked_at_the_first_step() -> None:
    fault = {"seat": 2, "hand": 0, "decision": "startup", "kind": "startup",
             "detail": "no Hello", "autopilot": True}  # fmt: skip
    replay = build_replay(dict(record_of("classic", 4), faults=[fault]))
    assert replay.steps[0].faults == (fault,)
    assert all(s.autopilot for s in replay.steps if s.seat == 2 and s.kind is StepKind.PLAY)


def test_a_broken_record_is_refused_with_where() -> None:
    record = record_of("classic", 6)
    record["hands"][0]["tricks"][3]["winner"] = (record["hands"][0]["tricks"][3]["winner"] + 1) % 3
    with pytest.raises(RecordError, match="hand 1, trick 4"):
        build_replay(record, game="g1")


_DECISION_KINDS = (StepKind.GIVE, StepKind.TRUMP, StepKind.DISCARD, StepKind.PLAY)
