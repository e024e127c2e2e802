"""Live games.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-30

* ``live_game``: one row per game being played now, with only its public view
  (docs/live.md); rows live only while their game does, so a downgrade just drops it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "live_game",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("schedule_index", sa.Integer(), nullable=False),
        sa.Column("table_index", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.String(length=200), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("decisions", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournament.id"], name=op.f("fk_live_game_tournament_id_tournament")
        ),
        sa.PrimaryKeyConstraint("tournament_id", "schedule_index", name=op.f("pk_live_game")),
    )


def downgrade() -> None:
    op.drop_table("live_game")
