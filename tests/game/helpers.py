"""Small helpers shared by the engine tests."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

from arena.game import Card, GameState, RuleSet
from arena.game.cards import cards_in, mask_of, parse_cards


def cards(text: str) -> tuple[Card, ...]:
    """``"KS 9S"`` -> the cards, in order."""
    return parse_cards(text.split())


def mask(text: str) -> int:
    """``"KS 9S"`` -> their mask."""
    return mask_of(cards(text))


def text(m: int) -> str:
    """A mask as sorted card ids (by suit S H D C, then rank ascending)."""
    return " ".join(str(c) for c in cards_in(m))


def cards_seen(value: Any) -> set[Card]:
    """Every card anywhere inside an observation (dataclasses, tuples, nested)."""
    found: set[Card] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Card):
            found.add(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            if isinstance(item, RuleSet):
                continue
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
        elif isinstance(item, tuple | list):
            stack.extend(item)
    return found


def random_playout(state: GameState, rng: random.Random) -> Iterator[GameState]:
    """Yield the state before every step-level action of a random playout."""
    while not state.is_over:
        yield state
        state.apply(rng.choice(state.legal_actions()))
