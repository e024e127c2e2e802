"""The dearest read a visitor can cause on the Statistics page is bounded: no game record
is read for its statistics any more (the mean deltas and trump calls come from the tallies
kept as games are stored, over every game: issue 35), so no visitor chooses a number of
records to read; the only records the page reads are those of the latest faulted games
(their fault details), at most 500, whoever asks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from sqlalchemy import Engine, event, text
from streamlit.testing.v1 import AppTest

from arena import storage
from dashboard import data
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.seed import Seeded

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboard" / "app.py"


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The arguments of every ``data.record_stats`` call the page makes."""
    seen: list[tuple[Any, ...]] = []
    real = data.record_stats

    def spy(*args: Any) -> Any:
        seen.append(args)
        return real(*args)

    monkeypatch.setattr(data, "record_stats", spy)
    return seen


@pytest.fixture
def record_reads() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """``(statement, bound parameters)`` of every SQL statement run in this process that
    selects a game's record (``game.record``), whichever engine runs it."""
    seen: list[tuple[str, tuple[Any, ...]]] = []

    def listen(_c: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if "game.record" in statement:
            seen.append((statement, tuple(parameters or ())))

    event.listen(Engine, "before_cursor_execute", listen)
    yield seen
    event.remove(Engine, "before_cursor_execute", listen)


def _statistics(seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> AppTest:
    monkeypatch.setenv("ARENA_DB", seeded.url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params["tournament"] = "main"
    return app.run()


def test_a_visitor_reads_no_record_for_the_statistics_only_faulted_ones(
    seeded: Seeded,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    asked: list[tuple[Any, ...]],
    record_reads: list[tuple[str, tuple[Any, ...]]],
) -> None:
    st.cache_data.clear()  # nothing served from an earlier test's cache
    with seeded.engine.connect() as connection:
        faulted_games = set(
            connection.execute(text("SELECT id FROM game WHERE fault_count > 0")).scalars()
        )
    assert 0 < len(faulted_games) < 24
    app = _statistics(seeded, monkeypatch, tmp_path)
    log_in_as = add_account(seeded.engine, "reader", "participant")
    for logged_in in (False, True):
        if logged_in:
            log_in(app, "reader", log_in_as)
            st.cache_data.clear()
        app.switch_page("views/statistics.py").run()
        assert not app.exception
        assert not [w for w in (*app.selectbox, *app.number_input) if "Games read" in w.label]
        assert asked and len(asked[-1]) == 3  # (url, tournament, data version): no sample
        assert "Hands, made rates, mean deltas (Δ) and trump calls: all 24 games." in [
            c.value for c in app.caption
        ]
        # Records read: only the faulted games' (by id; the page asks for 500 at most).
        assert record_reads and all(" IN (" in sql for sql, _ in record_reads)
        assert {i for _, ids in record_reads for i in ids} == faulted_games
        record_reads.clear()
    # Control: the listener does see a record read (as record_stats made before issue 35).
    storage.game_record(seeded.engine, 1)
    assert [sql for sql, _ in record_reads if " IN (" not in sql]
