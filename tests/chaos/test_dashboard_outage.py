"""The dashboard while its PostgreSQL server is down: the page says "database unavailable,
retrying" (no exception, no traceback on the page), and the same session's next run,
once the server is back, shows the page again; the control is that very run: with the
database up, no such warning."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.chaos.conftest import ChaosArena

pytestmark = [pytest.mark.postgres, pytest.mark.processes]

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def _warnings(app: AppTest) -> str:
    return "\n".join(str(w.value) for w in app.warning)


def test_a_page_says_unavailable_then_comes_back(
    chaos_arena: ChaosArena, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DB", chaos_arena.url)
    monkeypatch.setenv("ARENA_DATA", str(chaos_arena.data))
    chaos_arena.server.kill()
    try:
        app = AppTest.from_file(str(APP), default_timeout=60)
        app.run()
        assert not app.exception, [e.value for e in app.exception]
        assert "database unavailable, retrying" in _warnings(app)
    finally:
        chaos_arena.server.start()
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert "database unavailable" not in _warnings(app)
    assert app.title and app.title[0].value == "Standings"
