"""The dearest read a visitor can ask for is bounded: the Statistics page's records read.

A spectator chooses among a few sizes up to 5,000 (the largest any anonymous visitor can
make the server parse per page run); a logged-in user may ask for up to 100,000. The page
bounds the value itself, whatever the widget sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import data
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.seed import Seeded

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboard" / "app.py"


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every ``sample`` the page asks ``data.record_stats`` for."""
    seen: list[int] = []
    real = data.record_stats

    def spy(url: str, tournament_id: int, version: Any, sample: int) -> Any:
        seen.append(sample)
        return real(url, tournament_id, version, sample)

    monkeypatch.setattr(data, "record_stats", spy)
    return seen


def _statistics(seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> AppTest:
    monkeypatch.setenv("ARENA_DB", seeded.url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params["tournament"] = "main"
    return app.run()


def test_a_spectator_reads_at_most_five_thousand_records(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, asked: list[int]
) -> None:
    app = _statistics(seeded, monkeypatch, tmp_path)
    app.switch_page("views/statistics.py").run()
    assert not [n for n in app.number_input if n.label.startswith("Games read")]
    (choice,) = [s for s in app.selectbox if s.label.startswith("Games read")]
    assert max(int(option) for option in choice.options) == 5000
    choice.set_value(5000).run()
    assert not app.exception
    assert asked[-1] == 5000
    # Control: a logged-in user may ask for more.
    log_in(app, "reader", add_account(seeded.engine, "reader", "participant"))
    app.switch_page("views/statistics.py").run()
    (number,) = [n for n in app.number_input if n.label.startswith("Games read")]
    number.set_value(100_000).run()
    assert not app.exception
    assert asked[-1] == 100_000
