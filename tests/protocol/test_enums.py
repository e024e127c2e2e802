"""The wire enum tables of ``arena/protocol/enums.py``: each is declared once (engine value
-> wire value) and its reverse derived, so these checks are what keep the two directions
honest.

Every table must cover its engine enum and its ``arena.proto`` enum completely (a member
added on one side only is caught here, not by a bot in a tournament), pair values of the
same name (a swapped pair is caught), decode what it encodes, and reject UNSPECIFIED and
unknown numbers. A table that is not one-to-one is refused when it is built; the control
shows that deriving the reverse the old way silently lost a value.
"""

from __future__ import annotations

from collections.abc import Hashable
from enum import Enum
from typing import Any

import pytest

from arena.game.cards import Trump
from arena.protocol import enums
from arena.protocol.enums import WireEnum
from arena.protocol.wire import ProtocolError
from arena.v1 import arena_pb2 as pb

TABLES: dict[str, WireEnum[Any, Any]] = {
    name: value for name, value in vars(enums).items() if isinstance(value, WireEnum)
}


def _wire_names(table: WireEnum[Any, Any]) -> dict[int, str]:
    """Number -> name of every value of the table's proto enum."""
    descriptor = pb.DESCRIPTOR.enum_types_by_name[table.name]
    return {value.number: value.name for value in descriptor.values}


def _engine_name(value: Hashable) -> str:
    return value.name if isinstance(value, Enum) else str(value).upper()


def _uncovered(table: WireEnum[Any, Any]) -> set[str]:
    """Engine members and wire values (but UNSPECIFIED) that the table lacks."""
    wire = _wire_names(table)
    missing = {name for number, name in wire.items() if number != 0} - {
        wire[int(w)] for w in table.table.values()
    }
    engine_types = {type(value) for value in table.table}
    for kind in engine_types:
        if issubclass(kind, Enum):
            missing |= {repr(member) for member in kind if member not in table.table}
    return missing


def _mismatched(table: WireEnum[Any, Any]) -> dict[str, str]:
    """Pairs whose wire name is not the enum's prefix plus the engine value's name."""
    wire = _wire_names(table)
    prefix = wire[0].removesuffix("UNSPECIFIED")
    return {
        _engine_name(value): wire[int(number)]
        for value, number in table.table.items()
        if wire[int(number)] != prefix + _engine_name(value)
    }


def test_every_wire_enum_has_one_table() -> None:
    assert sorted(t.name for t in TABLES.values()) == sorted(pb.DESCRIPTOR.enum_types_by_name)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_covers_both_sides_and_pairs_by_name(name: str) -> None:
    table = TABLES[name]
    assert _uncovered(table) == set()
    assert _mismatched(table) == {}
    assert len({type(value) for value in table.table}) == 1


@pytest.mark.parametrize("name", sorted(TABLES))
def test_decode_reverses_encode_and_rejects_the_rest(name: str) -> None:
    table = TABLES[name]
    for value in table.table:
        assert table.decode(int(table.encode(value)), "x") == value
    for bad in (0, max(_wire_names(table)) + 1, -1):
        with pytest.raises(ProtocolError, match=rf"^msg\.field: invalid enum value {bad}$"):
            table.decode(bad, "msg.field")


def test_the_checks_catch_a_missing_and_a_swapped_value() -> None:
    """Control: the coverage and name checks above can fail."""
    partial = WireEnum("Trump", {Trump.S: pb.TRUMP_S, Trump.H: pb.TRUMP_H})
    missing = {"TRUMP_D", "TRUMP_C", "TRUMP_NT", repr(Trump.D), repr(Trump.C), repr(Trump.NT)}
    assert _uncovered(partial) == missing
    swapped = WireEnum("Trump", {Trump.S: pb.TRUMP_H, Trump.H: pb.TRUMP_S})
    assert _mismatched(swapped) == {"S": "TRUMP_H", "H": "TRUMP_S"}


def test_a_table_that_is_not_one_to_one_is_refused() -> None:
    doubled = {Trump.S: pb.TRUMP_S, Trump.H: pb.TRUMP_S}
    with pytest.raises(ValueError, match="Trump: the table is not one-to-one"):
        WireEnum("Trump", doubled)
    # Control: the reverse the old module derived from such a table kept one value and
    # dropped the other without a word.
    old_reverse = {int(wire): value for value, wire in doubled.items()}
    assert old_reverse == {int(pb.TRUMP_S): Trump.H}


def test_unspecified_cannot_stand_for_an_engine_value() -> None:
    with pytest.raises(ValueError, match="wire value 0 is UNSPECIFIED"):
        WireEnum("Trump", {Trump.S: pb.TRUMP_UNSPECIFIED})
