"""The rules of a game on the wire (``arena.v1.RuleSet``): every parameter as a typed field,
so a bot needs no preset table.

Decoding goes through :meth:`RuleSet.from_json`, so the wire form gets exactly the
validation a rules file gets.
"""

from __future__ import annotations

from typing import Any, Final

from arena.game.rules import RuleSet, RuleSetError
from arena.protocol import enums
from arena.protocol.wire import ProtocolError
from arena.v1 import arena_pb2 as pb


def rules_to_proto(rules: RuleSet) -> pb.RuleSet:
    """Every RuleSet parameter as typed wire fields, so a bot needs no preset table."""
    msg = pb.RuleSet(
        name=rules.name,
        contracts=rules.contracts,
        allow_no_trump=rules.allow_no_trump,
        first_hand_steps=[enums.STEP.encode(s) for s in rules.first_hand_steps],
        later_hand_steps=[enums.STEP.encode(s) for s in rules.later_hand_steps],
        first_leader=enums.FIRST_LEADER.encode(rules.first_leader),
        giver_priority=enums.GIVER_PRIORITY.encode(rules.giver_priority),
        exchange_mandatory=rules.exchange_mandatory,
        dealer_show=rules.dealer_show,
        target=rules.target,
        negative_target=rules.negative_target,
        negative_role=(
            pb.NEGATIVE_ROLE_UNSPECIFIED
            if rules.negative_role is None
            else enums.NEGATIVE_ROLE.encode(rules.negative_role)
        ),
        winner_rule=enums.WINNER_RULE.encode(rules.winner_rule),
        tie_rule=enums.TIE_RULE.encode(rules.tie_rule),
        max_hands=rules.max_hands,
        first_dealer=rules.first_dealer,
    )
    return msg


_ENCODED_KEPT: Final = 8
"""Rule sets whose wire form :func:`copy_rules_into` keeps (a process plays a few at most)."""
_encoded: dict[int, tuple[RuleSet, pb.RuleSet]] = {}
"""``id(rules)`` -> the rules and their wire form. The entry holds the rules themselves, so
their id cannot be reused by another object while it is kept."""


def copy_rules_into(target: pb.RuleSet, rules: RuleSet) -> None:
    """Write the wire form of *rules* into *target* (the ``rules`` field of an observation).

    Every observation carries the rules, and the game's rules are one frozen object, so
    each is encoded once and copied after that (a copy is a fraction of an encode). Kept
    by identity, not equality: hashing a RuleSet costs about as much as encoding it.
    """
    entry = _encoded.get(id(rules))
    if entry is None:
        if len(_encoded) >= _ENCODED_KEPT:
            _encoded.clear()
        entry = (rules, rules_to_proto(rules))
        _encoded[id(rules)] = entry
    target.CopyFrom(entry[1])


def rules_from_proto(msg: pb.RuleSet, where: str = "rules") -> RuleSet:
    """Rebuild a RuleSet through :meth:`RuleSet.from_json`, so the wire form gets exactly
    the validation a rules file gets.

    :raises ProtocolError: on an unknown enum value or a contradictory parameter set.
    """
    if not msg.name:
        raise ProtocolError(f"{where}.name is empty")
    negative_role = (
        None
        if msg.negative_role == pb.NEGATIVE_ROLE_UNSPECIFIED
        else enums.NEGATIVE_ROLE.decode(msg.negative_role, f"{where}.negative_role").value
    )
    data: dict[str, Any] = {
        "contracts": list(msg.contracts),
        "allow_no_trump": msg.allow_no_trump,
        "first_hand_steps": [
            enums.STEP.decode(s, f"{where}.first_hand_steps").value for s in msg.first_hand_steps
        ],
        "later_hand_steps": [
            enums.STEP.decode(s, f"{where}.later_hand_steps").value for s in msg.later_hand_steps
        ],
        "first_leader": enums.FIRST_LEADER.decode(msg.first_leader, f"{where}.first_leader").value,
        "giver_priority": enums.GIVER_PRIORITY.decode(
            msg.giver_priority, f"{where}.giver_priority"
        ).value,
        "exchange_mandatory": msg.exchange_mandatory,
        "dealer_show": msg.dealer_show,
        "target": msg.target,
        "negative_target": msg.negative_target if msg.HasField("negative_target") else None,
        "negative_role": negative_role,
        "winner_rule": enums.WINNER_RULE.decode(msg.winner_rule, f"{where}.winner_rule").value,
        "tie_rule": enums.TIE_RULE.decode(msg.tie_rule, f"{where}.tie_rule").value,
        "max_hands": msg.max_hands,
        "first_dealer": msg.first_dealer if msg.HasField("first_dealer") else "random",
    }
    try:
        return RuleSet.from_json(data, name=msg.name)
    except RuleSetError as exc:
        raise ProtocolError(f"{where}: {exc}") from None
