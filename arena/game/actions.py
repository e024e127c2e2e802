"""Decisions as values: what a seat may be asked for and what it answers.

The engine's step-level actions are single cards and trump calls (so the action space
has 57 values and legal actions can be listed); a *decision* is what a player actually
decides in docs/rules.md section 3: a whole give, a trump call, a whole discard or a play.
The referee and the bots speak in decisions; the engine turns a decision into its steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias

from arena.game.cards import Card, InvalidCardError, Trump, parse_cards


class DecisionKind(Enum):
    """The four player decisions of docs/rules.md section 3."""

    GIVE = "give"
    TRUMP = "trump"
    DISCARD = "discard"
    PLAY = "play"


@dataclass(frozen=True, slots=True)
class Give:
    """The cards a giver hands over, one tuple per leg in the order of the exchange plan."""

    legs: tuple[tuple[Card, ...], ...]

    def __str__(self) -> str:
        return "give " + " | ".join(" ".join(str(c) for c in leg) for leg in self.legs)


@dataclass(frozen=True, slots=True)
class CallTrump:
    """The dealer's trump call."""

    trump: Trump

    def __str__(self) -> str:
        return f"trump {self.trump}"


@dataclass(frozen=True, slots=True)
class Discard:
    """The dealer's four discards."""

    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return "discard " + " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class Play:
    """One card played to the current trick."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card}"


Decision: TypeAlias = Give | CallTrump | Discard | Play
"""Any answer to a decision request."""

Action: TypeAlias = Card | Trump
"""A step-level engine action: a card (give, discard or play one card) or a trump call."""


def parse_decision(text: str) -> Decision:
    """Parse the text form of a decision (``play TS``, ``trump NT``, ``discard 2C 3C 4C 5C``,
    ``give 3S 6H | 4D``).

    :raises InvalidCardError: if the text is not a decision.
    """
    verb, _, rest = text.strip().partition(" ")
    rest = rest.strip()
    if verb == "play":
        return Play(Card.parse(rest))
    if verb == "trump":
        return CallTrump(Trump.parse(rest))
    if verb == "discard":
        return Discard(parse_cards(rest.split()))
    if verb == "give":
        return Give(tuple(parse_cards(part.split()) for part in rest.split("|")))
    raise InvalidCardError(f"not a decision: {text!r}")
