"""Shared helpers of the protocol tests: card lists from text, a trip through bytes, and
rule sets beyond the presets."""

from __future__ import annotations

from typing import Any

from arena.game import PRESETS
from arena.game.cards import Card, parse_cards
from arena.game.rules import RuleSet


def cards(text: str) -> tuple[Card, ...]:
    """``"KS 9S"`` -> the cards, in order."""
    return parse_cards(text.split())


def wire(message: Any) -> Any:
    """Serialise and parse again, as the transport does (presence must survive bytes)."""
    return type(message).FromString(message.SerializeToString())


def rule_variants() -> list[RuleSet]:
    """Every preset, plus variants with a fixed first dealer and a hand cap."""
    out = list(PRESETS.values())
    out.append(PRESETS["classic"].replace(first_dealer=2, max_hands=30))
    out.append(PRESETS["catalan-plus-minus"].replace(first_dealer=0))
    return out
