"""Round trips of observations through ``arena.v1`` (docs/style.md 21: round trips for parsers),
and the boundary checks on observations that come over the wire.

Every observation of a few random games of every preset, for all three seats, must survive
Observation -> proto -> bytes -> proto -> Observation unchanged: that is what lets the
Python SDK hand bots the same typed observation the built-in policies see.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest

from arena.game import PRESETS, GameState, Observation, observe
from arena.game.actions import DecisionKind
from arena.game.rules import RuleSet
from arena.protocol.observations import (
    observation_from_proto,
    observation_to_proto,
)
from arena.protocol.wire import ProtocolError
from arena.v1 import arena_pb2 as pb
from tests.presets import every_preset
from tests.protocol.protocol_support import wire

GAMES_PER_PRESET = 2


def random_game_observations(rules: RuleSet, seed: int) -> Iterator[Observation]:
    """Every seat's observation before every step-level action, and at the end."""
    state = GameState(rules, seed)
    rng = random.Random(seed)
    while True:
        for seat in range(3):
            yield observe(state, seat)
        if state.is_over:
            return
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("preset", every_preset())
def test_observation_round_trip_at_every_decision_point(preset: str) -> None:
    rules = PRESETS[preset]
    seen: set[str] = set()
    count = 0
    for seed in range(GAMES_PER_PRESET):
        for obs in random_game_observations(rules, seed):
            msg = wire(observation_to_proto(obs))
            back = observation_from_proto(msg)
            if back != obs:  # compare field by field for a readable failure
                for field in dataclasses.fields(Observation):
                    assert getattr(back, field.name) == getattr(obs, field.name), field.name
            assert back == obs
            count += 1
            seen |= _features(obs)
    assert count > 0
    # The round trip must have met the fields whose absence/emptiness is subtle.
    expected = {"previous hand", "kitty", "discards partial", "pending give", "request", "result"}
    expected |= {"leg given"} if rules.uses_split_exchange else {"leg done"}
    if rules.dealer_show:
        expected.add("show")
    assert expected <= seen, f"not covered: {sorted(expected - seen)}"


def _features(obs: Observation) -> set[str]:
    found = set()
    if obs.previous_deltas is not None:
        found.add("previous hand")
    if obs.kitty is not None:
        found.add("kitty")
    if obs.discards and len(obs.discards) < 4:
        found.add("discards partial")
    if obs.pending_give:
        found.add("pending give")
    if obs.request is not None:
        found.add("request")
    if obs.result is not None:
        found.add("result")
    if obs.shown:
        found.add("show")
    for leg in obs.exchange:
        if leg.status == "given" and leg.given is not None:
            found.add("leg given")
        if leg.returned is not None:
            found.add("leg done")
    return found


def test_wire_keeps_unknown_apart_from_empty() -> None:
    """The dealer's empty discard list is set; other seats' is absent; so is the kitty."""
    state = GameState(PRESETS["classic"], 3)
    while state.decision_kind is not DecisionKind.DISCARD:
        state.apply(state.legal_actions()[0])
    dealer = state.hand.dealer
    for seat in range(3):
        msg = wire(observation_to_proto(observe(state, seat)))
        assert msg.HasField("discards") == (seat == dealer)
        assert msg.HasField("kitty") == (seat == dealer)
        if seat == dealer:
            assert list(msg.discards.cards) == []
            assert len(msg.kitty.cards) == 4
            assert len(msg.hand) == 20
        assert msg.trump != pb.TRUMP_UNSPECIFIED
        assert not msg.HasField("previous_hand")


def _observation_msg() -> pb.Observation:
    state = GameState(PRESETS["nine-two-five"], 2)
    return observation_to_proto(observe(state, state.current_seat))


def _break(path: str, value: Any) -> pb.Observation:
    msg = _observation_msg()
    target: Any = msg
    *parents, last = path.split(".")
    for name in parents:
        target = getattr(target, name)
    field = getattr(target, last)
    if hasattr(field, "extend"):
        del field[:]
        field.extend(value)
    else:
        setattr(target, last, value)
    return msg


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("seat", 3, "observation.seat: seat must be 0, 1 or 2"),
        ("hand", ["AS", "KZ"], r"observation.hand\[1\]: not a card"),
        ("contracts", [9, 5], "observation.contracts: expected one value per seat"),
        ("phase", pb.PHASE_UNSPECIFIED, "observation.phase: invalid enum value 0"),
        ("trump", 9, "observation.trump: invalid enum value 9"),
        ("request.kind", 0, "observation.request.kind"),
        ("rules.name", "", "observation.rules.name is empty"),
        ("rules.first_leader", 0, "observation.rules.first_leader"),
        ("rules.contracts", [9, 4, 3], "observation.rules: contracts must be"),
        ("rules.negative_role", pb.NEGATIVE_ROLE_UNSPECIFIED, "negative_target is set"),
    ],
)
def test_malformed_observation_raises_protocol_error(path: str, value: Any, message: str) -> None:
    with pytest.raises(ProtocolError, match=message) as caught:
        observation_from_proto(wire(_break(path, value)))
    assert "\n" not in str(caught.value)


def test_observation_without_rules_is_malformed() -> None:
    msg = _observation_msg()
    msg.ClearField("rules")
    with pytest.raises(ProtocolError, match=r"observation\.rules is not set"):
        observation_from_proto(msg)
