"""The Play page's check of a person's choice before it is written: the answer must be a
decision, of the kind asked, among the options asked.

The referee checks the answer again through the engine (an illegal one would be a fault,
as for a bot); this check lets the page refuse a forged or stale click in one line, with
nothing written and the same decision still asked.
"""

from __future__ import annotations

from typing import Any

from arena.game.actions import CallTrump, Decision, Discard, Play, parse_decision
from arena.game.cards import InvalidCardError


def refusal(text: str, pending: dict[str, Any], hand: list[str]) -> str | None:
    """Why the answer *text* does not answer the decision *pending* (from
    :func:`arena.play.view.pending_decision`) of a seat holding *hand*; ``None``: it does."""
    try:
        decision = parse_decision(text)
    except InvalidCardError:
        return "that is not a decision"
    return _mismatch(decision, pending, hand)


def _mismatch(decision: Decision, pending: dict[str, Any], hand: list[str]) -> str | None:
    allowed = set(pending["cards"])
    kind = pending["kind"]
    why: str | None = None
    if isinstance(decision, Play):
        if kind != "play" or str(decision.card) not in allowed:
            why = f"{decision.card} is not a card you may play now"
    elif isinstance(decision, CallTrump):
        if kind != "trump" or str(decision.trump) not in pending["trump_options"]:
            why = f"trump {decision.trump} is not a call you may make now"
    elif isinstance(decision, Discard):
        cards = {str(c) for c in decision.cards}
        wanted = pending["discard_count"]
        if kind != "discard" or len(cards) != wanted or len(decision.cards) != wanted:
            why = f"choose exactly {wanted} different cards to discard"
        elif not cards <= allowed:
            why = "you may discard only cards you hold"
    else:
        every = [str(c) for leg in decision.legs for c in leg]
        sizes = [count for _seat, count in pending["give_legs"]]
        if kind != "give" or [len(leg) for leg in decision.legs] != sizes:
            why = "give exactly the number of cards each receiver is owed"
        elif len(set(every)) != len(every) or not set(every) <= set(hand):
            why = "you may give only different cards you hold"
    return why
