"""Logins that hold on a shared host: devices, the origin of a session, trusted attempts.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28

* ``login_device``: browsers that have logged in as a user (the SHA-256 of their device
  cookie). Failed logins from elsewhere can no longer lock such a browser out.
* ``login_attempt.device`` and ``.trusted``: which device cookie an attempt came with, and
  whether that device had logged in as that user before; new indexes count failures per
  device and over the whole arena.
* ``login_session.origin``: the web origin a login was made on; its cookie counts only
  there. Sessions that exist keep ``NULL`` and end as before (idle, age, logout).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "login_device",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["arena_user.id"], name=op.f("fk_login_device_user_id_arena_user")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_device")),
        sa.UniqueConstraint(
            "token_hash", "user_id", name=op.f("uq_login_device_token_hash_user_id")
        ),
    )
    with op.batch_alter_table("login_attempt") as batch:
        batch.add_column(sa.Column("device", sa.String(length=64), nullable=True))
        batch.add_column(
            sa.Column("trusted", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_index("ix_login_attempt_device_at", "login_attempt", ["device", "at"])
    op.create_index("ix_login_attempt_at", "login_attempt", ["at"])
    with op.batch_alter_table("login_session") as batch:
        batch.add_column(sa.Column("origin", sa.String(length=255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("login_session") as batch:
        batch.drop_column("origin")
    op.drop_index("ix_login_attempt_at", table_name="login_attempt")
    op.drop_index("ix_login_attempt_device_at", table_name="login_attempt")
    with op.batch_alter_table("login_attempt") as batch:
        batch.drop_column("trusted")
        batch.drop_column("device")
    op.drop_table("login_device")
