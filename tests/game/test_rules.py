"""RuleSets: the six presets of docs/rules.md 2.1, custom rulesets and their validation."""

from __future__ import annotations

import pytest

from arena.game import PRESETS, RuleSet, RuleSetError, get_ruleset
from arena.game.rules import GiverPriority, NegativeRole, Step, TieRule, WinnerRule

# docs/rules.md 2.2, the reference encoding, transcribed as JSON.
REFERENCE = {
    "classic": ([9, 5, 2], True, "TRUMP KITTY", "EXCHANGE TRUMP KITTY", "left_of_dealer",
                "upcoming_contract", False, 10, None, None, "highest", "extra_hands"),
    "classic-show": ([9, 5, 2], False, "TRUMP KITTY", "EXCHANGE TRUMP KITTY", "left_of_dealer",
                     "most_overtricks", True, 10, None, None, "highest", "extra_hands"),
    "classic-pm15": ([9, 5, 2], True, "TRUMP KITTY", "EXCHANGE TRUMP KITTY", "left_of_dealer",
                     "upcoming_contract", False, 15, -15, "ends_game", "highest", "extra_hands"),
    "nine-two-five": ([9, 2, 5], True, "TRUMP KITTY", "TRUMP EXCHANGE KITTY", "dealer",
                      "upcoming_contract", False, 15, -15, "ends_game", "highest", "extra_hands"),
    "catalan": ([9, 5, 2], False, "TRUMP KITTY", "EXCHANGE TRUMP KITTY", "left_of_dealer",
                "upcoming_contract", True, 10, None, None, "highest", "draw"),
    "catalan-plus-minus": ([9, 2, 5], False, "KITTY TRUMP", "KITTY GIVE TRUMP RETURN",
                           "left_of_dealer", "upcoming_contract", False, 15, -15, "objective",
                           "largest_excess", "positive_side"),
}  # fmt: skip


@pytest.mark.parametrize("preset", list(REFERENCE))
def test_presets_match_rules_md(preset: str) -> None:
    (contracts, no_trump, first, later, leader, priority, show, target, negative, role,
     winner, tie) = REFERENCE[preset]  # fmt: skip
    assert PRESETS[preset].to_json() == {
        "contracts": contracts,
        "allow_no_trump": no_trump,
        "first_hand_steps": first.split(),
        "later_hand_steps": later.split(),
        "first_leader": leader,
        "giver_priority": priority,
        "exchange_mandatory": True,
        "dealer_show": show,
        "target": target,
        "negative_target": negative,
        "negative_role": role,
        "winner_rule": winner,
        "tie_rule": tie,
        "max_hands": 99,
        "first_dealer": "random",
    }


def test_exactly_six_presets() -> None:
    assert list(PRESETS) == list(REFERENCE)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_json_round_trip(preset: str) -> None:
    rules = PRESETS[preset]
    assert RuleSet.from_json(rules.to_json(), name=preset) == rules


def test_custom_ruleset_can_be_built() -> None:
    rules = PRESETS["classic"].replace(target=20, max_hands=30, first_dealer=2)
    assert rules.name == "custom" and rules.target == 20 and rules.first_dealer == 2
    assert RuleSet.from_json(rules.to_json()) == rules


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"contracts": (9, 4, 3)}, "contracts"),
        ({"first_hand_steps": (Step.TRUMP,)}, "first_hand_steps"),
        ({"first_hand_steps": (Step.TRUMP, Step.KITTY, Step.EXCHANGE)}, "first_hand_steps"),
        ({"later_hand_steps": (Step.TRUMP, Step.KITTY)}, "later_hand_steps"),
        (
            {"later_hand_steps": (Step.KITTY, Step.RETURN, Step.TRUMP, Step.GIVE)},
            "GIVE must come before RETURN",
        ),
        ({"later_hand_steps": (Step.TRUMP, Step.KITTY, Step.EXCHANGE)}, "dealer_show"),
        ({"exchange_mandatory": False}, "not supported"),
        ({"target": 0}, "target"),
        ({"negative_target": 5}, "negative_target"),
        ({"negative_target": -15}, "negative_role is None"),
        ({"negative_role": NegativeRole.ENDS_GAME}, "negative_target is None"),
        ({"tie_rule": TieRule.POSITIVE_SIDE}, "positive_side"),
        ({"winner_rule": WinnerRule.LARGEST_EXCESS}, "largest_excess"),
        ({"max_hands": 0}, "max_hands"),
        ({"first_dealer": 3}, "first_dealer"),
    ],
)
def test_contradictory_parameters_are_refused(changes: dict[str, object], message: str) -> None:
    base = PRESETS["classic-show"]  # dealer_show = True, to test its constraint too
    with pytest.raises(RuleSetError, match=message):
        base.replace(**changes)


def test_objective_needs_largest_excess() -> None:
    with pytest.raises(RuleSetError, match="objective"):
        PRESETS["classic-pm15"].replace(negative_role=NegativeRole.OBJECTIVE)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**PRESETS["classic"].to_json(), "bogus": 1}, "unknown rule parameter"),
        ({k: v for k, v in PRESETS["classic"].to_json().items() if k != "target"}, "missing"),
        ({**PRESETS["classic"].to_json(), "target": "10"}, "integer"),
        ({**PRESETS["classic"].to_json(), "giver_priority": "loudest"}, "invalid"),
        ({**PRESETS["classic"].to_json(), "dealer_show": 1}, "true or false"),
    ],
)
def test_bad_json_gives_a_clear_error(data: dict[str, object], message: str) -> None:
    with pytest.raises(RuleSetError, match=message):
        RuleSet.from_json(data)


def test_unknown_preset() -> None:
    with pytest.raises(RuleSetError, match="unknown ruleset 'bridge'; choose one of: classic"):
        get_ruleset("bridge")


def test_giver_priority_enum_values() -> None:
    assert {p.value for p in GiverPriority} == {"upcoming_contract", "most_overtricks"}
