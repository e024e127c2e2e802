"""What every onlooker may know of a game in play: the facts all three seats share.

The live feed (docs/live.md) shows games while they are played, to anyone who may open the
dashboard, so it must carry only what is public at that moment: the contracts, the
exchange plan with counts (never its cards), trump once called, the cards played, tricks
and scores. A hand, the kitty, the discards, a dealer's show and exchanged cards are each
known to one or two seats and are never part of it. :func:`public_view` is built from
:func:`arena.game.observation.observe`, keeping only the fields that are the same for
every seat, so the rules of who sees what stay in one place; the tests compare it with
all three seats' observations at every decision.
"""

from __future__ import annotations

from typing import Any, Final

from arena.game.observation import Observation, TrickView, observe
from arena.game.state import GameState

PUBLIC_VIEW_FORMAT: Final = "arena952.public/1"
"""The ``format`` of a public view (bump it when a field changes meaning)."""


def public_view(state: GameState) -> dict[str, Any]:
    """The public facts of *state* as a JSON-ready dict (cards as ids such as ``"TS"``).

    Pure and deterministic; it contains nothing that any single seat alone knows.
    """
    obs = observe(state, state.hand.dealer)  # any seat: only shared fields are kept
    return {
        "format": PUBLIC_VIEW_FORMAT,
        "ruleset": obs.ruleset,
        "hand_number": obs.hand_number,
        "dealer": obs.dealer,
        "phase": obs.phase.value,
        "to_act": obs.to_act,
        "contracts": list(obs.contracts),
        "scores": list(obs.scores),
        "previous_deltas": None if obs.previous_deltas is None else list(obs.previous_deltas),
        "exchange": [
            {"giver": leg.giver, "receiver": leg.receiver, "count": leg.count, "status": leg.status}
            for leg in obs.exchange
        ],
        "trump": None if obs.trump is None else str(obs.trump),
        "kitty_taken": obs.kitty_taken,
        "discard_done": obs.discard_done,
        "tricks": [_trick(trick) for trick in obs.tricks],
        "current_trick": None if obs.current_trick is None else _trick(obs.current_trick),
        "tricks_won": list(obs.tricks_won),
        "history": _history(obs),
        "result": _result(obs),
    }


def _trick(trick: TrickView) -> dict[str, Any]:
    return {"leader": trick.leader, "cards": [str(c) for c in trick.cards], "winner": trick.winner}


def _history(obs: Observation) -> list[dict[str, Any]]:
    return [
        {
            "number": h.number,
            "dealer": h.dealer,
            "contracts": list(h.contracts),
            "trump": str(h.trump),
            "tricks_won": list(h.tricks_won),
            "deltas": list(h.deltas),
            "scores": list(h.scores),
        }
        for h in obs.history
    ]


def _result(obs: Observation) -> dict[str, Any] | None:
    result = obs.result
    if result is None:
        return None
    return {
        "winners": list(result.winners),
        "reason": result.reason.value,
        "scores": list(result.scores),
        "hands_played": result.hands_played,
    }


def public_cards(view: dict[str, Any]) -> set[str]:
    """Every card id that *view* names (the tests check each is known to all seats)."""
    tricks = list(view["tricks"])
    if view["current_trick"] is not None:
        tricks.append(view["current_trick"])
    return {card for trick in tricks for card in trick["cards"]}
