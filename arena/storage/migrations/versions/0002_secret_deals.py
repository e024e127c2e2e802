"""Secret deals and arena faults: a tournament's deal secret and shuffle scheme, nullable
explicit seeds, 256-bit board seeds, and the arena-fault count.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23

Existing tournaments keep their seed and become ``mt19937`` (legacy) tournaments, so one
that was interrupted resumes with exactly the deals it started with. Game seeds become
decimal text, since a keyed deal seed has 256 bits. On SQLite the game table is rebuilt
(batch mode); :func:`arena.storage.database.migrate` turns foreign keys off around that and
checks them before committing, as SQLite's ALTER TABLE procedure says.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.alter_column("seed", existing_type=sa.BigInteger(), nullable=True)
        batch.add_column(
            sa.Column("shuffle", sa.String(length=32), nullable=False, server_default="mt19937")
        )
        batch.add_column(sa.Column("deal_secret", sa.String(length=128), nullable=True))
        batch.add_column(
            sa.Column("arena_faults", sa.Integer(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("game") as batch:
        batch.alter_column(
            "seed",
            existing_type=sa.BigInteger(),
            type_=sa.String(length=80),
            existing_nullable=False,
            postgresql_using="seed::text",
        )


def downgrade() -> None:
    # Keyed seeds do not fit a BIGINT and secret tournaments have no seed: a downgrade
    # would lose them, so it refuses while there are any.
    bind = op.get_bind()
    keyed = bind.execute(sa.text("SELECT count(*) FROM tournament WHERE shuffle <> 'mt19937'"))
    if keyed.scalar():
        raise RuntimeError("cannot downgrade: tournaments with keyed deals exist")
    with op.batch_alter_table("game") as batch:
        batch.alter_column(
            "seed",
            existing_type=sa.String(length=80),
            type_=sa.BigInteger(),
            existing_nullable=False,
            postgresql_using="seed::bigint",
        )
    with op.batch_alter_table("tournament") as batch:
        batch.drop_column("arena_faults")
        batch.drop_column("deal_secret")
        batch.drop_column("shuffle")
        batch.alter_column("seed", existing_type=sa.BigInteger(), nullable=False)
