"""Per-contract deltas and trump calls, kept per seat and summed per bot.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28

* ``game_seat`` and ``bot_tally`` get ``delta_9``, ``delta_5``, ``delta_2`` (the sum of
  tricks won minus contract over the hands played in that contract) and ``trump_s``,
  ``trump_h``, ``trump_d``, ``trump_c``, ``trump_nt`` (the hands the seat dealt with that
  call), all ``NOT NULL DEFAULT 0``: ``record_game`` fills them from each new record and
  adds them to the tallies (arena/storage/seat_facts.py, arena/storage/tallies.py), so the
  statistics page reads one row per bot instead of parsing the latest 2,000 records.

The games stored before this revision have their seats filled here from their records,
parsed in Python a batch of games at a time (by game id: memory stays bounded whatever the
number of games), then ``bot_tally`` summed from the seats. Hands cut short (no deltas)
count for nobody, as when a game is stored; a hand whose numbers are malformed is skipped
rather than failing the upgrade (``record_game`` never stored one). At 1,000,000 games:
828 s on SQLite under load, 399 s on PostgreSQL, about 120 MB of memory
(docs/performance.md). A downgrade drops the columns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CONTRACTS = (9, 5, 2)
_TRUMPS = ("S", "H", "D", "C", "NT")
_COLUMNS = (*(f"delta_{c}" for c in _CONTRACTS), *(f"trump_{t.lower()}" for t in _TRUMPS))
_BATCH = 2000
"""Games read (and their records parsed) at a time: about 14 MB of JSON."""


def upgrade() -> None:
    for table in ("game_seat", "bot_tally"):
        for name in _COLUMNS:
            op.add_column(table, sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
    connection = op.get_bind()
    update = sa.text(
        "UPDATE game_seat SET "
        + ", ".join(f"{name} = :{name}" for name in _COLUMNS)
        + " WHERE game_id = :game_id AND seat = :seat"
    )
    last = 0
    while True:
        rows = connection.execute(
            sa.text("SELECT id, record FROM game WHERE id > :last ORDER BY id LIMIT :n"),
            {"last": last, "n": _BATCH},
        ).all()
        if not rows:
            break
        changes = [
            {"game_id": game_id, "seat": seat, **values}
            for game_id, record_text in rows
            for seat, values in enumerate(_seat_values(record_text))
            if any(values.values())
        ]
        if changes:
            connection.execute(update, changes)
        last = rows[-1][0]
    sums = connection.execute(
        sa.text(
            "SELECT g.tournament_id, s.bot_version_id, "
            + ", ".join(f"sum(s.{name})" for name in _COLUMNS)
            + " FROM game_seat s JOIN game g ON g.id = s.game_id "
            "GROUP BY g.tournament_id, s.bot_version_id"
        )
    ).all()
    if sums:
        connection.execute(
            sa.text(
                "UPDATE bot_tally SET "
                + ", ".join(f"{name} = :{name}" for name in _COLUMNS)
                + " WHERE tournament_id = :tournament_id AND bot_version_id = :bot"
            ),
            [
                {
                    "tournament_id": row[0],
                    "bot": row[1],
                    **dict(zip(_COLUMNS, row[2:], strict=True)),
                }
                for row in sums
            ],
        )


def _seat_values(record_text: str) -> list[dict[str, int]]:
    """Each seat's deltas per contract and trump calls as dealer, from a stored record
    (as arena/storage/seat_facts.py derives them when a game is stored)."""
    seats = [dict.fromkeys(_COLUMNS, 0) for _ in range(3)]
    try:
        record = json.loads(record_text)
    except (ValueError, RecursionError):
        return seats
    hands = record.get("hands") if isinstance(record, dict) else None
    for hand in hands if isinstance(hands, list) else []:
        if not isinstance(hand, dict) or hand.get("deltas") is None:
            continue  # a hand cut short counts for nobody
        dealer, trump = hand.get("dealer"), hand.get("trump")
        if dealer in (0, 1, 2) and not isinstance(dealer, bool) and trump in _TRUMPS:
            seats[dealer][f"trump_{trump.lower()}"] += 1
        contracts: Any = hand.get("contracts")
        deltas: Any = hand.get("deltas")
        if not (_ints(contracts) and _ints(deltas)):
            continue
        for seat in range(3):
            if contracts[seat] in _CONTRACTS:
                seats[seat][f"delta_{contracts[seat]}"] += deltas[seat]
    return seats


def _ints(value: Any) -> bool:
    """Three integers (a hand's contracts or deltas, by seat)."""
    return (
        isinstance(value, list)
        and len(value) == 3
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def downgrade() -> None:
    for table in ("bot_tally", "game_seat"):
        for name in _COLUMNS:
            # Native on PostgreSQL and SQLite >= 3.35 (no table copy: a million games' seats).
            op.execute(f"ALTER TABLE {table} DROP COLUMN {name}")
