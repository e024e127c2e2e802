"""Migration 0002 (secret deals, arena faults) on a database holding an interrupted legacy
tournament, on SQLite and a real PostgreSQL: the data survives, foreign keys hold, and the
tournament resumes with exactly the ``random.Random(seed + board)`` deals it started with.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, text

from arena import storage
from arena.game.dealing import LEGACY_SHUFFLE
from arena.game.observation import observe
from arena.game.policies import GreedyPolicy, RandomPolicy
from arena.game.record import game_record, replay_record
from arena.game.rules import PRESETS
from arena.game.state import GameState
from arena.storage import migrate, open_database
from arena.storage.database import MIGRATIONS_DIR, StorageError
from arena.submission import submit_bot
from arena.tournament.executor import LocalProcessExecutor
from arena.tournament.formats import RoundRobin
from arena.tournament.runner import run_tournament

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
LEGACY_SEED = 5


def _alembic(engine: Engine, verb: str, revision: str) -> None:
    """Run an alembic command the way :func:`arena.storage.migrate` does: on SQLite with
    foreign keys off around the transaction, since batch mode rebuilds referenced tables."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        raw = connection.connection.driver_connection
        if sqlite:  # on the raw connection: inside a transaction the pragma is a no-op
            raw.execute("PRAGMA foreign_keys=OFF")
        try:
            with connection.begin():
                config.attributes["connection"] = connection
                getattr(command, verb)(config, revision)
        finally:
            if sqlite:
                raw.execute("PRAGMA foreign_keys=ON")


def _legacy_record(seed: int, first_dealer: int, players: list[str]) -> dict[str, Any]:
    """A game as the old engine dealt it (no ``shuffle`` field)."""
    state = GameState(PRESETS["classic"], seed, first_dealer=first_dealer, shuffle=LEGACY_SHUFFLE)
    policies = [RandomPolicy(1), GreedyPolicy(), RandomPolicy(2)]
    while not state.is_over:
        seat = state.current_seat
        state.apply_decision(policies[seat].act(observe(state, seat)))
    record = game_record(state, players)
    assert "shuffle" not in record
    return record


def _first_deal(record: dict[str, Any]) -> list[list[str]]:
    return [*record["hands"][0]["deal"], record["hands"][0]["kitty"]]


