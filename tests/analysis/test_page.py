"""The dashboard's Analysis page under Streamlit's AppTest: the traveller, the swings, the
side-by-side first difference, the measures; hostile bot names shown as text; links from
the Standings and Bots pages."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from sqlalchemy import text
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.analysis import analyse
from arena.storage.privacy import SPECTATOR
from arena.storage.travellers import duplicate_games
from tests.analysis.support import BRAVO_DETAIL, BRAVO_STDERR, Cup, cup_url, make_cup
from tests.dashboard.test_hostile_text import injections, sources
from tests.test_privacy_canary import everything

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
EVIL = "delta![](//evil.test/v.png):smile:$x$"
"""A hostile bot name (delta renamed)."""


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cup]:
    made = make_cup(cup_url(tmp_path_factory.mktemp("page")))
    with made.engine.begin() as db:
        db.execute(text("UPDATE bot SET name = :n WHERE name = 'delta'"), {"n": EVIL})
        db.execute(
            text("UPDATE bot_version SET label = :l WHERE label = 'delta@1.0'"),
            {"l": f"{EVIL}@1.0"},
        )
        for game_id, record_text in db.execute(text("SELECT id, record FROM game")).all():
            record = json.loads(record_text)
            record["players"] = [
                f"{EVIL}@1.0" if p == "delta@1.0" else p for p in record["players"]
            ]
            db.execute(
                text("UPDATE game SET record = :r WHERE id = :id"),
                {"r": json.dumps(record), "id": game_id},
            )
    yield made
    made.engine.dispose()


@pytest.fixture
def open_page(cup: Cup, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[..., AppTest]:
    monkeypatch.setenv("ARENA_DB", str(cup.engine.url))
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    st.cache_data.clear()
    st.cache_resource.clear()

    def open_it(page: str, **query: str) -> AppTest:
        app = AppTest.from_file(str(APP), default_timeout=120)
        app.query_params.update({"tournament": "cup", **query})
        app.run()
        app.switch_page(f"views/{page}.py").run()
        assert not app.exception, [e.value for e in app.exception]
        return app

    return open_it


def _frames(app: AppTest) -> list[Any]:
    return [d.value for d in app.dataframe]


def test_traveller_and_first_difference(cup: Cup, open_page: Callable[..., AppTest]) -> None:
    app = open_page("analysis", bot="alpha")
    assert app.title[0].value == "Analysis"
    gathered = duplicate_games(cup.engine, "cup", "alpha", SPECTATOR, lambda *_: False)
    expected = analyse(gathered.games, gathered.versions, bot="alpha", tournament="cup")
    first = expected.travellers[0]
    traveller = _frames(app)[0]
    assert list(traveller["Game"]) == [r.game.game_id for r in first.rows]
    assert list(traveller["Score"]) == [r.score for r in first.rows]
    assert list(traveller["Bot"]) == [r.player for r in first.rows]
    pair = next(p for p in expected.pairs if p.traveller.seat == first.seat and
                p.traveller.board_index == first.board_index and
                p.traveller.table_index == first.table_index)  # fmt: skip
    page = "\n".join(str(m.value) for m in app.markdown)
    if pair.difference is None:
        assert "identical" in "\n".join(str(s.value) for s in app.success)
    else:
        assert f"First difference at **step {pair.difference.index}**" in page
        steps = _frames(app)[-1]
        marked = [s for s, m in zip(steps["Step"], steps[""], strict=True) if m]
        assert marked == [pair.difference.index]
    kinds = next(f for f in _frames(app) if "Kind" in f.columns)
    assert list(kinds["Kind"]) == ["exchange", "trump", "discard", "play"]
    # Everything sent to the browser: no word of bravo's stderr or fault detail (ben's);
    # the control: the stored records hold both.
    sent = everything(app)
    assert BRAVO_STDERR not in sent and BRAVO_DETAIL not in sent
    stored = json.dumps(cup.records)
    assert BRAVO_STDERR in stored and BRAVO_DETAIL in stored


def test_hostile_bot_name_is_text(open_page: Callable[..., AppTest]) -> None:
    assert injections(EVIL)  # the control: raw, the name is Markdown
    app = open_page("analysis", bot=EVIL)
    shown = sources(app)
    assert any("evil.test" in s for s in shown)  # the name is on the page...
    assert [i for s in shown for i in injections(s, strict=False)] == []  # ...as text
    assert f"{EVIL}@1.0" in set(_frames(app)[0]["Bot"])


def test_links_from_standings_and_bots(open_page: Callable[..., AppTest]) -> None:
    standings = open_page("standings")
    links = standings.get("page_link")
    assert any("Analysis of alpha" in str(link.proto.label) for link in links)
    bots = open_page("bots", bot="alpha")
    assert any(
        "Analysis of alpha in cup" in str(link.proto.label) for link in bots.get("page_link")
    )


def test_held_back_games_stay_off_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A running cup with secret deals, table 1's board half played: its games are left
    out (only table 0's travellers); the control: once finished they are shown."""
    running = make_cup(cup_url(tmp_path), stored=9, status="running", name="run")
    monkeypatch.setenv("ARENA_DB", str(running.engine.url))
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))

    def tables_shown() -> tuple[set[str], set[str], str]:
        st.cache_data.clear()
        st.cache_resource.clear()
        app = AppTest.from_file(str(APP), default_timeout=120)
        app.query_params.update({"tournament": "run", "bot": "alpha"})
        app.run()
        app.switch_page("views/analysis.py").run()
        assert not app.exception, [e.value for e in app.exception]
        board_seat = next(s for s in app.selectbox if s.label == "Board and seat")
        games = {str(g) for frame in _frames(app) if "Game" in frame.columns for g in frame["Game"]}
        captions = "\n".join(str(c.value) for c in app.caption)
        tables = {str(o).rsplit("table(s) ", 1)[1] for o in board_seat.options}
        return tables, games, captions

    tables, games, captions = tables_shown()
    held = {str(running.game_ids[i]) for i in range(6, 9)}
    assert "3 game(s) of alpha are left out" in captions
    assert tables == {"0"}
    assert games and not held & games
    storage.set_status(running.engine, running.tournament_id, "finished")
    tables, games, captions = tables_shown()
    assert tables == {"0", "1"} and "left out" not in captions
    running.engine.dispose()
