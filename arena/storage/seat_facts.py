"""What a stored game's ``game_seat`` rows hold, derived from its record once, when it is
stored: score, win, fault, hands played and made per contract, the sum of the seat's
deltas per contract, and the trump calls of the hands it dealt.

Why a module of its own: :func:`arena.storage.games.record_game` stores these numbers and
the dashboard benchmark writes the same rows in bulk (``benchmarks/dashboard.py``); both
derive them here, so the bulk rows are what ``record_game`` would have stored.

:raises StorageError: from :func:`record_facts`, for a record without a result or with a
    malformed scored hand (nothing is stored then).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from arena.storage.database import StorageError
from arena.storage.models import CONTRACTS, TRUMPS

TRUMP_COLUMNS: Final = tuple(f"trump_{trump.lower()}" for trump in TRUMPS)
"""The ``game_seat``/``bot_tally`` columns counting a dealer's trump calls, in
:data:`~arena.storage.models.TRUMPS` order (``trump_s`` ... ``trump_nt``)."""
DELTA_COLUMNS: Final = tuple(f"delta_{contract}" for contract in CONTRACTS)
"""The columns summing a seat's deltas per contract (``delta_9``, ``delta_5``, ``delta_2``)."""


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """What one seat's row needs from a record."""

    score: int
    won: bool
    faulted: bool
    hands: dict[int, int]
    made: dict[int, int]
    deltas: dict[int, int]
    """Per contract: the sum of tricks won minus contract over the hands played in it."""
    trumps: dict[str, int]
    """Per trump call: the hands this seat dealt in which that trump was called."""

    def columns(self) -> dict[str, int]:
        """The per-contract and trump columns of the seat's ``game_seat`` row."""
        out = {}
        for contract in CONTRACTS:
            out[f"hands_{contract}"] = self.hands[contract]
            out[f"made_{contract}"] = self.made[contract]
            out[f"delta_{contract}"] = self.deltas[contract]
        for trump, column in zip(TRUMPS, TRUMP_COLUMNS, strict=True):
            out[column] = self.trumps[trump]
        return out


def record_facts(
    schedule_index: int, record: Mapping[str, Any]
) -> tuple[list[SeatFacts], Mapping[str, Any]]:
    """Per-seat facts and the ``result`` of a record, checked only as far as we use them.

    A scored hand (``deltas`` not null) must name 3 integer contracts, tricks won and
    deltas, its dealer (0, 1 or 2) and a trump call of :data:`TRUMPS`; a hand cut short
    (no deltas) counts for nobody.
    """
    where = f"record of game {schedule_index}"
    result = record.get("result")
    if not isinstance(result, Mapping):
        raise StorageError(f"{where}: no result (the game is not finished)")
    scores: Any = result.get("scores")
    winners: Any = result.get("winners")
    if not (_int_list(scores, 3) and isinstance(winners, list) and _int_list(winners, None)):
        raise StorageError(f"{where}: result needs 3 integer scores and a list of winners")
    faults = record.get("faults") or []
    if not isinstance(faults, list) or not all(
        isinstance(f, Mapping) and f.get("seat") in (0, 1, 2) for f in faults
    ):
        raise StorageError(f"{where}: faults must be entries with a seat 0, 1 or 2")
    faulted = {f["seat"] for f in faults}
    hands = [dict.fromkeys(CONTRACTS, 0) for _ in range(3)]
    made = [dict.fromkeys(CONTRACTS, 0) for _ in range(3)]
    deltas = [dict.fromkeys(CONTRACTS, 0) for _ in range(3)]
    trumps = [dict.fromkeys(TRUMPS, 0) for _ in range(3)]
    for hand in record.get("hands") or []:
        if not isinstance(hand, Mapping) or hand.get("deltas") is None:
            continue  # a hand cut short (no scores) counts for nobody
        contracts: Any = hand.get("contracts")
        tricks: Any = hand.get("tricks_won")
        hand_deltas: Any = hand.get("deltas")
        if not (_int_list(contracts, 3) and _int_list(tricks, 3) and _int_list(hand_deltas, 3)):
            raise StorageError(
                f"{where}: hand {hand.get('number')} lacks contracts/tricks_won/deltas"
            )
        dealer, trump = hand.get("dealer"), hand.get("trump")
        if dealer not in (0, 1, 2) or isinstance(dealer, bool) or trump not in TRUMPS:
            raise StorageError(f"{where}: hand {hand.get('number')} lacks its dealer or trump")
        trumps[dealer][trump] += 1
        for seat in range(3):
            contract = contracts[seat]
            if contract in hands[seat]:
                hands[seat][contract] += 1
                made[seat][contract] += tricks[seat] >= contract
                deltas[seat][contract] += hand_deltas[seat]
    facts = [
        SeatFacts(scores[s], s in winners, s in faulted, hands[s], made[s], deltas[s], trumps[s])
        for s in range(3)
    ]
    return facts, result


def _int_list(value: Any, length: int | None) -> bool:
    return (
        isinstance(value, list)
        and (length is None or len(value) == length)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )
