"""Version tests: the settings of each ``arena bot compare`` run, beside its tournament.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23

One new table; nothing else changes. The settings (candidate, baseline, opponents, margin,
error rates) used to be a JSON file in the data directory: in the database they are
written in the same place as the tournament, survive what it survives, and every dashboard
of the database can draw the test.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "version_test",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("spec", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournament.id"],
            name=op.f("fk_version_test_tournament_id_tournament"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", name=op.f("pk_version_test")),
    )


def downgrade() -> None:
    op.drop_table("version_test")
