"""The check every live test shares: which cards of a public view are not public.

A card is public at a moment when all three seats' observations show it (a played card);
one that only some seats know (a hand, the kitty, the discards, a show, exchanged cards) or
none must never be in a public view. The view's cards are found by walking all of its text,
not only the fields meant to hold cards, so a leak anywhere is caught.
"""

from __future__ import annotations

from typing import Any

from arena.game.cards import CARDS
from arena.game.observation import Observation, observe
from arena.game.state import GameState

CARD_IDS = frozenset(str(card) for card in CARDS)


def seat_knows(obs: Observation) -> set[str]:
    """Every card whose place *obs*'s seat may know."""
    cards: set[Any] = set(obs.hand) | set(obs.dealt) | set(obs.pending_give)
    cards |= set(obs.kitty or ()) | set(obs.discards or ())
    for show in obs.shown:
        cards |= set(show.cards)
    for leg in obs.exchange:
        cards |= set(leg.given or ()) | set(leg.returned or ())
    tricks = list(obs.tricks) + ([obs.current_trick] if obs.current_trick else [])
    for trick in tricks:
        cards |= set(trick.cards)
    return {str(card) for card in cards}


def cards_named(data: Any) -> set[str]:
    """Every card id anywhere in *data* (JSON-like), as a string or inside one."""
    if isinstance(data, dict):
        return set().union(*(cards_named(v) | cards_named(k) for k, v in data.items()))
    if isinstance(data, list | tuple):
        return set().union(*(cards_named(v) for v in data)) if data else set()
    if isinstance(data, str):
        return {word for word in data.replace(",", " ").split() if word in CARD_IDS}
    return set()


def not_public(view: dict[str, Any], state: GameState) -> set[str]:
    """The cards *view* names that not every seat knows at *state*."""
    shared = set.intersection(*(seat_knows(observe(state, seat)) for seat in range(3)))
    return cards_named(view) - shared
