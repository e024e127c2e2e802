"""Game records: round trips, determinism, and corrupt records rejected at the right step."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from arena.game import PRESETS
from arena.game.record import FORMAT, RecordError, game_record, replay_record
from arena.simulate import make_policies, play_game
from tests.presets import every_preset

PLAYERS = ["random@1", "greedy@1", "random@1"]


def _record(preset: str = "classic", seed: int = 5) -> dict[str, Any]:
    state = play_game(PRESETS[preset], seed, make_policies(["random", "greedy", "random"], seed))
    return json.loads(json.dumps(game_record(state, PLAYERS)))


@pytest.mark.parametrize("preset", every_preset())
def test_record_replay_record_is_identical(preset: str) -> None:
    for seed in range(30):
        record = _record(preset, seed)
        assert record["format"] == FORMAT
        assert record["rules"] == PRESETS[preset].to_json()
        replayed = game_record(replay_record(record), PLAYERS)
        assert json.loads(json.dumps(replayed)) == record


def test_same_seed_and_decisions_give_byte_identical_records() -> None:
    first = json.dumps(_record("catalan-plus-minus", 11), sort_keys=True)
    second = json.dumps(_record("catalan-plus-minus", 11), sort_keys=True)
    assert first == second
    assert json.dumps(_record("catalan-plus-minus", 12), sort_keys=True) != first


def test_same_seed_gives_same_deals_whatever_the_decisions() -> None:
    a = play_game(PRESETS["classic"], 9, make_policies(["random"] * 3, 1))
    b = play_game(PRESETS["classic"], 9, make_policies(["greedy"] * 3, 2))
    shared = min(len(a.history), len(b.history))
    assert [(h.deal, h.kitty) for h in a.history[:shared]] == [
        (h.deal, h.kitty) for h in b.history[:shared]
    ]


def _first_trick_with_choice(record: dict[str, Any]) -> tuple[int, int]:
    """(hand index, trick index) of a trick whose second card had a follow-suit obligation."""
    for h, hand in enumerate(record["hands"]):
        for t, trick in enumerate(hand["tricks"]):
            if trick["cards"][0][1] != trick["cards"][1][1]:
                continue
            return h, t
    raise AssertionError("no suitable trick")


def _swap_card_with_other_seat(record: dict[str, Any]) -> str:
    hand = record["hands"][1]
    trick = hand["tricks"][2]
    leader = trick["leader"]
    other = hand["tricks"][3]
    # A card that is not in the leader's hand: one played by the next seat later on.
    foreign = other["cards"][(leader + 1 - other["leader"]) % 3]
    trick["cards"][0] = foreign
    return "hand 2, trick 3, card 1"


def _play_card_twice(record: dict[str, Any]) -> str:
    hand = record["hands"][0]
    first, second = hand["tricks"][0], hand["tricks"][1]
    seat = second["leader"]
    second["cards"][0] = first["cards"][(seat - first["leader"]) % 3]
    return "hand 1, trick 2, card 1"


def _revoke(record: dict[str, Any]) -> str:
    h, t = _first_trick_with_choice(record)
    hand = record["hands"][h]
    trick = hand["tricks"][t]
    led_suit = trick["cards"][0][1]
    follower = (trick["leader"] + 1) % 3
    # Swap the follower's card with an off-suit card it plays later in the hand.
    for later in hand["tricks"][t + 1 :]:
        card = later["cards"][(follower - later["leader"]) % 3]
        if card[1] != led_suit:
            trick["cards"][1] = card
            return f"hand {h + 1}, trick {t + 1}, card 2"
    raise AssertionError("no off-suit card to revoke with")


def _wrong_winner(record: dict[str, Any]) -> str:
    trick = record["hands"][2]["tricks"][5]
    trick["winner"] = (trick["winner"] + 1) % 3
    return "hand 3, trick 6"


def _wrong_score(record: dict[str, Any]) -> str:
    record["hands"][1]["scores"][0] += 1
    return "hand 2, score"


def _wrong_deal(record: dict[str, Any]) -> str:
    deal = record["hands"][1]["deal"]
    deal[0][0], deal[1][0] = deal[1][0], deal[0][0]
    return "hand 2, deal"


def _unknown_card(record: dict[str, Any]) -> str:
    record["hands"][0]["tricks"][0]["cards"][2] = "1X"
    return "hand 1, trick 1"


def _wrong_return(record: dict[str, Any]) -> str:
    for h, hand in enumerate(record["hands"]):
        if hand["exchange"]:
            leg = hand["exchange"][0]
            leg["returned"][0] = leg["given"][0] if leg["returned"][0] != leg["given"][0] else "2S"
            return f"hand {h + 1}, exchange leg 1"
    raise AssertionError("no exchange")


def _wrong_result(record: dict[str, Any]) -> str:
    record["result"]["winners"] = [(record["result"]["winners"][0] + 1) % 3]
    return "result"


def _illegal_trump(record: dict[str, Any]) -> str:
    record["hands"][0]["trump"] = "X"
    return "hand 1, trump"


@pytest.mark.parametrize(
    "corrupt",
    [
        _swap_card_with_other_seat,
        _play_card_twice,
        _revoke,
        _wrong_winner,
        _wrong_score,
        _wrong_deal,
        _unknown_card,
        _wrong_return,
        _wrong_result,
        _illegal_trump,
    ],
)
def test_corrupt_record_is_rejected_at_the_right_step(
    corrupt: Callable[[dict[str, Any]], str],
) -> None:
    seed = next(s for s in range(100) if len(_record("classic", s)["hands"]) >= 4)
    record = _record("classic", seed)
    broken = copy.deepcopy(record)
    where = corrupt(broken)
    with pytest.raises(RecordError) as caught:
        replay_record(broken)
    message = str(caught.value)
    assert message.startswith(f"game {seed}, {where}"), message
    replay_record(record)  # the untouched record still loads


def test_a_record_for_another_ruleset_is_rejected() -> None:
    # A game won below 12 points, so that under target 12 it would go on.
    seed = next(s for s in range(100) if max(_record("classic", s)["result"]["scores"]) < 12)
    record = _record("classic", seed)
    record["rules"]["target"] = 12
    with pytest.raises(RecordError, match="differ from the classic preset"):
        replay_record(record)
    record["ruleset"] = "custom"
    with pytest.raises(RecordError):  # a custom target changes when the game ends
        replay_record(record)


@pytest.mark.parametrize(
    "garbage",
    [{}, {"format": FORMAT}, {"format": "other/1"}, [], {"format": FORMAT, "rules": 3}],
)
def test_garbage_gives_a_record_error(garbage: Any) -> None:
    with pytest.raises(RecordError):
        replay_record(garbage)


def test_truncated_record_is_rejected() -> None:
    record = _record("classic", 8)
    record["hands"][-1]["tricks"].pop()
    with pytest.raises(RecordError, match="fewer than 16 tricks"):
        replay_record(record)
    record = _record("classic", 8)
    record["hands"].pop()
    with pytest.raises(RecordError):
        replay_record(record)
