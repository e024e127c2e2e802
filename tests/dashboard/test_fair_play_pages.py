"""The dashboard side of issue 10: tournaments it creates deal from a secret by default (no
visible seed; a reproducible seed is an explicit opt-in that says the deals are
predictable), the secret is never on a page, and arena faults are shown with the standings.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.storage.database import open_database
from arena.submission import submit_bot

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboard" / "app.py"
SAMPLES = ROOT / "sample_bots"


def _texts(app: AppTest) -> str:
    parts: list[str] = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "text", "code"):
        parts += [str(e.value) for e in getattr(app, kind)]
    return "\n".join(parts)


def _create(app: AppTest, name: str, seed: int | None) -> None:
    app.text_input[0].input(name)
    app.number_input[0].set_value(1)  # boards
    reproducible, start_now = app.checkbox[0], app.checkbox[1]
    assert reproducible.label == "Reproducible seed" and reproducible.value is False
    start_now.uncheck()
    if seed is not None:
        reproducible.check()
        app.number_input[1].set_value(seed)
    app.button(key="FormSubmitter:create_tournament-Create").click().run()
    assert not app.exception, [e.value for e in app.exception]


def test_dashboard_tournaments_deal_from_a_secret_unless_a_seed_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    data = tmp_path / "data"
    engine = open_database(url)
    for bot in ("random_bot", "heuristic_bot", "greedy_bot"):
        submit_bot(engine, SAMPLES / bot, data)
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(data))
    app = AppTest.from_file(str(APP), default_timeout=60).run()
    app.switch_page("views/tournaments.py").run()
    assert app.number_input[1].value == 0  # no visible default seed of 1 any more

    _create(app, "secret-cup", None)
    assert "6 games of classic, secret deals" in _texts(app)
    secret = storage.get_tournament(engine, "secret-cup")
    assert secret.seed is None and secret.deal_secret and len(secret.deal_secret) == 64
    page = _texts(app)
    assert "secret deals" in page and secret.deal_secret not in page

    _create(app, "research", 42)
    assert "deals are predictable (--seed 42)" in _texts(app)
    research = storage.get_tournament(engine, "research")
    assert research.seed == 42
    app.run()
    assert "seed 42 (deals are predictable)" in _texts(app)

    # Arena faults are counted with the standings.
    app.switch_page("views/standings.py").run()
    assert "Arena faults: **0**" in _texts(app)
    storage.count_arena_fault(engine, storage.row_id(research))
    storage.count_arena_fault(engine, storage.row_id(research))
    time.sleep(2.1)  # the cached progress expires
    app.run()
    assert "Arena faults: **2**" in _texts(app)
    assert secret.deal_secret not in _texts(app)
    engine.dispose()
