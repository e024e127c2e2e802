"""The Standings page says which ladder entrants left it (withdrawn, or retired by a newer
version), as ``arena standings`` does: their rows and ratings stay, marked."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.storage import open_database
from tests.migrated_sqlite import migrated_sqlite_url
from tests.storage.test_withdraw import _ladder, _user, _version

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def test_a_withdrawn_entrant_is_marked_and_the_others_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    alice, bob = _user(engine, "alice"), _user(engine, "bob")
    withdrawn = _version(engine, "alice_bot", "1", alice)
    _version(engine, "bob_bot", "1", bob)
    _version(engine, "house_a", "1")
    ladder = _ladder(engine, "lad", ["alice_bot", "bob_bot", "house_a"])
    storage.withdraw_entry(engine, ladder, storage.row_id(withdrawn), alice)
    engine.dispose()
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params["tournament"] = "lad"
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    shown = sorted(app.dataframe[0].value["Bot"])
    # The control: the entrants still in are shown by their labels alone.
    assert shown == ["alice_bot@1 (withdrawn)", "bob_bot@1", "house_a@1"]
