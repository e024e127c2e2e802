"""Accounts: users with roles, bot owners, who submitted each version and how, login
attempts and sessions.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

An existing database gets one organiser, ``local`` (the identity the host's CLI acts as),
with no password; every bot already stored becomes ``local``'s, and every version already
stored is recorded as submitted by ``local`` by an ``unknown`` route (nobody recorded it).
The new columns are filled before they become NOT NULL, so a migration interrupted halfway
rolls back whole (it runs in one transaction; on SQLite the tables are rebuilt in batch
mode, see :func:`arena.storage.database.migrate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOCAL_ORGANISER = "local"
_LOCAL_ID = f"SELECT id FROM arena_user WHERE name = '{LOCAL_ORGANISER}'"


def _when(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "arena_user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        _when("created_at"),
        _when("password_set_at", nullable=True),
        sa.CheckConstraint("role IN ('organiser', 'participant')", name=op.f("ck_arena_user_role")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_arena_user")),
        sa.UniqueConstraint("name", name=op.f("uq_arena_user_name")),
        sa.UniqueConstraint("email", name=op.f("uq_arena_user_email")),
    )
    op.create_table(
        "login_attempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_name", sa.String(length=64), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("succeeded", sa.Boolean(), nullable=False),
        _when("at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_attempt")),
    )
    op.create_index("ix_login_attempt_user_name_at", "login_attempt", ["user_name", "at"])
    op.create_index("ix_login_attempt_client_at", "login_attempt", ["client", "at"])
    op.create_table(
        "login_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(length=16), nullable=False),
        _when("created_at"),
        _when("last_seen_at"),
        _when("expires_at"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["arena_user.id"], name=op.f("fk_login_session_user_id_arena_user")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_session")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_login_session_token_hash")),
    )

    users = sa.table(
        "arena_user",
        sa.column("name", sa.String()),
        sa.column("role", sa.String()),
        sa.column("disabled", sa.Boolean()),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    op.execute(
        users.insert().values(
            name=LOCAL_ORGANISER, role="organiser", disabled=False, created_at=datetime.now(UTC)
        )
    )

    with op.batch_alter_table("bot") as batch:
        batch.add_column(sa.Column("owner_id", sa.Integer(), nullable=True))
    op.execute(sa.text(f"UPDATE bot SET owner_id = ({_LOCAL_ID})"))
    with op.batch_alter_table("bot") as batch:
        batch.alter_column("owner_id", existing_type=sa.Integer(), nullable=False)
        batch.create_foreign_key(
            op.f("fk_bot_owner_id_arena_user"), "arena_user", ["owner_id"], ["id"]
        )

    with op.batch_alter_table("bot_version") as batch:
        batch.add_column(sa.Column("submitted_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("submitted_via", sa.String(length=16), nullable=True))
    op.execute(
        sa.text(f"UPDATE bot_version SET submitted_via = 'unknown', submitted_by = ({_LOCAL_ID})")
    )
    with op.batch_alter_table("bot_version") as batch:
        batch.alter_column("submitted_by", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("submitted_via", existing_type=sa.String(length=16), nullable=False)
        batch.create_foreign_key(
            op.f("fk_bot_version_submitted_by_arena_user"), "arena_user", ["submitted_by"], ["id"]
        )
        batch.create_check_constraint(
            op.f("ck_bot_version_submitted_via"),
            "submitted_via IN ('cli', 'dashboard', 'unknown')",
        )


def downgrade() -> None:
    # Ownership cannot be expressed without accounts: a downgrade would hand every bot name
    # to whoever submits next, so it refuses while any bot belongs to someone else.
    bind = op.get_bind()
    owned = bind.execute(
        sa.text(
            "SELECT count(*) FROM bot JOIN arena_user ON bot.owner_id = arena_user.id "
            f"WHERE arena_user.name <> '{LOCAL_ORGANISER}'"
        )
    )
    if owned.scalar():
        raise RuntimeError("cannot downgrade: bots owned by users other than 'local' exist")
    with op.batch_alter_table("bot_version") as batch:
        batch.drop_constraint(op.f("ck_bot_version_submitted_via"), type_="check")
        batch.drop_constraint(op.f("fk_bot_version_submitted_by_arena_user"), type_="foreignkey")
        batch.drop_column("submitted_via")
        batch.drop_column("submitted_by")
    with op.batch_alter_table("bot") as batch:
        batch.drop_constraint(op.f("fk_bot_owner_id_arena_user"), type_="foreignkey")
        batch.drop_column("owner_id")
    op.drop_table("login_session")
    op.drop_index("ix_login_attempt_client_at", table_name="login_attempt")
    op.drop_index("ix_login_attempt_user_name_at", table_name="login_attempt")
    op.drop_table("login_attempt")
    op.drop_table("arena_user")
