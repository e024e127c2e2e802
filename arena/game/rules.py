"""The RuleSet: every parameter of docs/rules.md section 2, its validation, and the six presets.

A RuleSet is frozen: a game is played under one set of rules from start to end, and the
full parameter set is written into every record so a record stays checkable even if a
preset changes later.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final


class RuleSetError(ValueError):
    """Raised for an unknown preset or a contradictory or malformed parameter set."""


class Step(Enum):
    """Pre-play steps of a hand (docs/rules.md 1.5)."""

    TRUMP = "TRUMP"
    KITTY = "KITTY"
    EXCHANGE = "EXCHANGE"
    GIVE = "GIVE"
    RETURN = "RETURN"


class FirstLeader(Enum):
    """Who leads trick 1."""

    LEFT_OF_DEALER = "left_of_dealer"
    DEALER = "dealer"


class GiverPriority(Enum):
    """Order of two givers when two players are up (docs/rules.md 4.4)."""

    UPCOMING_CONTRACT = "upcoming_contract"
    MOST_OVERTRICKS = "most_overtricks"


class NegativeRole(Enum):
    """What reaching ``negative_target`` means (docs/rules.md 7)."""

    ENDS_GAME = "ends_game"
    OBJECTIVE = "objective"


class WinnerRule(Enum):
    """How the winner is picked when the game ends (docs/rules.md 7.2)."""

    HIGHEST = "highest"
    LARGEST_EXCESS = "largest_excess"


class TieRule(Enum):
    """What happens when the winner rule leaves a tie (docs/rules.md 7.3)."""

    EXTRA_HANDS = "extra_hands"
    DRAW = "draw"
    POSITIVE_SIDE = "positive_side"


CUSTOM: Final = "custom"


@dataclass(frozen=True)
class RuleSet:
    """One complete, validated set of game parameters (docs/rules.md section 2)."""

    name: str
    """Preset id of docs/rules.md 2.1, or ``custom``."""
    contracts: tuple[int, int, int]
    """Contracts of (dealer, dealer's left, dealer's right): (9, 5, 2) or (9, 2, 5)."""
    allow_no_trump: bool
    """Whether the dealer may call no trump."""
    first_hand_steps: tuple[Step, ...]
    """Pre-play order on hand 1, over TRUMP and KITTY."""
    later_hand_steps: tuple[Step, ...]
    """Pre-play order on later hands: TRUMP, KITTY and EXCHANGE (or GIVE ... RETURN)."""
    first_leader: FirstLeader
    """Who leads trick 1."""
    giver_priority: GiverPriority
    """Order of two givers."""
    exchange_mandatory: bool
    """Givers must give their full count (true in every preset; false is not supported)."""
    dealer_show: bool
    """Dealer privately shows kitty cards that outrank what he returned (section 5)."""
    target: int
    """Positive score that ends the game."""
    negative_target: int | None
    """Negative score that ends the game, or ``None``."""
    negative_role: NegativeRole | None
    """Meaning of ``negative_target``; ``None`` exactly when there is none."""
    winner_rule: WinnerRule
    """How the winner is picked."""
    tie_rule: TieRule
    """What happens on a tie at the top."""
    max_hands: int = 99
    """Safety cap on the number of hands (section 7.4)."""
    first_dealer: int | None = None
    """A fixed first dealer seat, or ``None`` for a seeded random draw."""

    def __post_init__(self) -> None:
        _validate(self)

    @functools.cached_property
    def uses_split_exchange(self) -> bool:
        """True when the exchange is split into GIVE and RETURN around other steps."""
        return Step.GIVE in self.later_hand_steps

    def contracts_for(self, dealer: int) -> tuple[int, int, int]:
        """Contract per seat for a hand dealt by *dealer*."""
        out = [0, 0, 0]
        out[dealer] = self.contracts[0]
        out[(dealer + 1) % 3] = self.contracts[1]
        out[(dealer + 2) % 3] = self.contracts[2]
        return (out[0], out[1], out[2])

    def to_json(self) -> dict[str, Any]:
        """All parameters with the names and JSON values of docs/rules.md section 2."""
        return {
            "contracts": list(self.contracts),
            "allow_no_trump": self.allow_no_trump,
            "first_hand_steps": [s.value for s in self.first_hand_steps],
            "later_hand_steps": [s.value for s in self.later_hand_steps],
            "first_leader": self.first_leader.value,
            "giver_priority": self.giver_priority.value,
            "exchange_mandatory": self.exchange_mandatory,
            "dealer_show": self.dealer_show,
            "target": self.target,
            "negative_target": self.negative_target,
            "negative_role": None if self.negative_role is None else self.negative_role.value,
            "winner_rule": self.winner_rule.value,
            "tie_rule": self.tie_rule.value,
            "max_hands": self.max_hands,
            "first_dealer": "random" if self.first_dealer is None else self.first_dealer,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], name: str = CUSTOM) -> RuleSet:
        """Build a RuleSet from the JSON form of :meth:`to_json`.

        :raises RuleSetError: on a missing, unknown or invalid parameter.
        """
        expected = set(_PARAMETERS)
        given = set(data)
        if given - expected:
            raise RuleSetError(f"unknown rule parameter(s): {', '.join(sorted(given - expected))}")
        missing = expected - given - {"max_hands", "first_dealer"}
        if missing:
            raise RuleSetError(f"missing rule parameter(s): {', '.join(sorted(missing))}")
        try:
            first_dealer_raw = data.get("first_dealer", "random")
            return cls(
                name=name,
                contracts=_int_triple(data["contracts"]),
                allow_no_trump=_bool(data["allow_no_trump"], "allow_no_trump"),
                first_hand_steps=tuple(Step(s) for s in data["first_hand_steps"]),
                later_hand_steps=tuple(Step(s) for s in data["later_hand_steps"]),
                first_leader=FirstLeader(data["first_leader"]),
                giver_priority=GiverPriority(data["giver_priority"]),
                exchange_mandatory=_bool(data["exchange_mandatory"], "exchange_mandatory"),
                dealer_show=_bool(data["dealer_show"], "dealer_show"),
                target=_int(data["target"], "target"),
                negative_target=(
                    None
                    if data["negative_target"] is None
                    else _int(data["negative_target"], "negative_target")
                ),
                negative_role=(
                    None if data["negative_role"] is None else NegativeRole(data["negative_role"])
                ),
                winner_rule=WinnerRule(data["winner_rule"]),
                tie_rule=TieRule(data["tie_rule"]),
                max_hands=_int(data.get("max_hands", 99), "max_hands"),
                first_dealer=(
                    None if first_dealer_raw == "random" else _int(first_dealer_raw, "first_dealer")
                ),
            )
        except (TypeError, ValueError, KeyError) as exc:
            if isinstance(exc, RuleSetError):
                raise
            raise RuleSetError(f"invalid rule parameter: {exc}") from None

    def replace(self, **changes: Any) -> RuleSet:
        """A validated copy with some parameters changed (the name becomes ``custom``)."""
        changes.setdefault("name", CUSTOM)
        return dataclasses.replace(self, **changes)


_PARAMETERS: Final = (
    "contracts",
    "allow_no_trump",
    "first_hand_steps",
    "later_hand_steps",
    "first_leader",
    "giver_priority",
    "exchange_mandatory",
    "dealer_show",
    "target",
    "negative_target",
    "negative_role",
    "winner_rule",
    "tie_rule",
    "max_hands",
    "first_dealer",
)


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleSetError(f"{name} must be an integer, not {value!r}")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise RuleSetError(f"{name} must be true or false, not {value!r}")
    return value


def _int_triple(value: Any) -> tuple[int, int, int]:
    if not isinstance(value, list | tuple) or len(value) != 3:
        raise RuleSetError(f"contracts must be three integers, not {value!r}")
    a, b, c = (_int(v, "contracts") for v in value)
    return (a, b, c)


def _validate(rules: RuleSet) -> None:
    """Reject contradictory parameter sets with one clear sentence."""
    _validate_steps(rules)
    _validate_ending(rules)


def _validate_steps(rules: RuleSet) -> None:
    if rules.contracts not in ((9, 5, 2), (9, 2, 5)):
        raise RuleSetError(f"contracts must be (9, 5, 2) or (9, 2, 5), not {rules.contracts}")
    first = rules.first_hand_steps
    if sorted(s.value for s in first) != ["KITTY", "TRUMP"]:
        raise RuleSetError("first_hand_steps must hold TRUMP and KITTY once each, nothing else")
    later = rules.later_hand_steps
    kinds = sorted(s.value for s in later)
    if kinds == ["EXCHANGE", "KITTY", "TRUMP"]:
        pass
    elif kinds == ["GIVE", "KITTY", "RETURN", "TRUMP"]:
        if later.index(Step.GIVE) > later.index(Step.RETURN):
            raise RuleSetError("later_hand_steps: GIVE must come before RETURN")
    else:
        raise RuleSetError(
            "later_hand_steps must hold TRUMP, KITTY and either EXCHANGE or GIVE and RETURN, "
            "each once"
        )
    if not rules.exchange_mandatory:
        raise RuleSetError(
            "exchange_mandatory = false is not supported: every preset makes giving compulsory "
            "(docs/rules.md A9)"
        )
    if rules.dealer_show:
        kitty_at = later.index(Step.KITTY)
        exchange_at = later.index(Step.EXCHANGE if Step.EXCHANGE in later else Step.RETURN)
        if exchange_at > kitty_at:
            raise RuleSetError(
                "dealer_show needs the exchange before KITTY in later_hand_steps (docs/rules.md 5)"
            )


def _validate_ending(rules: RuleSet) -> None:
    if rules.target <= 0:
        raise RuleSetError(f"target must be positive, not {rules.target}")
    if rules.negative_target is None:
        if rules.negative_role is not None:
            raise RuleSetError("negative_role is set but negative_target is None")
    else:
        if rules.negative_target >= 0:
            raise RuleSetError(f"negative_target must be negative, not {rules.negative_target}")
        if rules.negative_role is None:
            raise RuleSetError("negative_target is set but negative_role is None")
    if rules.winner_rule is WinnerRule.LARGEST_EXCESS:
        if rules.tie_rule is TieRule.EXTRA_HANDS:
            raise RuleSetError("winner_rule largest_excess takes tie_rule draw or positive_side")
    elif rules.tie_rule is TieRule.POSITIVE_SIDE:
        raise RuleSetError("tie_rule positive_side only applies to winner_rule largest_excess")
    if rules.negative_role is NegativeRole.OBJECTIVE and rules.winner_rule is WinnerRule.HIGHEST:
        raise RuleSetError("negative_role objective needs winner_rule largest_excess")
    if rules.max_hands < 1:
        raise RuleSetError(f"max_hands must be at least 1, not {rules.max_hands}")
    if rules.first_dealer is not None and rules.first_dealer not in (0, 1, 2):
        raise RuleSetError(f"first_dealer must be 'random' or a seat 0-2, not {rules.first_dealer}")


CLASSIC: Final = RuleSet(
    name="classic",
    contracts=(9, 5, 2),
    allow_no_trump=True,
    first_hand_steps=(Step.TRUMP, Step.KITTY),
    later_hand_steps=(Step.EXCHANGE, Step.TRUMP, Step.KITTY),
    first_leader=FirstLeader.LEFT_OF_DEALER,
    giver_priority=GiverPriority.UPCOMING_CONTRACT,
    exchange_mandatory=True,
    dealer_show=False,
    target=10,
    negative_target=None,
    negative_role=None,
    winner_rule=WinnerRule.HIGHEST,
    tie_rule=TieRule.EXTRA_HANDS,
)

# Each other preset is written as its differences from classic (docs/rules.md 2.1).
PRESETS: Final[Mapping[str, RuleSet]] = {
    r.name: r
    for r in (
        CLASSIC,
        dataclasses.replace(
            CLASSIC,
            name="classic-show",
            allow_no_trump=False,
            giver_priority=GiverPriority.MOST_OVERTRICKS,
            dealer_show=True,
        ),
        dataclasses.replace(
            CLASSIC,
            name="classic-pm15",
            target=15,
            negative_target=-15,
            negative_role=NegativeRole.ENDS_GAME,
        ),
        dataclasses.replace(
            CLASSIC,
            name="nine-two-five",
            contracts=(9, 2, 5),
            later_hand_steps=(Step.TRUMP, Step.EXCHANGE, Step.KITTY),
            first_leader=FirstLeader.DEALER,
            target=15,
            negative_target=-15,
            negative_role=NegativeRole.ENDS_GAME,
        ),
        dataclasses.replace(
            CLASSIC,
            name="catalan",
            allow_no_trump=False,
            dealer_show=True,
            tie_rule=TieRule.DRAW,
        ),
        dataclasses.replace(
            CLASSIC,
            name="catalan-plus-minus",
            contracts=(9, 2, 5),
            allow_no_trump=False,
            first_hand_steps=(Step.KITTY, Step.TRUMP),
            later_hand_steps=(Step.KITTY, Step.GIVE, Step.TRUMP, Step.RETURN),
            target=15,
            negative_target=-15,
            negative_role=NegativeRole.OBJECTIVE,
            winner_rule=WinnerRule.LARGEST_EXCESS,
            tie_rule=TieRule.POSITIVE_SIDE,
        ),
    )
}
"""The six presets of docs/rules.md 2.1, by id."""


def get_ruleset(name: str) -> RuleSet:
    """The preset with id *name*.

    :raises RuleSetError: if there is no such preset.
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise RuleSetError(
            f"unknown ruleset {name!r}; choose one of: {', '.join(PRESETS)}"
        ) from None
