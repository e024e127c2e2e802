"""Decision requests and replies through ``arena.v1``: whole games played over the wire
with the SDK's conversions, round trips of every kind of decision, and the boundary checks.

Replies that break the protocol must raise :class:`ProtocolError` with one line;
well-shaped but illegal decisions must pass decoding and be left to the engine.
"""

from __future__ import annotations

import pytest

from arena.game import PRESETS, GameState, IllegalActionError, Phase, observe
from arena.game.actions import CallTrump, Decision, Discard, Give, Play
from arena.game.cards import Trump
from arena.game.policies import RandomPolicy
from arena.protocol.decisions import (
    decision_from_proto,
    decision_to_proto,
    request_from_proto,
    request_message,
    request_to_proto,
)
from arena.protocol.observations import (
    observation_to_proto,
)
from arena.protocol.wire import ProtocolError
from arena.v1 import arena_pb2 as pb
from tests.protocol.protocol_support import cards, wire


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


def test_request_message_is_the_request_in_a_referee_message() -> None:
    """What the referee writes (the request built inside its RefereeMessage) is byte for
    byte the request wrapped afterwards, at every decision of a game."""
    state = GameState(PRESETS["classic-show"], 5)
    policy = RandomPolicy(0)
    while not state.is_over:
        obs = observe(state, state.current_seat)
        wrapped = pb.RefereeMessage(decision_request=request_to_proto(obs, 9, 1000, 4321))
        built = request_message(obs, 9, 1000, 4321)
        assert built.SerializeToString() == wrapped.SerializeToString()
        state.apply_decision(policy.act(obs))


def test_request_needs_the_seat_to_act() -> None:
    state = GameState(PRESETS["classic"], 1)
    idle = (state.current_seat + 1) % 3
    with pytest.raises(ValueError, match="no decision"):
        request_to_proto(observe(state, idle), 1, 1000, 0)
    with pytest.raises(ValueError, match="no decision"):
        request_message(observe(state, idle), 1, 1000, 0)
    msg = pb.DecisionRequest(request_id=1, observation=observation_to_proto(observe(state, idle)))
    with pytest.raises(ProtocolError, match="request is not set"):
        request_from_proto(msg)


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


@pytest.mark.parametrize("decision", DECISIONS, ids=str)
def test_reply_written_into_the_bot_message_is_the_reply_wrapped(decision: Decision) -> None:
    """The SDK writes the reply into the BotMessage it sends: the same bytes as wrapping it."""
    wrapped = pb.BotMessage(action_reply=decision_to_proto(decision, 7))
    message = pb.BotMessage()
    decision_to_proto(decision, 7, into=message.action_reply)
    assert message.SerializeToString() == wrapped.SerializeToString()
    assert message.WhichOneof("message") == "action_reply"


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
