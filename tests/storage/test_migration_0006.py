"""Migration 0006 (per-table deals) on SQLite and a real PostgreSQL: a round robin made
before it keeps dealing board *n* alike at every table, so an interrupted one resumes with
the deals it started with, while a round robin made after it deals every table its own
boards; the column refuses other scopes, and a downgrade refuses to drop per-table ones."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from arena import storage
from arena.game.dealing import board_key, table_board_key
from arena.game.rules import PRESETS
from arena.storage import migrate, open_database
from arena.submission import submit_bot
from arena.tournament.runner import plan
from arena.tournament.setup import create_tournament
from tests.storage.test_migration_0002 import _alembic

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
BOTS = ("random_bot", "greedy_bot", "heuristic_bot", "pimc_bot")
SECRET = bytes(range(32))


def _old_round_robin(engine: Engine, version_ids: list[int]) -> None:
    """A keyed 4-bot round robin of 2 boards, inserted as the schema before 0006 stores it."""
    with engine.begin() as connection:
        tid = connection.execute(
            text(
                "INSERT INTO tournament (name, ruleset, rules, time_control, format, boards, "
                "rating_mode, games_total, status, created_at, shuffle, deal_secret) VALUES "
                "('old', 'classic', :rules, 'decision=1000,bank=10000,grace=50,startup=10000', "
                "'round_robin', 2, 'game', 48, 'interrupted', :now, 'hmac-sha256/1', :secret) "
                "RETURNING id"
            ),
            {
                "rules": json.dumps(PRESETS["classic"].to_json()),
                "now": datetime.now(UTC),
                "secret": SECRET.hex(),
            },
        ).scalar_one()
        for position, version in enumerate(version_ids):
            connection.execute(
                text(
                    "INSERT INTO entry (tournament_id, position, bot_version_id) VALUES (:t, :p, :v)"
                ),
                {"t": tid, "p": position, "v": version},
            )


def test_old_round_robins_keep_shared_deals_and_new_ones_get_their_own(
    database_url: str, tmp_path: Path
) -> None:
    engine = open_database(database_url)
    ids = [storage.row_id(submit_bot(engine, SAMPLES / b, tmp_path / "data")[0]) for b in BOTS]
    _alembic(engine, "downgrade", "0005")
    _old_round_robin(engine, ids)

    migrate(engine)
    old = storage.get_tournament(engine, "old")
    assert old.deal_scope == "board"
    schedule = plan(engine, "old")[1]
    assert len(schedule) == 48 and len({g.table_index for g in schedule}) == 4
    for game in schedule:  # board n alike at every table, as before the migration
        assert game.seed == board_key(SECRET, game.board_index)

    new, _ = create_tournament(
        engine, by=storage.actor(engine), name="new", ruleset="classic", bots=list(BOTS), boards=2
    )
    assert new.deal_scope == "table"
    schedule = plan(engine, "new")[1]
    secret = bytes.fromhex(storage.get_tournament(engine, "new").deal_secret or "")
    seeds = {(g.table_index, g.board_index): set() for g in schedule}
    for game in schedule:
        assert game.seed == table_board_key(secret, game.table_index, game.board_index)
        seeds[game.table_index, game.board_index].add(game.seed)
    assert all(len(one) == 1 for one in seeds.values())  # six seatings, one deal
    assert len({next(iter(one)) for one in seeds.values()}) == 8  # 4 tables x 2 boards
    # Control: the old tournament's 8 table boards have only 2 deals between them.
    assert len({g.seed for g in plan(engine, "old")[1]}) == 2

    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(text("UPDATE tournament SET deal_scope = 'seat' WHERE name = 'old'"))
    with pytest.raises(RuntimeError, match="per-table deals exist"):
        _alembic(engine, "downgrade", "0005")
    assert storage.get_tournament(engine, "new").deal_scope == "table"  # nothing was dropped
    engine.dispose()


def test_a_legacy_tournament_cannot_have_per_table_deals(database_url: str) -> None:
    engine = open_database(database_url)
    with pytest.raises(storage.StorageError, match="legacy deals are one per board"):
        storage.create_tournament(
            engine, name="x", ruleset="classic", rules_json=PRESETS["classic"].to_json(),
            time_control="decision=1000,bank=10000,grace=50,startup=10000", boards=1,
            seed=5, rating_mode="game", entries=[], games_total=6, shuffle="mt19937",
            deal_scope="table",
        )  # fmt: skip
    with pytest.raises(storage.StorageError, match="deal_scope"):
        storage.create_tournament(
            engine, name="y", ruleset="classic", rules_json=PRESETS["classic"].to_json(),
            time_control="decision=1000,bank=10000,grace=50,startup=10000", boards=1,
            seed=None, rating_mode="game", entries=[], games_total=6,
            deal_secret=SECRET, deal_scope="seat",
        )  # fmt: skip
    engine.dispose()
