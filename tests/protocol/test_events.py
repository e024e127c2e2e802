"""Round trips of the match, game and hand events through ``arena.v1`` (Hello, Welcome,
GameStart, HandEnd, GameEnd with its faults), and the checks on malformed ones."""

from __future__ import annotations

import random

import pytest

from arena.game import PRESETS, GameState
from arena.game.actions import DecisionKind
from arena.game.ending import EndReason, GameResult
from arena.protocol.enums import FaultKind
from arena.protocol.events import (
    GameEnd,
    GameStart,
    TimeControl,
    Welcome,
    game_end_from_proto,
    game_end_to_proto,
    game_start_from_proto,
    game_start_to_proto,
    hand_end_from_log,
    hand_end_from_proto,
    hand_end_to_proto,
    hello_to_proto,
    welcome_from_proto,
    welcome_to_proto,
)
from arena.protocol.faults import Fault
from arena.protocol.observations import (
    game_result_from_proto,
    game_result_to_proto,
)
from arena.protocol.rules import rules_to_proto
from arena.protocol.wire import PROTOCOL_VERSION, ProtocolError
from arena.v1 import arena_pb2 as pb
from tests.presets import every_preset
from tests.protocol.protocol_support import rule_variants, wire


def _finished_game(preset: str, seed: int) -> GameState:
    state = GameState(PRESETS[preset], seed)
    rng = random.Random(seed)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("preset", every_preset())
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
    for rules in rule_variants():
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
