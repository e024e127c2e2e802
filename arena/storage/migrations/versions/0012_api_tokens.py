"""Personal tokens for the HTTP API.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28

* ``api_token``: a participant's personal token, kept as the SHA-256 of its secret (shown
  once), with a name, scopes (``read``, ``submit``), an optional expiry, the time it was
  last used and the time it was revoked (a revoked token stays listed, refused).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "api_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("scopes", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["arena_user.id"], name=op.f("fk_api_token_user_id_arena_user")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_token")),
    )
    op.create_index("ix_api_token_token_hash", "api_token", ["token_hash"], unique=True)
    op.create_index("ix_api_token_user_id", "api_token", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_api_token_user_id", table_name="api_token")
    op.drop_index("ix_api_token_token_hash", table_name="api_token")
    op.drop_table("api_token")
