"""Duplicate analysis for bot authors: travellers, swings against the field, first
differences between games on the same cards, and measures by contract and decision kind.

Pure functions over game records and their schedule facts (no I/O, no storage): the
storage query that gathers a tournament's games as a viewer may read them is
:mod:`arena.storage.travellers`; ``arena analyse`` and the dashboard's Analysis page show
the result. docs/analysis.md defines every measure.
"""

from __future__ import annotations

from arena.analysis.difference import Difference, first_difference
from arena.analysis.games import DealKey, PlayedGame, deal_key
from arena.analysis.measures import ContractLine, KindLine, Pair, by_contract, by_kind
from arena.analysis.report import SCHEMA, Analysis, analyse, to_json
from arena.analysis.travellers import Swing, Traveller, TravellerRow, swings, travellers

__all__ = [
    "SCHEMA",
    "Analysis",
    "ContractLine",
    "DealKey",
    "Difference",
    "KindLine",
    "Pair",
    "PlayedGame",
    "Swing",
    "Traveller",
    "TravellerRow",
    "analyse",
    "by_contract",
    "by_kind",
    "deal_key",
    "first_difference",
    "swings",
    "to_json",
    "travellers",
]
