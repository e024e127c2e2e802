"""Versions submitted through the HTTP API.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-29

* ``bot_version.submitted_via`` may be ``api`` (``arena api``'s ``POST /api/v1/bots``), beside
  ``cli``, ``dashboard`` and ``unknown``. A downgrade refuses while an ``api`` version is
  stored: it could only relabel it, and a version's provenance is never rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NAME = "ck_bot_version_submitted_via"


def upgrade() -> None:
    with op.batch_alter_table("bot_version") as batch:
        batch.drop_constraint(op.f(_NAME), type_="check")
        batch.create_check_constraint(
            op.f(_NAME), "submitted_via IN ('cli', 'dashboard', 'api', 'unknown')"
        )


def downgrade() -> None:
    stored = op.get_bind().execute(
        sa.text("SELECT count(*) FROM bot_version WHERE submitted_via = 'api'")
    )
    if stored.scalar():
        raise RuntimeError("cannot downgrade: versions submitted through the API are stored")
    with op.batch_alter_table("bot_version") as batch:
        batch.drop_constraint(op.f(_NAME), type_="check")
        batch.create_check_constraint(
            op.f(_NAME), "submitted_via IN ('cli', 'dashboard', 'unknown')"
        )
