"""Initial schema: bots, tournaments, games, seats, ratings.

Revision ID: 0001
Revises:
Create Date: 2025-01-01

Written to match ``arena/storage/models.py`` exactly (tests/storage/test_migrations.py
compares them on SQLite and PostgreSQL). Types are plain SQLAlchemy types with the same DDL
as the models' (sqlmodel's AutoString is VARCHAR, UTCDateTime is TIMESTAMP WITH TIME ZONE),
so this file never imports application code that may change later.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "bot",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        _when("created_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot")),
        sa.UniqueConstraint("name", name=op.f("uq_bot_name")),
    )
    op.create_table(
        "tournament",
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("ruleset", sa.String(length=64), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("time_control", sa.String(length=200), nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column("boards", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("rating_mode", sa.String(length=16), nullable=False),
        sa.Column("games_total", sa.Integer(), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        _when("created_at"),
        _when("finished_at", nullable=True),
        sa.CheckConstraint(
            "rating_mode IN ('game', 'board')", name=op.f("ck_tournament_rating_mode")
        ),
        sa.CheckConstraint(
            "status IN ('created', 'running', 'interrupted', 'finished', 'failed')",
            name=op.f("ck_tournament_status"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament")),
        sa.UniqueConstraint("name", name=op.f("uq_tournament_name")),
    )
    op.create_table(
        "bot_version",
        sa.Column("version", sa.String(length=32), nullable=False),
        sa.Column("label", sa.String(length=120), nullable=False),
        sa.Column("checksum", sa.String(length=64), nullable=False),
        sa.Column("language", sa.String(length=64), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("manifest", sa.Text(), nullable=False),
        _when("submitted_at"),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"], name=op.f("fk_bot_version_bot_id_bot")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_version")),
        sa.UniqueConstraint("bot_id", "label", name=op.f("uq_bot_version_bot_id_label")),
        sa.UniqueConstraint("bot_id", "seq", name=op.f("uq_bot_version_bot_id_seq")),
    )
    op.create_table(
        "game",
        sa.Column("schedule_index", sa.Integer(), nullable=False),
        sa.Column("table_index", sa.Integer(), nullable=False),
        sa.Column("board_index", sa.Integer(), nullable=False),
        sa.Column("seating_index", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("seats", sa.Text(), nullable=False),
        sa.Column("winners", sa.Text(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("scores", sa.Text(), nullable=False),
        sa.Column("hands_played", sa.Integer(), nullable=False),
        sa.Column("fault_count", sa.Integer(), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        _when("created_at"),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournament.id"], name=op.f("fk_game_tournament_id_tournament")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game")),
        sa.UniqueConstraint(
            "tournament_id",
            "schedule_index",
            name=op.f("uq_game_tournament_id_schedule_index"),
        ),
    )
    op.create_table(
        "entry",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_version.id"],
            name=op.f("fk_entry_bot_version_id_bot_version"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournament.id"], name=op.f("fk_entry_tournament_id_tournament")
        ),
        sa.PrimaryKeyConstraint("tournament_id", "position", name=op.f("pk_entry")),
        sa.UniqueConstraint(
            "tournament_id",
            "bot_version_id",
            name=op.f("uq_entry_tournament_id_bot_version_id"),
        ),
    )
    op.create_index("ix_entry_bot_version_id", "entry", ["bot_version_id"])
    op.create_table(
        "game_seat",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("faulted", sa.Boolean(), nullable=False),
        sa.Column("hands_9", sa.Integer(), nullable=False),
        sa.Column("made_9", sa.Integer(), nullable=False),
        sa.Column("hands_5", sa.Integer(), nullable=False),
        sa.Column("made_5", sa.Integer(), nullable=False),
        sa.Column("hands_2", sa.Integer(), nullable=False),
        sa.Column("made_2", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_version.id"],
            name=op.f("fk_game_seat_bot_version_id_bot_version"),
        ),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_game_seat_game_id_game")),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_seat")),
    )
    op.create_index("ix_game_seat_bot_version_id", "game_seat", ["bot_version_id"])
    op.create_table(
        "rating",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("rated_through", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_version.id"],
            name=op.f("fk_rating_bot_version_id_bot_version"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournament.id"], name=op.f("fk_rating_tournament_id_tournament")
        ),
        sa.PrimaryKeyConstraint("tournament_id", "bot_version_id", name=op.f("pk_rating")),
    )
    op.create_table(
        "rating_snapshot",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("schedule_index", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_version.id"],
            name=op.f("fk_rating_snapshot_bot_version_id_bot_version"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournament.id"],
            name=op.f("fk_rating_snapshot_tournament_id_tournament"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_snapshot")),
        sa.UniqueConstraint(
            "tournament_id",
            "bot_version_id",
            "schedule_index",
            name=op.f("uq_rating_snapshot_tournament_id_bot_version_id_schedule_index"),
        ),
    )


def downgrade() -> None:
    op.drop_table("rating_snapshot")
    op.drop_table("rating")
    op.drop_index("ix_game_seat_bot_version_id", table_name="game_seat")
    op.drop_table("game_seat")
    op.drop_index("ix_entry_bot_version_id", table_name="entry")
    op.drop_table("entry")
    op.drop_table("game")
    op.drop_table("bot_version")
    op.drop_table("tournament")
    op.drop_table("bot")
