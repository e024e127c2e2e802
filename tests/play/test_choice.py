"""The Play page's check of a choice before it is written (arena.play.choice): every kind
of decision, a legal answer taken (the control) and each kind of forged one refused."""

from __future__ import annotations

from typing import Any

import pytest

from arena.play.choice import refusal

HAND = ["2S", "5S", "AS", "3H", "KH", "4D", "9D", "TC"]


def _pending(kind: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": kind,
        "cards": [],
        "trump_options": [],
        "give_legs": [],
        "discard_count": 0,
    }
    return {**base, **fields}


PLAY = _pending("play", cards=["3H", "KH"])
TRUMP = _pending("trump", trump_options=["S", "H", "D", "C", "NT"])
DISCARD = _pending("discard", cards=[*HAND, "6C", "7C", "8C", "JC"], discard_count=4)
GIVE = _pending("give", cards=HAND, give_legs=[[1, 2], [2, 1]])


@pytest.mark.parametrize(
    ("text", "pending"),
    [
        ("play KH", PLAY),
        ("trump NT", TRUMP),
        ("discard 6C 7C 2S 5S", DISCARD),
        ("give 2S 5S | TC", GIVE),
    ],
)
def test_a_legal_answer_is_taken(text: str, pending: dict[str, Any]) -> None:
    assert refusal(text, pending, HAND) is None


@pytest.mark.parametrize(
    ("text", "pending", "why"),
    [
        ("play 2S", PLAY, "2S is not a card you may play now"),  # held, but must follow
        ("play QC", PLAY, "QC is not a card you may play now"),  # not held at all
        ("trump KH", PLAY, "that is not a decision"),  # not a trump call
        ("trump S", PLAY, "trump S is not a call you may make now"),  # the wrong kind
        ("trump X", TRUMP, "that is not a decision"),
        ("play KH", TRUMP, "KH is not a card you may play now"),  # the wrong kind
        ("discard 6C 7C 2S", DISCARD, "choose exactly 4 different cards"),
        ("discard 6C 6C 2S 5S", DISCARD, "choose exactly 4 different cards"),
        ("discard 6C 7C 2S QD", DISCARD, "you may discard only cards you hold"),
        ("give 2S | TC", GIVE, "give exactly the number of cards"),
        ("give 2S 5S | 5S", GIVE, "you may give only different cards you hold"),
        ("give 2S QD | TC", GIVE, "you may give only different cards you hold"),
        ("", PLAY, "that is not a decision"),
        ("play <script>", PLAY, "that is not a decision"),
    ],
)
def test_a_forged_answer_is_refused_in_one_line(
    text: str, pending: dict[str, Any], why: str
) -> None:
    refused = refusal(text, pending, HAND)
    assert refused is not None and why in refused
    assert "\n" not in refused
