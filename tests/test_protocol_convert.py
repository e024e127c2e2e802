"""Round trips between engine values and ``arena.v1`` messages (STYLE.md 21: round trips
for parsers), and the boundary checks on what comes over the wire.

Every observation of a few random games of every preset, for all three seats, must survive
Observation -> proto -> bytes -> proto -> Observation unchanged: that is what lets the
Python SDK hand bots the same typed observation the built-in policies see. Replies that
break the protocol must raise :class:`ProtocolError` with one line; well-shaped but illegal
decisions must pass decoding and be left to the engine.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest

from arena.game import PRESETS, GameState, IllegalActionError, Observation, Phase, observe
from arena.game.actions import CallTrump, Decision, DecisionKind, Discard, Give, Play
from arena.game.cards import Card, Trump, parse_cards
from arena.game.ending import EndReason, GameResult
from arena.game.policies import RandomPolicy
from arena.game.rules import RuleSet
from arena.protocol import (
    PROTOCOL_VERSION,
    Fault,
    FaultKind,
    GameEnd,
    GameStart,
    ProtocolError,
    TimeControl,
    Welcome,
    decision_from_proto,
    decision_to_proto,
    game_end_from_proto,
    game_end_to_proto,
    game_result_from_proto,
    game_result_to_proto,
    game_start_from_proto,
    game_start_to_proto,
    hand_end_from_log,
    hand_end_from_proto,
    hand_end_to_proto,
    hello_to_proto,
    observation_from_proto,
    observation_to_proto,
    request_from_proto,
    request_to_proto,
    rules_from_proto,
    rules_to_proto,
    welcome_from_proto,
    welcome_to_proto,
)
from arena.v1 import arena_pb2 as pb

GAMES_PER_PRESET = 2


def cards(text: str) -> tuple[Card, ...]:
    """``"KS 9S"`` -> the cards, in order."""
    return parse_cards(text.split())


def wire(message: Any) -> Any:
    """Serialise and parse again, as the transport does (presence must survive bytes)."""
    return type(message).FromString(message.SerializeToString())


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


# ---------------------------------------------------------------------------- observations


@pytest.mark.parametrize("preset", sorted(PRESETS))
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


def test_whole_games_over_the_wire_with_the_sdk_conversions() -> None:
    """Referee side -> bytes -> SDK side -> policy -> bytes -> referee side, for whole games."""
    for preset, rules in sorted(PRESETS.items()):
        state = GameState(rules, 11)
        policies = [RandomPolicy(seat) for seat in range(3)]
        request_id = 0
        while not state.is_over:
            seat = state.current_seat
            request_id += 1
            sent = wire(request_to_proto(observe(state, seat), request_id, 1000, 5000))
            received = request_from_proto(sent)
            assert received.request_id == request_id
            assert (received.decision_ms_left, received.bank_ms_left) == (1000, 5000)
            assert received.observation == observe(state, seat)
            decision = policies[seat].act(received.observation)
            reply = wire(decision_to_proto(decision, received.request_id))
            assert reply.request_id == request_id
            state.apply_decision(decision_from_proto(reply))
        assert state.result is not None, preset


def test_request_needs_the_seat_to_act() -> None:
    state = GameState(PRESETS["classic"], 1)
    idle = (state.current_seat + 1) % 3
    with pytest.raises(ValueError, match="no decision"):
        request_to_proto(observe(state, idle), 1, 1000, 0)
    msg = pb.DecisionRequest(request_id=1, observation=observation_to_proto(observe(state, idle)))
    with pytest.raises(ProtocolError, match="request is not set"):
        request_from_proto(msg)


# ---------------------------------------------------------------------------- decisions

DECISIONS: list[Decision] = [
    Play(cards("TS")[0]),
    Play(cards("2C")[0]),
    *(CallTrump(t) for t in Trump),
    Discard(cards("2C 3C 4C AH")),
    Give((cards("3S 6H"),)),
    Give((cards("3S 6H 9D"), cards("KC"))),
]


@pytest.mark.parametrize("decision", DECISIONS, ids=str)
def test_decision_round_trip(decision: Decision) -> None:
    reply = wire(decision_to_proto(decision, 2**40 + 7))
    assert reply.request_id == 2**40 + 7
    assert decision_from_proto(reply) == decision


def test_give_keeps_plan_order_and_card_order() -> None:
    give = Give((cards("9D 3S"), cards("KC 2H")))
    reply = decision_to_proto(give, 1)
    assert [list(leg.cards) for leg in reply.give.legs] == [["9D", "3S"], ["KC", "2H"]]
    assert decision_from_proto(wire(reply)) == give


MALFORMED: dict[str, tuple[pb.ActionReply, str]] = {
    "no action": (pb.ActionReply(request_id=1), "sets no action"),
    "unknown card": (
        pb.ActionReply(request_id=1, play=pb.PlayAction(card="1S")),
        "play.card: not a card",
    ),
    "lowercase card": (pb.ActionReply(play=pb.PlayAction(card="ts")), "not a card"),
    "empty card": (pb.ActionReply(play=pb.PlayAction()), "play.card: not a card"),
    "ten as 10": (pb.ActionReply(play=pb.PlayAction(card="10S")), "not a card"),
    "trump unspecified": (
        pb.ActionReply(trump=pb.TrumpAction(trump=pb.TRUMP_UNSPECIFIED)),
        "trump.trump: invalid enum value 0",
    ),
    "trump unknown number": (
        pb.ActionReply(trump=pb.TrumpAction(trump=42)),  # type: ignore[arg-type]
        "invalid enum value 42",
    ),
    "discard of 3": (
        pb.ActionReply(discard=pb.DiscardAction(cards=["2C", "3C", "4C"])),
        "a discard is 4 cards, got 3",
    ),
    "discard of 5": (
        pb.ActionReply(discard=pb.DiscardAction(cards=["2C", "3C", "4C", "5C", "6C"])),
        "got 5",
    ),
    "discard bad card": (
        pb.ActionReply(discard=pb.DiscardAction(cards=["2C", "3C", "4C", "XX"])),
        r"discard.cards\[3\]: not a card",
    ),
    "give without legs": (pb.ActionReply(give=pb.GiveAction()), "give.legs is empty"),
    "give with an empty leg": (
        pb.ActionReply(
            give=pb.GiveAction(legs=[pb.GiveAction.Leg(cards=["2C"]), pb.GiveAction.Leg()])
        ),
        r"give.legs\[1\].cards is empty",
    ),
    "give bad card": (
        pb.ActionReply(give=pb.GiveAction(legs=[pb.GiveAction.Leg(cards=["2C", "2X"])])),
        r"give.legs\[0\].cards\[1\]: not a card",
    ),
}


def test_protocol_error_quotes_only_the_start_of_a_long_text() -> None:
    reply = pb.ActionReply(play=pb.PlayAction(card="Q" * 10_000 + "\n"))
    with pytest.raises(ProtocolError) as caught:
        decision_from_proto(reply)
    message = str(caught.value)
    assert message.startswith("play.card: not a card: 'QQQQQQQQ'...")
    assert len(message) < 120
    assert "\n" not in message


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_reply_raises_protocol_error(case: str) -> None:
    reply, message = MALFORMED[case]
    with pytest.raises(ProtocolError, match=message) as caught:
        decision_from_proto(wire(reply))
    assert isinstance(caught.value, ValueError)
    assert "\n" not in str(caught.value)


def test_well_shaped_but_illegal_decisions_are_left_to_the_engine() -> None:
    """Decoding accepts them; the engine rejects them (an ``illegal`` fault, not ``protocol``)."""
    state = GameState(PRESETS["classic"], 5)
    assert state.phase is Phase.TRUMP
    wrong_kind = decision_from_proto(decision_to_proto(Play(cards("AS")[0]), 1))
    with pytest.raises(IllegalActionError):
        state.apply_decision(wrong_kind)
    state.apply(Trump.S)
    dealer_view = observe(state, state.current_seat)
    assert dealer_view.phase is Phase.DISCARD
    held = dealer_view.hand
    twice = pb.ActionReply(
        request_id=2, discard=pb.DiscardAction(cards=[str(c) for c in (held[0],) * 4])
    )
    with pytest.raises(IllegalActionError):
        state.apply_decision(decision_from_proto(twice))


# ---------------------------------------------------------------------------- malformed input


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


# ---------------------------------------------------------------------------- rules, game messages


def _variants() -> list[RuleSet]:
    out = list(PRESETS.values())
    out.append(PRESETS["classic"].replace(first_dealer=2, max_hands=30))
    out.append(PRESETS["catalan-plus-minus"].replace(first_dealer=0))
    return out


@pytest.mark.parametrize("rules", _variants(), ids=lambda r: f"{r.name}-{r.first_dealer}")
def test_rules_round_trip(rules: RuleSet) -> None:
    msg = wire(rules_to_proto(rules))
    assert msg.HasField("negative_target") == (rules.negative_target is not None)
    assert msg.HasField("first_dealer") == (rules.first_dealer is not None)
    assert rules_from_proto(msg) == rules


def _finished_game(preset: str, seed: int) -> GameState:
    state = GameState(PRESETS[preset], seed)
    rng = random.Random(seed)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_hand_end_and_game_end_round_trip(preset: str) -> None:
    state = _finished_game(preset, 4)
    for log in state.history:
        end = hand_end_from_log(log)
        assert len(end.tricks) == 16
        assert all(t.winner is not None and len(t.cards) == 3 for t in end.tricks)
        assert hand_end_from_proto(wire(hand_end_to_proto(end))) == end
    assert state.result is not None
    assert game_result_from_proto(wire(game_result_to_proto(state.result))) == state.result
    fault = Fault(
        kind=FaultKind.TIMEOUT,
        decision=DecisionKind.PLAY,
        hand=2,
        detail="no answer in 1050 ms",
        autopilot=True,
        seat=1,
        request_id=33,
    )
    startup = Fault(FaultKind.STARTUP, None, 0, "no Hello in 10 s", True, 1)
    for faults in [(), (fault, startup)]:
        end_msg = GameEnd("g-1", state.result, faults)
        assert game_end_from_proto(wire(game_end_to_proto(end_msg))) == end_msg


def test_hand_end_needs_a_scored_hand() -> None:
    state = GameState(PRESETS["classic"], 1)
    with pytest.raises(ValueError, match="not finished"):
        hand_end_from_log(state.hand)


def test_game_start_and_welcome_round_trip() -> None:
    clock = TimeControl(decision_ms=1000, bank_ms=30_000)
    for rules in _variants():
        start = GameStart(
            game_id="m1-g2",
            game_number=2,
            games_in_match=3,
            rules=rules,
            seat=1,
            first_dealer=2,
            players=("a@1", "b@2", "c@3"),
            time_control=clock,
        )
        assert game_start_from_proto(wire(game_start_to_proto(start))) == start
    welcome = Welcome(seat=2, match_id="m1", games_in_match=3, time_control=clock)
    assert welcome_from_proto(wire(welcome_to_proto(welcome))) == welcome
    hello = hello_to_proto("tok", "bot", "1.0")
    assert hello.protocol_version == PROTOCOL_VERSION == 1


def test_game_messages_reject_malformed_input() -> None:
    start = pb.GameStart(seat=1, players=["a", "b", "c"])
    with pytest.raises(ProtocolError, match=r"game_start\.rules is not set"):
        game_start_from_proto(start)
    start.rules.CopyFrom(rules_to_proto(PRESETS["classic"]))
    del start.players[2]
    with pytest.raises(ProtocolError, match="expected 3 names"):
        game_start_from_proto(start)
    result = pb.GameResult(winners=[], reason=pb.END_REASON_TARGET, scores=[1, 0, -1])
    with pytest.raises(ProtocolError, match="winners is empty"):
        game_result_from_proto(result)
    result.winners.append(0)
    result.reason = pb.END_REASON_UNSPECIFIED
    with pytest.raises(ProtocolError, match="reason: invalid enum value 0"):
        game_result_from_proto(result)
    assert game_result_from_proto(
        pb.GameResult(winners=[0], reason=pb.END_REASON_DRAW, scores=[1, 0, -1])
    ) == GameResult((0,), EndReason.DRAW, (1, 0, -1), 0)
