"""The facade: the names the referee, the SDK, the benchmarks and the test bots import from
``arena.protocol.convert`` (and from ``arena.protocol``) are the group modules' own objects,
and every public conversion of a group module is among them, so one added to a group cannot
be left out."""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

import arena.protocol
from arena.protocol import (
    convert,
    decisions,
    enums,
    events,
    faults,
    observations,
    rules,
    wire,
)

GROUPS: tuple[ModuleType, ...] = (decisions, enums, events, faults, observations, rules, wire)


def _unexported(names: Iterable[str]) -> set[str]:
    """Public conversions defined in a group module but not in *names*."""
    defined = {
        name
        for group in GROUPS
        for name, value in vars(group).items()
        if not name.startswith("_")
        and name.endswith(("_to_proto", "_from_proto", "_from_log"))
        and getattr(value, "__module__", None) == group.__name__
    }
    return defined - set(names)


def test_the_facade_exports_every_public_conversion() -> None:
    assert _unexported(convert.__all__) == set()
    # Control: a facade that forgot one is caught.
    assert _unexported(n for n in convert.__all__ if n != "hand_end_from_log") == {
        "hand_end_from_log"
    }


def test_package_and_facade_give_the_group_modules_objects() -> None:
    assert sorted(arena.protocol.__all__) == sorted(convert.__all__)
    homes = {group.__name__ for group in GROUPS}
    for name in convert.__all__:
        value = getattr(convert, name)
        assert getattr(arena.protocol, name) is value, name
        assert getattr(value, "__module__", "arena.protocol.wire") in homes, name
