"""The dashboard's Ladder page on a ladder cut off mid-match: it shows the match in play,
its queued games and a retired version; once the ladder has played on, nothing is in play."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.storage.database import open_database
from arena.tournament import setup
from tests.migrated_sqlite import migrated_sqlite_url
from tests.tournament.test_ladder import InProcessExecutor, _ladder, _run, _version

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def _page(url: str, monkeypatch: pytest.MonkeyPatch, data: Path) -> AppTest:
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(data))
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.run()
    app.switch_page("views/ladder.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


@pytest.mark.slow
def test_the_ladder_page_shows_what_plays_and_what_is_queued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    _ladder(engine, "open", ["ace", "mid", "dud"], options=setup.LadderOptions(games=24))
    with pytest.raises(KeyboardInterrupt):
        _run(engine, "open", InProcessExecutor(stop_after=8))
    _version(engine, "mid", "2")
    tournament_id = storage.row_id(storage.get_tournament(engine, "open"))
    storage.enter_new_versions(engine, tournament_id)

    app = _page(url, monkeypatch, tmp_path / "data")
    assert app.title[0].value == "Ladder"
    playing, queue, entrants, _latest = (frame.value for frame in app.dataframe)
    assert playing["Match"].tolist() == [1] and playing["Games stored"].tolist() == ["2/6"]
    assert queue["Seating"].tolist() == [3, 4, 5, 6]
    states = dict(zip(entrants["Bot"], entrants["State"], strict=True))
    assert states == {"ace@1": "matched", "mid@1": "retired", "dud@1": "matched",
                      "mid@2": "matched"}  # fmt: skip
    assert any("Matched first" in str(m.value) and "mid@2" in str(m.value) for m in app.markdown)

    _run(engine, "open")  # the control: played on to its budget, nothing is in play
    app = _page(url, monkeypatch, tmp_path / "data")
    captions = " ".join(str(c.value) for c in app.caption)
    assert "Nothing: the ladder is not running" in captions
    assert "No game waits" in captions
