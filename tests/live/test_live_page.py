"""The Live page (Streamlit's AppTest): a live game's hostile bot and tournament names are
shown as text (escaped in the HTML, literal in Markdown), the followed game's public view
is drawn, and a game that ended points to Replays. Control: the raw names are in the
live table, so the escaping is the page's."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from arena.game import GameState, get_ruleset, observe
from arena.game.policies import RandomPolicy
from arena.game.public import public_cards, public_view
from arena.storage import live, open_database
from arena.storage.models import row_id
from dashboard.text import md
from tests.migrated_sqlite import migrated_sqlite_url
from tests.storage.helpers import make_bots, make_tournament

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
CUP = "cup #1 @x"
HOSTILE = '<img src=x onerror="alert(1)">**bold** :red[red] [link](http://e.org)'


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, int]]:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    tid = row_id(make_tournament(engine, make_bots(engine, 3), 6, name=CUP))
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    st.cache_data.clear()
    yield engine, tid
    engine.dispose()


def _mid_game_view() -> dict[str, object]:
    """A public view with cards on the table (a random game, 30 decisions in)."""
    state = GameState(get_ruleset("classic"), 5)
    policy = RandomPolicy(1)
    for _ in range(30):
        state.apply_decision(policy.act(observe(state, state.current_seat)))
    return public_view(state)


def _page(engine: Engine) -> AppTest:
    app = AppTest.from_file(str(APP), default_timeout=60).run()
    app.switch_page("views/live.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _htmls(app: AppTest) -> list[str]:
    return [str(getattr(e, "proto", e)) for e in app.get("html")]


def test_a_live_game_is_shown_with_its_names_escaped(arena: tuple[Engine, int]) -> None:
    engine, tid = arena
    view = _mid_game_view()
    live.upsert_live(
        engine, tid, 3, table_index=0, game_id="g3", players=[HOSTILE, "b", "c"], state=view
    )
    assert live.live_rows(engine)[0].players[0] == HOSTILE  # control: stored raw
    app = _page(engine)
    drawn = "\n".join(_htmls(app))
    assert html.escape(HOSTILE) in drawn or html.escape(HOSTILE).replace("&quot;", '\\"') in drawn
    assert "<img" not in drawn
    assert "Current trick" in drawn or "Tricks of this hand" in drawn
    assert public_cards(view)  # the view had cards to draw
    markdown = [m.value for m in app.markdown] + [h.value for h in app.subheader]
    assert f"{md(CUP)}: game 3" in markdown and md(CUP) != CUP
    assert not any("**bold**" in text for text in markdown)


def test_a_game_that_ended_points_to_replays(arena: tuple[Engine, int]) -> None:
    engine, tid = arena
    live.upsert_live(
        engine, tid, 2, table_index=0, game_id="g2", players=["a", "b", "c"], state=_mid_game_view()
    )
    app = AppTest.from_file(str(APP), default_timeout=60).run()
    app.switch_page("views/live.py").run()
    assert _htmls(app)  # control: the game was followed
    live.end_live(engine, tid, 2)
    st.cache_data.clear()
    app.run()
    assert not app.exception
    assert any("has ended" in s.value for s in app.success)
    assert not _htmls(app)
