"""One error for every storage function: a database failure reaches callers (the CLI's
one-line messages, the dashboard) as a one-line ``StorageError``, whichever domain module
the function lives in, never as a driver exception."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from arena import storage
from arena.storage import StorageError, make_engine
from arena.storage.privacy import ORGANISER
from tests.storage.helpers import checksum, make_record

TOURNAMENT: dict[str, Any] = {
    "name": "t",
    "ruleset": "classic",
    "rules_json": "{}",
    "time_control": "decision=1000",
    "boards": 1,
    "seed": 1,
    "rating_mode": "game",
    "entries": [1, 2, 3],
    "games_total": 6,
}
FIELDS = {"name": "bot", "version": "1", "language": "python"}
SCHEDULE: dict[str, Any] = {
    "schedule_index": 0,
    "table_index": 0,
    "board_index": 0,
    "seating_index": 0,
}

# Every function of arena.storage that takes the engine, called with valid arguments, so
# that the only thing wrong is the database (it has no tables).
CALLS: dict[str, Callable[[Engine], Any]] = {
    "add_bot_version": lambda e: storage.add_bot_version(e, FIELDS, checksum("bot"), "/b"),
    "actor": storage.actor,
    "bot_owner": lambda e: storage.bot_owner(e, "bot"),
    "list_user_rows": storage.list_user_rows,
    "ladder_settings": lambda e: storage.ladder_settings(e, 1),
    "ladder_entrants": lambda e: storage.ladder_entrants(e, 1),
    "ladder_matches": lambda e: storage.ladder_matches(e, 1),
    "unfinished_matches": lambda e: storage.unfinished_matches(e, 1),
    "enter_version": lambda e: storage.enter_version(e, 1, 2),
    "enter_new_versions": lambda e: storage.enter_new_versions(e, 1),
    "enter_open_ladders": lambda e: storage.enter_open_ladders(e, 1),
    "withdraw_entry": lambda e: storage.withdraw_entry(e, 1, 1, storage.Actor(1, "u", "organiser")),
    "set_ladder_open": lambda e: storage.set_ladder_open(
        e, 1, is_open=True, max_versions_per_day=None, by=storage.Actor(1, "u", "organiser")
    ),
    "version_quota_refusal": lambda e: storage.version_quota_refusal(e, 1, datetime.now(UTC)),
    "schedule_match": lambda e: storage.schedule_match(e, 1, 0, [1, 2, 3]),
    "bot_overview": storage.bot_overview,
    "bot_versions": lambda e: storage.bot_versions(e, "bot"),
    "contract_stats": lambda e: storage.contract_stats(e, 1),
    "count_arena_fault": lambda e: storage.count_arena_fault(e, 1),
    "create_tournament": lambda e: storage.create_tournament(e, **TOURNAMENT),
    "entries": lambda e: storage.entries(e, 1),
    "fault_counts": lambda e: storage.fault_counts(e, 1),
    "faults": lambda e: storage.faults(e, tournament_id=1, viewer=ORGANISER),
    "game_count": lambda e: storage.game_count(e, 1, 2),
    "games_in_range": lambda e: storage.games_in_range(e, 1, 0, 6),
    "game_page": lambda e: storage.game_page(e, 1, bot_version_id=2),
    "game_record": lambda e: storage.game_record(e, 1),
    "game_row": lambda e: storage.game_row(e, 1),
    "get_bot": lambda e: storage.get_bot(e, "bot"),
    "get_bot_version": lambda e: storage.get_bot_version(e, 1),
    "get_tournament": lambda e: storage.get_tournament(e, "t"),
    "head_to_head": lambda e: storage.head_to_head(e, 1),
    "latest_version": lambda e: storage.latest_version(e, "bot"),
    "list_bots": storage.list_bots,
    "list_tournaments": storage.list_tournaments,
    "progress": lambda e: storage.progress(e, 1),
    "rating_history": lambda e: storage.rating_history(e, 1),
    "ratings": lambda e: storage.ratings(e, 1),
    "recompute_ratings": lambda e: storage.recompute_ratings(e, 1),
    "record_game": lambda e: storage.record_game(
        e, 1, **SCHEDULE, seed=1, seats=[1, 2, 3], record=make_record(0)
    ),
    "record_stats": lambda e: storage.record_stats(e, 1),
    "set_status": lambda e: storage.set_status(e, 1, "running"),
    "standings": storage.standings,
    "stored_indexes": lambda e: storage.stored_indexes(e, 1),
    "tournament_game_ids": lambda e: storage.tournament_game_ids(e, 1),
    "tournament_overview": storage.tournament_overview,
    "tournament_records": lambda e: storage.tournament_records(e, 1),
}


@pytest.fixture
def tableless(tmp_path: Path) -> Iterator[Engine]:
    """A SQLite database that was never migrated: every query fails in the driver."""
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    yield engine
    engine.dispose()


def test_every_engine_function_is_covered() -> None:
    takes_engine = {
        name
        for name in storage.__all__
        if inspect.isfunction(getattr(storage, name))
        and next(iter(inspect.signature(getattr(storage, name)).parameters), None) == "engine"
    }
    # migrate words its own failures ("cannot open database ..."; test_database.py).
    assert takes_engine == set(CALLS) | {"migrate"}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_database_failure_is_one_storage_error(name: str, tableless: Engine) -> None:
    with pytest.raises(StorageError) as caught:
        CALLS[name](tableless)
    message = str(caught.value)
    assert message.startswith(f"{name}: database error: ") and "no such table" in message
    assert "\n" not in message
    assert isinstance(caught.value.__cause__, SQLAlchemyError)


def test_control_without_the_decorator_the_driver_error_escapes(tableless: Engine) -> None:
    with pytest.raises(SQLAlchemyError) as caught:
        inspect.unwrap(storage.standings)(tableless)
    assert not isinstance(caught.value, StorageError)
