"""Per-bot and per-pair sums of each tournament's games, kept as games are stored.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28

* ``bot_tally``: per tournament and bot version, the sums of its ``game_seat`` rows
  (games, wins, score, hands and contracts made, faulted games, clean wins and score,
  the newest game's id),
  updated by ``record_game`` in the game's own transaction (arena/storage/tallies.py), so
  standings read one row per entrant instead of scanning three rows per stored game.
* ``pair_board_tally`` / ``pair_tally``: the head-to-head of each pair of bots, per
  duplicate board and summed over boards (board means times 60, exact integers), kept
  the same way, so the statistics page reads one row per pair.

* ``ix_game_seat_faulted``: a partial index of the faulted seats, so the statistics'
  latest faults are found without scanning every seat.

The three tables are filled here from ``game_seat``; a downgrade just drops them (nothing refers
to them).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SUMS = (
    "games",
    "wins",
    "score",
    "hands_9",
    "made_9",
    "hands_5",
    "made_5",
    "hands_2",
    "made_2",
    "faults",
    "clean_wins",
    "clean_score",
)


def upgrade() -> None:
    # The faulted seats only: the statistics' latest faults, found without a scan.
    op.create_index(
        "ix_game_seat_faulted",
        "game_seat",
        ["game_id"],
        sqlite_where=sa.text("faulted = 1"),
        postgresql_where=sa.text("faulted"),
    )
    op.execute("ANALYZE game_seat")  # the planner learns how few rows the new index has
    op.create_table(
        "bot_tally",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in _SUMS),
        sa.Column("last_game_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_version.id"],
            name=op.f("fk_bot_tally_bot_version_id_bot_version"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournament.id"], name=op.f("fk_bot_tally_tournament_id_tournament")
        ),
        sa.PrimaryKeyConstraint("tournament_id", "bot_version_id", name=op.f("pk_bot_tally")),
    )
    op.execute(
        "INSERT INTO bot_tally (tournament_id, bot_version_id, "
        + ", ".join(_SUMS)
        + ", last_game_id) "
        "SELECT g.tournament_id, s.bot_version_id, count(*), "
        "sum(CASE WHEN s.won THEN 1 ELSE 0 END), sum(s.score), "
        "sum(s.hands_9), sum(s.made_9), sum(s.hands_5), sum(s.made_5), "
        "sum(s.hands_2), sum(s.made_2), "
        "sum(CASE WHEN s.faulted THEN 1 ELSE 0 END), "
        "sum(CASE WHEN s.won AND NOT s.faulted THEN 1 ELSE 0 END), "
        "sum(CASE WHEN s.faulted THEN 0 ELSE s.score END), max(s.game_id) "
        "FROM game_seat s JOIN game g ON g.id = s.game_id "
        "GROUP BY g.tournament_id, s.bot_version_id"
    )
    op.create_table(
        "pair_board_tally",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_a", sa.Integer(), nullable=False),
        sa.Column("bot_b", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("diff", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_a"], ["bot_version.id"], name=op.f("fk_pair_board_tally_bot_a_bot_version")
        ),
        sa.ForeignKeyConstraint(
            ["bot_b"], ["bot_version.id"], name=op.f("fk_pair_board_tally_bot_b_bot_version")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournament.id"],
            name=op.f("fk_pair_board_tally_tournament_id_tournament"),
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "bot_a", "bot_b", "board", name=op.f("pk_pair_board_tally")
        ),
    )
    op.create_table(
        "pair_tally",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_a", sa.Integer(), nullable=False),
        sa.Column("bot_b", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("boards", sa.Integer(), nullable=False),
        sa.Column("mean60_sum", sa.BigInteger(), nullable=False),
        sa.Column("mean60_squares", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_a"], ["bot_version.id"], name=op.f("fk_pair_tally_bot_a_bot_version")
        ),
        sa.ForeignKeyConstraint(
            ["bot_b"], ["bot_version.id"], name=op.f("fk_pair_tally_bot_b_bot_version")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournament.id"],
            name=op.f("fk_pair_tally_tournament_id_tournament"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", "bot_a", "bot_b", name=op.f("pk_pair_tally")),
    )
    # A board is 6 consecutive schedule indexes (BOARD_SIZE); 60 * diff / games is exact.
    op.execute(
        "INSERT INTO pair_board_tally (tournament_id, bot_a, bot_b, board, games, diff) "
        "SELECT g.tournament_id, a.bot_version_id, b.bot_version_id, g.schedule_index / 6, "
        "count(*), sum(a.score - b.score) "
        "FROM game g JOIN game_seat a ON a.game_id = g.id "
        "JOIN game_seat b ON b.game_id = g.id AND a.bot_version_id < b.bot_version_id "
        "GROUP BY g.tournament_id, a.bot_version_id, b.bot_version_id, g.schedule_index / 6"
    )
    op.execute(
        "INSERT INTO pair_tally "
        "(tournament_id, bot_a, bot_b, games, boards, mean60_sum, mean60_squares) "
        "SELECT tournament_id, bot_a, bot_b, sum(games), count(*), "
        "sum(CAST(60 * diff / games AS BIGINT)), "
        "sum(CAST(60 * diff / games AS BIGINT) * CAST(60 * diff / games AS BIGINT)) "
        "FROM pair_board_tally GROUP BY tournament_id, bot_a, bot_b"
    )


def downgrade() -> None:
    op.drop_index("ix_game_seat_faulted", table_name="game_seat")
    op.drop_table("pair_tally")
    op.drop_table("pair_board_tally")
    op.drop_table("bot_tally")
