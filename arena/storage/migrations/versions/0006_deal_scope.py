"""Per-table deals: which games of a tournament share a deal key.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24

A round robin used to deal board *n* alike at every table. Round robins created from now on
deal each table's boards from their own keys (``deal_scope = 'table'``), so one worker can
keep a table's bot processes for all its boards while another worker plays another table
(docs/scaling.md). Every tournament that exists keeps ``board``: one that was interrupted
resumes with exactly the deals it started with.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.add_column(
            sa.Column("deal_scope", sa.String(length=16), nullable=False, server_default="board")
        )
        batch.create_check_constraint(
            op.f("ck_tournament_deal_scope"), "deal_scope IN ('board', 'table')"
        )


def downgrade() -> None:
    # A per-table tournament has no meaning under the older schema: refuse while any exist.
    bind = op.get_bind()
    per_table = bind.execute(sa.text("SELECT count(*) FROM tournament WHERE deal_scope = 'table'"))
    if per_table.scalar():
        raise RuntimeError("cannot downgrade: tournaments with per-table deals exist")
    with op.batch_alter_table("tournament") as batch:
        batch.drop_constraint(op.f("ck_tournament_deal_scope"), type_="check")
        batch.drop_column("deal_scope")
