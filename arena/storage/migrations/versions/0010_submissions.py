"""Submissions: every one tried, stored or not, with its build and smoke-game log.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28

* ``submission``: who submitted what, when and how, its outcome, a one-line message and the
  log its author reads on My bots (private to them and organisers). Versions stored before
  keep no row: their submissions were not recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("bot_name", sa.String(length=64), nullable=False),
        sa.Column("version", sa.String(length=32), nullable=True),
        sa.Column("via", sa.String(length=16), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("message", sa.String(length=500), nullable=False),
        sa.Column("log", sa.Text(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["arena_user.id"], name=op.f("fk_submission_user_id_arena_user")
        ),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_version.id"],
            name=op.f("fk_submission_bot_version_id_bot_version"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submission")),
    )
    op.create_index("ix_submission_user_id_submitted_at", "submission", ["user_id", "submitted_at"])
    op.create_index("ix_submission_bot_version_id", "submission", ["bot_version_id"])


def downgrade() -> None:
    op.drop_index("ix_submission_bot_version_id", table_name="submission")
    op.drop_index("ix_submission_user_id_submitted_at", table_name="submission")
    op.drop_table("submission")
