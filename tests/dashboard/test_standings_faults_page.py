"""The dashboard's Standings page after faults and retirements (issue 34, items 5 and 8),
as a visitor gets it (Streamlit's ``AppTest`` on a SQLite database made here).

A bot that crashed at its first decision in all six games shows 6 faults and 0 wins (the
autopilot's wins are not credited), and the page says that faulted games count as last
place. A ladder's retired version is hidden until the toggle shows it, marked. Controls:
the clean bots keep their wins; the toggle shows the retired row.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.storage.database import open_database
from arena.tournament import setup
from tests.dashboard.test_pages import texts
from tests.migrated_sqlite import migrated_sqlite_url
from tests.storage.helpers import make_bots, make_tournament, store
from tests.storage.test_standings_faults import GAMES, _crash_games

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``crash cup`` (bot2 crashes every game) and ``club ladder`` (bot0@1 retired)."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    clean_a, clean_b, crasher = make_bots(engine, 3)
    cup = make_tournament(engine, [clean_a, clean_b, crasher], GAMES, name="crash cup")
    for index, (seats, record) in enumerate(_crash_games(crasher, (clean_a, clean_b))):
        store(engine, cup, index, seats, record)
    ladder, _ = setup.create_tournament(
        engine, by=storage.actor(engine), name="club ladder", ruleset="classic",
        bots=["bot0", "bot1", "bot2"], boards=1, seed=5, format_name="ladder",
        ladder=setup.LadderOptions(),
    )  # fmt: skip
    fields = {"name": "bot0", "version": "2", "language": "python", "run": ["x"]}
    newer, _ = storage.add_bot_version(engine, fields, "b" * 64, "/bots/bot0/2")
    storage.enter_version(engine, storage.row_id(ladder), storage.row_id(newer))
    engine.dispose()
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    yield url


def _standings(tournament: str) -> AppTest:
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params["tournament"] = tournament
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.title[0].value == "Standings"
    return app


def test_a_crasher_is_credited_no_fallback_win_and_the_rule_is_said(database: str) -> None:
    del database
    app = _standings("crash cup")
    table = app.dataframe[0].value
    rows = {bot: i for i, bot in enumerate(table["Bot"])}
    crasher = rows["bot2@1"]
    assert (table["Games"][crasher], table["Faults"][crasher], table["Wins"][crasher]) == (
        GAMES,
        GAMES,
        0,
    )
    assert table["Rank"][crasher] == 3
    assert "faulted games count as last place" in texts(app)
    # Control: the clean bots' wins are all there (the six games had winners).
    assert sum(table["Wins"]) > 0 and table["Faults"][rows["bot0@1"]] == 0


def test_the_retired_version_is_hidden_until_the_toggle_shows_it_marked(database: str) -> None:
    del database
    app = _standings("club ladder")
    bots = list(app.dataframe[0].value["Bot"])
    assert "bot0@2" in bots and not any(b.startswith("bot0@1") for b in bots)
    assert list(app.dataframe[0].value["Rank"]) == [1, 2, 3]
    app.toggle(key="show_retired").set_value(True).run()
    bots = list(app.dataframe[0].value["Bot"])
    assert "bot0@1 (retired)" in bots and len(bots) == 4
