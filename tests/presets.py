"""Which presets a per-preset test runs on in each tier.

A test that plays whole random games in every preset costs seconds per preset. The fast
tier (``make check``, CONTRIBUTING.md) runs such a test on the two presets furthest apart:
``classic-show`` (9-5-2 with the dealer's show, the hidden information most likely to
leak, and a fixed number of hands) and ``catalan-plus-minus`` (9-2-5, the Catalan kitty,
give and return, the +/-15 objective). The other four differ from these in one or two
parameters each; they are marked ``slow``, so ``make test`` and CI still run every test on
every preset.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.game import PRESETS

FAST_TIER_PRESETS = ("classic-show", "catalan-plus-minus")
"""The presets the fast tier keeps."""


def every_preset() -> list[Any]:
    """Every preset name, sorted, as ``pytest.param``; the ones the fast tier leaves to
    ``make test`` are marked ``slow``."""
    assert set(FAST_TIER_PRESETS) <= set(PRESETS)
    return [
        pytest.param(name, marks=() if name in FAST_TIER_PRESETS else pytest.mark.slow)
        for name in sorted(PRESETS)
    ]
