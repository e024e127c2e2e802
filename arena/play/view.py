"""What the Play page shows a person: their seat's observation as JSON, and the decision
asked of them with its options and a one-line explanation.

Pure, and built from :class:`~arena.game.observation.Observation` alone: the page can show
nothing its seat may not know, because nothing else ever reaches it (the tests plant a
card to show their check would catch one).
"""

from __future__ import annotations

from typing import Any, Final

from arena.game.actions import DecisionKind
from arena.game.observation import Observation, Request, TrickView

VIEW_FORMAT: Final = "arena952.seat/1"
DECISION_FORMAT: Final = "arena952.decision/1"


def seat_view(
    obs: Observation, players: list[str], previous: Observation | None = None
) -> dict[str, Any]:
    """The seat's table as JSON: its own cards, the public facts, and the last trick's
    winner (also the last trick of the hand just ended, read from the hand's summary and
    the trick counts before it: the next observation no longer holds that trick)."""
    return {
        "format": VIEW_FORMAT,
        "seat": obs.seat,
        "players": players,
        "ruleset": obs.ruleset,
        "hand_number": obs.hand_number,
        "dealer": obs.dealer,
        "phase": obs.phase.value,
        "to_act": obs.to_act,
        "contracts": list(obs.contracts),
        "scores": list(obs.scores),
        "trump": None if obs.trump is None else str(obs.trump),
        "hand": [str(c) for c in sorted(obs.hand)],
        "kitty": None if obs.kitty is None else [str(c) for c in obs.kitty],
        "discards": None if obs.discards is None else [str(c) for c in obs.discards],
        "exchange": [
            {
                "giver": leg.giver,
                "receiver": leg.receiver,
                "count": leg.count,
                "status": leg.status,
                "given": None if leg.given is None else [str(c) for c in leg.given],
                "returned": None if leg.returned is None else [str(c) for c in leg.returned],
            }
            for leg in obs.exchange
        ],
        "tricks": [_trick(t) for t in obs.tricks],
        "current_trick": None if obs.current_trick is None else _trick(obs.current_trick),
        "tricks_won": list(obs.tricks_won),
        "last_trick": _last_trick(obs, previous),
        "history": [
            {
                "number": h.number,
                "contracts": list(h.contracts),
                "trump": str(h.trump),
                "tricks_won": list(h.tricks_won),
                "deltas": list(h.deltas),
                "scores": list(h.scores),
            }
            for h in obs.history
        ],
        "result": None
        if obs.result is None
        else {
            "winners": list(obs.result.winners),
            "scores": list(obs.result.scores),
            "reason": obs.result.reason.value,
        },
    }


def _trick(trick: TrickView) -> dict[str, Any]:
    return {"leader": trick.leader, "cards": [str(c) for c in trick.cards], "winner": trick.winner}


def _last_trick(obs: Observation, previous: Observation | None) -> dict[str, Any] | None:
    """``{"hand", "number", "winner"}`` of the latest finished trick the seat knows of."""
    if obs.tricks:
        return {"hand": obs.hand_number, "number": len(obs.tricks), "winner": obs.tricks[-1].winner}
    ended = previous is not None and previous.hand_number != obs.hand_number
    if ended and previous is not None and obs.history:
        summary = obs.history[-1]
        before = previous.tricks_won
        winners = [s for s in range(3) if summary.tricks_won[s] > before[s]]
        if len(winners) == 1 and sum(summary.tricks_won) == sum(before) + 1:
            return {"hand": summary.number, "number": sum(summary.tricks_won), "winner": winners[0]}
    return None


def pending_decision(
    obs: Observation, number: int, deadline: float, players: list[str]
) -> dict[str, Any]:
    """Decision *number* asked of the seat: its kind, the options the rules allow, one line
    saying what the choice is, and its *deadline* (epoch seconds)."""
    request = obs.request
    assert request is not None, "a decision is asked only of the seat to act"
    return {
        "format": DECISION_FORMAT,
        "hand_number": obs.hand_number,
        "no": number,
        "kind": request.kind.value,
        "cards": [str(c) for c in request.cards],
        "trump_options": [str(t) for t in request.trump_options],
        "give_legs": [[receiver, count] for receiver, count in request.give_legs],
        "discard_count": request.discard_count,
        "explain": explain(request, players),
        "deadline": deadline,
    }


def explain(request: Request, players: list[str]) -> str:
    """What the choice is, in one line."""
    if request.kind is DecisionKind.GIVE:
        legs = " and ".join(f"{count} to {players[seat]}" for seat, count in request.give_legs)
        return (
            f"Exchange: you beat your contract last hand, so you give {legs}; for each card "
            "you give, the receiver hands back the highest card they then hold in that suit."
        )
    if request.kind is DecisionKind.TRUMP:
        return "Trump: you are the dealer, so you name trump (a suit, or NT for no trump)."
    if request.kind is DecisionKind.DISCARD:
        return (
            f"Discard: you hold the kitty too; lay {request.discard_count} of your cards "
            "face down, out of this hand (nobody else sees them)."
        )
    return "Play a card: follow the suit led if you can; only the cards you may play are lit."