def test_a_legacy_tournament_migrates_and_resumes_with_its_old_deals(
    database_url: str, tmp_path: Path
) -> None:
    engine = open_database(database_url)
    versions = [
        submit_bot(engine, SAMPLES / bot, tmp_path / "data")[0]
        for bot in ("random_bot", "greedy_bot", "heuristic_bot")
    ]
    _alembic(engine, "downgrade", "0001")
    now = datetime.now(UTC)
    schedule = RoundRobin().schedule(3, 1, LEGACY_SEED)
    with engine.begin() as connection:
        sql = connection.execute
        tid = sql(
            text(
                "INSERT INTO tournament (name, ruleset, rules, time_control, format, boards, "
                "seed, rating_mode, games_total, status, created_at) VALUES ('old', 'classic', "
                ":rules, 'decision=5000,bank=60000,grace=500,startup=30000', 'round_robin', 1, "
                ":seed, 'game', 6, 'interrupted', :now) RETURNING id"
            ),
            {"rules": json.dumps(PRESETS["classic"].to_json()), "seed": LEGACY_SEED, "now": now},
        ).scalar_one()
        for position, version in enumerate(versions):
            sql(
                text(
                    "INSERT INTO entry (tournament_id, position, bot_version_id) VALUES (:t, :p, :v)"
                ),
                {"t": tid, "p": position, "v": version.id},
            )
        # Four games were stored before the upgrade (made here, without bot processes): the
        # two left to play are enough to show the resumed run deals the old way.
        for game in schedule[:4]:
            seats = [versions[e] for e in game.entrants]
            record = _legacy_record(game.seed, game.first_dealer, [v.label for v in seats])
            result = record["result"]
            game_id = sql(
                text(
                    "INSERT INTO game (schedule_index, table_index, board_index, seating_index, "
                    "seed, seats, winners, reason, scores, hands_played, fault_count, "
                    "tournament_id, record, created_at) VALUES (:i, 0, 0, :s, :seed, :seats, "
                    ":winners, :reason, :scores, :hands, 0, :t, :record, :now) RETURNING id"
                ),
                {
                    "i": game.schedule_index,
                    "s": game.seating_index,
                    "seed": game.seed,
                    "seats": json.dumps([v.id for v in seats]),
                    "winners": json.dumps(result["winners"]),
                    "reason": result["reason"],
                    "scores": json.dumps(result["scores"]),
                    "hands": result["hands_played"],
                    "t": tid,
                    "record": json.dumps(record),
                    "now": now,
                },
            ).scalar_one()
            for seat, version in enumerate(seats):
                sql(
                    text(
                        "INSERT INTO game_seat (game_id, seat, bot_version_id, score, rank, won, "
                        "faulted, hands_9, made_9, hands_5, made_5, hands_2, made_2) VALUES "
                        "(:g, :seat, :v, :score, 0, false, false, 0, 0, 0, 0, 0, 0)"
                    ),
                    {
                        "g": game_id,
                        "seat": seat,
                        "v": version.id,
                        "score": result["scores"][seat],
                    },
                )
    before = service_records(engine, tid)

    migrate(engine)  # 0001 -> 0002 with data in every table (SQLite rebuilds game)
    tournament = storage.get_tournament(engine, "old")
    assert (tournament.shuffle, tournament.seed, tournament.deal_secret) == (
        LEGACY_SHUFFLE,
        LEGACY_SEED,
        None,
    )
    assert tournament.arena_faults == 0
    assert service_records(engine, tid) == before
    with engine.connect() as connection:
        seeds = connection.execute(text("SELECT seed FROM game ORDER BY schedule_index")).all()
    assert [int(s) for (s,) in seeds] == [LEGACY_SEED] * 4

    asyncio.run(run_tournament(engine, "old", LocalProcessExecutor(2)))
    records = dict(storage.tournament_records(engine, tid))
    assert sorted(records) == list(range(6))
    for index, record in records.items():
        assert "shuffle" not in record and record["seed"] == LEGACY_SEED, index
        replay_record(record)  # verified against the legacy shuffle of its seed
        assert _first_deal(record) == _first_deal(records[0])
    assert storage.get_tournament(engine, "old").status == "finished"

    # A keyed tournament cannot be downgraded away (its seeds do not fit a BIGINT).
    storage.create_tournament(
        engine, name="new", ruleset="classic", rules_json=PRESETS["classic"].to_json(),
        time_control="decision=1000,bank=10000,grace=50,startup=10000", boards=1,
        seed=None, rating_mode="game", entries=[v.id for v in versions], games_total=6,
        deal_secret=b"\x01" * 32,
    )  # fmt: skip
    with pytest.raises(RuntimeError, match="keyed deals exist"):
        _alembic(engine, "downgrade", "0001")
    engine.dispose()


def service_records(engine: Engine, tid: int) -> list[tuple[int, dict[str, Any]]]:
    return storage.tournament_records(engine, tid)


def test_a_keyed_game_seed_round_trips_exactly(database_url: str) -> None:
    """256-bit game seeds are stored exactly (they overflow a BIGINT)."""
    engine = open_database(database_url)
    big = 2**256 - 12345
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE probe (seed VARCHAR(80))"))
    from arena.storage.models import SeedText  # noqa: PLC0415

    column = SeedText()
    stored = column.process_bind_param(big, engine.dialect)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO probe VALUES (:s)"), {"s": stored})
        value = connection.execute(text("SELECT seed FROM probe")).scalar_one()
    assert column.process_result_value(value, engine.dialect) == big
    with pytest.raises(StorageError, match="seed must be from 0"):
        storage.create_tournament(
            engine, name="x", ruleset="classic", rules_json=PRESETS["classic"].to_json(),
            time_control="decision=1000,bank=10000,grace=50,startup=10000", boards=1,
            seed=2**63, rating_mode="game", entries=[], games_total=6,
        )  # fmt: skip
    engine.dispose()
