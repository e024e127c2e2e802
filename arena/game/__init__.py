"""The pure 9-5-2 rules engine: cards, rulesets, game state, observations and records.

No I/O, no processes, no network: everything here is deterministic given a seed and the
players' decisions, so the referee, the simulators, the tests and Monte-Carlo bots all
run the same rules. (The one exception is at import: reading whether an optional
compiled build of the hot modules exists and matches their source.)

When a compiled build of the hot modules exists and matches their source, it is put first
on this package's path (:mod:`arena.game._native`); otherwise everything is pure Python.
"""

# ruff: noqa: E402  (the package path must be set before the other imports run)
from arena.game._native import compiled_path

__path__[:0] = compiled_path(__path__[0])  # before any compiled module is imported

from arena.game.actions import (
    Action,
    CallTrump,
    Decision,
    DecisionKind,
    Discard,
    Give,
    Play,
    parse_decision,
)
from arena.game.cards import CARDS, Card, InvalidCardError, Suit, Trump, format_cards
from arena.game.ending import EndReason, GameResult
from arena.game.exchange import Leg, plan_exchange, resolve_leg, shown_cards
from arena.game.observation import Observation, Request, observe
from arena.game.rules import PRESETS, RuleSet, RuleSetError, Step, get_ruleset
from arena.game.state import GameState, IllegalActionError, Phase, Seat, fixed_deals, new_game

__all__ = [
    "CARDS",
    "PRESETS",
    "Action",
    "CallTrump",
    "Card",
    "Decision",
    "DecisionKind",
    "Discard",
    "EndReason",
    "GameResult",
    "GameState",
    "Give",
    "IllegalActionError",
    "InvalidCardError",
    "Leg",
    "Observation",
    "Phase",
    "Play",
    "Request",
    "RuleSet",
    "RuleSetError",
    "Seat",
    "Step",
    "Suit",
    "Trump",
    "fixed_deals",
    "format_cards",
    "get_ruleset",
    "new_game",
    "observe",
    "parse_decision",
    "plan_exchange",
    "resolve_leg",
    "shown_cards",
]
