"""Canonical names: every bot and user name gets its three look-alike keys, each unique.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28

``bot`` and ``arena_user`` get ``name_folded``, ``name_shape`` and ``name_upper``
(:func:`arena.storage.names.name_keys`) under unique indexes, so that no two bots, and no
two users, have names a person could take for each other, even when two submissions race.

A database may already hold such names (``greedy_bot`` and ``Greedy_Bot``). Nothing is
renamed, since games and records name them: the oldest row of a key keeps it, each newer
one stores it marked with its own id (:func:`arena.storage.names.claim_keys`), and every
collision is logged once as a warning naming both names
(:func:`arena.storage.bots.name_collisions` lists them again later). The keys are filled
before they become NOT NULL, in the migration's one transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from arena.storage.names import KEY_FIELDS, MAX_KEY_LENGTH, claim_keys

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# A fixed name: alembic loads this file under a module name of its own.
LOGGER = logging.getLogger("arena.storage.migrations.0008")
_KEYS = tuple(f"name_{field}" for field in KEY_FIELDS)
_OWNED_BOTS = (
    "SELECT bot.id, bot.name, arena_user.name FROM bot "
    "JOIN arena_user ON arena_user.id = bot.owner_id"
)


def _add_key_columns(table: str) -> None:
    with op.batch_alter_table(table) as batch:
        for key in _KEYS:
            batch.add_column(sa.Column(key, sa.String(length=MAX_KEY_LENGTH), nullable=True))


def _fill_keys(table: str, kind: str, owners: dict[int, str]) -> None:
    """Store every row's keys; log each pair of look-alike names once."""
    bind = op.get_bind()
    rows = {row_id: name for row_id, name in bind.execute(sa.text(f"SELECT id, name FROM {table}"))}
    claims = claim_keys(rows.items())
    assignments = ", ".join(f"{key} = :{key}" for key in _KEYS)
    update = sa.text(f"UPDATE {table} SET {assignments} WHERE id = :id")
    for row_id, keys in claims.keys.items():
        bind.execute(update, {**keys.columns(), "id": row_id})
    for older, newer in claims.collisions:
        LOGGER.warning(
            "%s names %s and %s look alike (stored before names were compared); both kept, "
            "a lookup must give one exactly",
            kind,
            _shown(rows[older], owners.get(older)),
            _shown(rows[newer], owners.get(newer)),
        )


def _shown(name: str, owner: str | None) -> str:
    return f"{name!r} ({owner}'s)" if owner else repr(name)


def _require_keys(table: str) -> None:
    with op.batch_alter_table(table) as batch:
        for key in _KEYS:
            batch.alter_column(key, existing_type=sa.String(length=MAX_KEY_LENGTH), nullable=False)
            batch.create_index(f"ix_{table}_{key}", [key], unique=True)


def upgrade() -> None:
    bind = op.get_bind()
    owners = {bot_id: owner for bot_id, _, owner in bind.execute(sa.text(_OWNED_BOTS))}
    for table, kind, owned_by in (("arena_user", "user", {}), ("bot", "bot", owners)):
        _add_key_columns(table)
        _fill_keys(table, kind, owned_by)
        _require_keys(table)


def downgrade() -> None:
    for table in ("bot", "arena_user"):
        with op.batch_alter_table(table) as batch:
            for key in reversed(_KEYS):
                batch.drop_index(f"ix_{table}_{key}")
                batch.drop_column(key)
