"""Ladders: a ladder's stopping settings and the matches it has scheduled.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

Two new tables and nothing changed in the old ones: a ``ladder`` row per ladder tournament
(its game budget, confidence and minimum games) and a ``ladder_match`` row per match it
chose, written before the match is played (so a killed ladder replays the same match).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ladder",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("games_budget", sa.Integer(), nullable=False),
        sa.Column("confidence", sa.Double(), nullable=False),
        sa.Column("min_games", sa.Integer(), nullable=False),
        sa.CheckConstraint("games_budget >= 0", name=op.f("ck_ladder_games_budget")),
        sa.CheckConstraint(
            "confidence > 0.5 AND confidence < 1", name=op.f("ck_ladder_confidence")
        ),
        sa.CheckConstraint("min_games >= 0", name=op.f("ck_ladder_min_games")),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournament.id"], name=op.f("fk_ladder_tournament_id_tournament")
        ),
        sa.PrimaryKeyConstraint("tournament_id", name=op.f("pk_ladder")),
    )
    op.create_table(
        "ladder_match",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("match_index", sa.Integer(), nullable=False),
        sa.Column("bot_version_a", sa.Integer(), nullable=False),
        sa.Column("bot_version_b", sa.Integer(), nullable=False),
        sa.Column("bot_version_c", sa.Integer(), nullable=False),
        sa.Column("scheduled_at", sa.DateTime(timezone=True), nullable=False),
        *(
            sa.ForeignKeyConstraint(
                [column],
                ["bot_version.id"],
                name=op.f(f"fk_ladder_match_{column}_bot_version"),
            )
            for column in ("bot_version_a", "bot_version_b", "bot_version_c")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournament.id"],
            name=op.f("fk_ladder_match_tournament_id_tournament"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_match")),
        sa.UniqueConstraint(
            "tournament_id", "match_index", name=op.f("uq_ladder_match_tournament_id_match_index")
        ),
    )


def downgrade() -> None:
    # A ladder without its matches cannot say which tables its games were: refuse while
    # there are any (the tournaments would stay, unreadable as ladders).
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT count(*) FROM ladder")).scalar():
        raise RuntimeError("cannot downgrade: ladder tournaments exist")
    op.drop_table("ladder_match")
    op.drop_table("ladder")
