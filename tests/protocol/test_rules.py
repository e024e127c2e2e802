"""Round trips of the rules of a game through ``arena.v1``, presets and variants alike."""

from __future__ import annotations

import pytest

from arena.game.rules import RuleSet
from arena.protocol.rules import rules_from_proto, rules_to_proto
from tests.protocol.protocol_support import rule_variants, wire


@pytest.mark.parametrize("rules", rule_variants(), ids=lambda r: f"{r.name}-{r.first_dealer}")
def test_rules_round_trip(rules: RuleSet) -> None:
    msg = wire(rules_to_proto(rules))
    assert msg.HasField("negative_target") == (rules.negative_target is not None)
    assert msg.HasField("first_dealer") == (rules.first_dealer is not None)
    assert rules_from_proto(msg) == rules
