"""Joining: invitation codes, sign-up attempts, arena settings, passwords that must be replaced.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28

* ``invite``: invitation codes by their SHA-256, with a role, a use count and an expiry.
* ``signup_attempt``: sign-ups tried on the dashboard, which the per-client limit counts.
* ``arena_setting``: the organiser's arena-wide settings (how people join, quotas).
* ``arena_user.must_change_password``: a password an organiser set logs in once, then must
  be replaced. Accounts that exist keep theirs (``false``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "invite",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("max_uses", sa.Integer(), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        sa.CheckConstraint("role IN ('organiser', 'participant')", name=op.f("ck_invite_role")),
        sa.CheckConstraint("max_uses >= 1", name=op.f("ck_invite_max_uses")),
        sa.CheckConstraint("uses >= 0 AND uses <= max_uses", name=op.f("ck_invite_uses")),
        sa.ForeignKeyConstraint(
            ["created_by"], ["arena_user.id"], name=op.f("fk_invite_created_by_arena_user")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invite")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_invite_code_hash")),
    )
    op.create_table(
        "signup_attempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("user_name", sa.String(length=64), nullable=False),
        sa.Column("succeeded", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signup_attempt")),
    )
    op.create_index("ix_signup_attempt_client_at", "signup_attempt", ["client", "at"])
    op.create_table(
        "arena_setting",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.String(length=255), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["updated_by"], ["arena_user.id"], name=op.f("fk_arena_setting_updated_by_arena_user")
        ),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_arena_setting")),
    )
    with op.batch_alter_table("arena_user") as batch:
        batch.add_column(
            sa.Column(
                "must_change_password", sa.Boolean(), nullable=False, server_default=sa.false()
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("arena_user") as batch:
        batch.drop_column("must_change_password")
    op.drop_table("arena_setting")
    op.drop_index("ix_signup_attempt_client_at", table_name="signup_attempt")
    op.drop_table("signup_attempt")
    op.drop_table("invite")
