"""The live table on SQLite and PostgreSQL: upsert, end, clear, sweep and list; a private
tournament's games (a test match) and stale rows are never listed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine, text, update
from sqlmodel import col

from arena.storage import live, open_database
from arena.storage.database import write_session
from arena.storage.models import LiveGame, row_id, utcnow
from tests.storage.helpers import make_bots, make_tournament

VIEW = {"format": "arena952.public/1", "tricks": [], "current_trick": None}


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


def _put(engine: Engine, tid: int, index: int, view: dict[str, object] = VIEW) -> None:
    live.upsert_live(
        engine,
        tid,
        index,
        table_index=index % 2,
        game_id=f"g-{index}",
        players=["<b>x</b>", "b", "c"],
        state=view,
    )


def test_upsert_end_and_clear(engine: Engine) -> None:
    tid = row_id(make_tournament(engine, make_bots(engine, 3), 6))
    _put(engine, tid, 0)
    _put(engine, tid, 1)
    _put(engine, tid, 1, {**VIEW, "phase": "play"})
    rows = live.live_rows(engine)
    assert [(r.tournament, r.schedule_index, r.decisions) for r in rows] == [
        ("t1", 0, 1),
        ("t1", 1, 2),
    ]
    assert rows[1].state["phase"] == "play" and rows[0].players[0] == "<b>x</b>"
    assert rows[1].table_index == 1 and rows[1].game_id == "g-1"
    live.end_live(engine, tid, 0)
    assert [r.schedule_index for r in live.live_rows(engine)] == [1]
    other = row_id(make_tournament(engine, make_bots(engine, 3)[:3], 6, name="t2"))
    _put(engine, other, 4)
    assert [r.tournament for r in live.live_rows(engine, "t2")] == ["t2"]
    assert live.clear_live(engine, tid) == 1
    assert [r.tournament for r in live.live_rows(engine)] == ["t2"]


def test_private_and_stale_rows_are_not_listed(engine: Engine) -> None:
    tid = row_id(make_tournament(engine, make_bots(engine, 3), 6))
    _put(engine, tid, 0)
    assert live.live_rows(engine)  # control: listed while public and fresh
    with engine.begin() as connection:
        user = connection.execute(text("SELECT min(id) FROM arena_user")).scalar()
        assert user is not None  # the migrations add the local organiser
        connection.execute(text("UPDATE tournament SET private_to = :u"), {"u": user})
    assert live.live_rows(engine) == []
    with engine.begin() as connection:
        connection.execute(text("UPDATE tournament SET private_to = NULL"))
    with write_session(engine) as session:
        session.execute(
            update(LiveGame)
            .where(col(LiveGame.tournament_id) == tid)
            .values(updated_at=utcnow() - live.STALE_AFTER - timedelta(seconds=5))
        )
        session.commit()
    assert live.live_rows(engine) == []
    _put(engine, row_id(make_tournament(engine, make_bots(engine, 3), 6, name="t3")), 2)
    assert live.sweep_stale_live(engine) == 1
    assert [r.tournament for r in live.live_rows(engine)] == ["t3"]
