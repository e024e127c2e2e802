"""Test matches and open ladders.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28

* ``test_match``: a participant's queued, unranked test match and the private tournament
  its games are stored in.
* ``tournament.private_to``: such a tournament's requester (``NULL``: public, as before).
* ``entry.left_at`` / ``.left_because``: an entrant withdrawn from a ladder, or retired by
  its bot's newer version; it is scheduled no more, its games stay.
* ``ladder.open`` / ``.max_versions_per_day``: an open ladder, which new versions enter by
  themselves, and its daily quota of versions per participant.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.add_column(sa.Column("private_to", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            op.f("fk_tournament_private_to_arena_user"), "arena_user", ["private_to"], ["id"]
        )
    with op.batch_alter_table("entry") as batch:
        batch.add_column(sa.Column("left_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("left_because", sa.String(length=16), nullable=True))
    with op.batch_alter_table("ladder") as batch:
        batch.add_column(sa.Column("open", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("max_versions_per_day", sa.Integer(), nullable=True))
    op.create_table(
        "test_match",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("opponents", sa.Text(), nullable=False),
        sa.Column("boards", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("message", sa.String(length=500), nullable=False),
        sa.CheckConstraint("boards >= 1", name=op.f("ck_test_match_boards")),
        sa.ForeignKeyConstraint(
            ["requested_by"], ["arena_user.id"], name=op.f("fk_test_match_requested_by_arena_user")
        ),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_version.id"],
            name=op.f("fk_test_match_bot_version_id_bot_version"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournament.id"],
            name=op.f("fk_test_match_tournament_id_tournament"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_test_match")),
    )
    op.create_index("ix_test_match_status", "test_match", ["status"])
    op.create_index(
        "ix_test_match_requested_by_requested_at", "test_match", ["requested_by", "requested_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_test_match_requested_by_requested_at", table_name="test_match")
    op.drop_index("ix_test_match_status", table_name="test_match")
    op.drop_table("test_match")
    with op.batch_alter_table("ladder") as batch:
        batch.drop_column("max_versions_per_day")
        batch.drop_column("open")
    with op.batch_alter_table("entry") as batch:
        batch.drop_column("left_because")
        batch.drop_column("left_at")
    with op.batch_alter_table("tournament") as batch:
        batch.drop_constraint(op.f("fk_tournament_private_to_arena_user"), type_="foreignkey")
        batch.drop_column("private_to")
