"""A person's games against bots.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28

* ``play_game``: one row per game a logged-in person plays on the Play page against two
  bots (docs/play.md): the seat's own view, the decision asked and the person's answer,
  the finished record, and the record of the house bot that then played the same deal in
  the person's seat (duplicate for people). Nothing else refers to it, so a downgrade just drops it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "play_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("opponents", sa.Text(), nullable=False),
        sa.Column("players", sa.Text(), nullable=True),
        sa.Column("ruleset", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("decision_seconds", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("runner_pid", sa.Integer(), nullable=True),
        sa.Column("view", sa.Text(), nullable=True),
        sa.Column("request_no", sa.Integer(), nullable=False),
        sa.Column("pending", sa.Text(), nullable=True),
        sa.Column("answer_no", sa.Integer(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("record", sa.Text(), nullable=True),
        sa.Column("house_bot", sa.String(length=64), nullable=True),
        sa.Column("house_record", sa.Text(), nullable=True),
        sa.Column("house_message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["arena_user.id"], name=op.f("fk_play_game_user_id_arena_user")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_play_game")),
    )
    op.create_index(op.f("ix_play_game_user_id"), "play_game", ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_play_game_user_id"), table_name="play_game")
    op.drop_table("play_game")
