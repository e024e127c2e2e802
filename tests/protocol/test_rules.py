"""Round trips of the rules of a game through ``arena.v1``, presets and variants alike."""

from __future__ import annotations

import pytest

from arena.game.rules import RuleSet
from arena.protocol.rules import copy_rules_into, rules_from_proto, rules_to_proto
from arena.v1 import arena_pb2 as pb
from tests.protocol.protocol_support import rule_variants, wire


@pytest.mark.parametrize("rules", rule_variants(), ids=lambda r: f"{r.name}-{r.first_dealer}")
def test_rules_round_trip(rules: RuleSet) -> None:
    msg = wire(rules_to_proto(rules))
    assert msg.HasField("negative_target") == (rules.negative_target is not None)
    assert msg.HasField("first_dealer") == (rules.first_dealer is not None)
    assert rules_from_proto(msg) == rules


def test_copied_rules_are_the_encoded_rules_and_a_copy_is_not_shared() -> None:
    """The referee copies each rule set's kept wire form into every observation: the copy
    must equal a fresh encoding, for equal rule sets that are distinct objects too, and
    changing one copy must not reach the kept form (nor the next copy)."""
    for rules in rule_variants():
        for same in (rules, rules.replace()):  # replace(): an equal, distinct object
            first, second = pb.RuleSet(), pb.RuleSet()
            copy_rules_into(first, same)
            first.target += 1  # a caller changing its copy
            copy_rules_into(second, same)
            assert second == rules_to_proto(same)
            assert first != second
