"""Fair play on the dashboard: tournaments it creates deal from a secret by default (no
visible seed; a reproducible seed is an explicit opt-in that says the deals are
predictable), the secret is never on a page, and arena faults are shown with the standings.
"""

from __future__ import annotations

import time

from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from tests.dashboard.test_pages import texts


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
    tournaments_page: tuple[AppTest, Engine],
) -> None:
    app, engine = tournaments_page
    assert app.number_input[1].value == 0  # no visible default seed of 1 any more

    _create(app, "secret-cup", None)
    assert "6 games of classic, secret deals" in texts(app)
    secret = storage.get_tournament(engine, "secret-cup")
    assert secret.seed is None and secret.deal_secret and len(secret.deal_secret) == 64
    page = texts(app)
    assert "secret deals" in page and secret.deal_secret not in page

    _create(app, "research", 42)
    assert "deals are predictable (--seed 42)" in texts(app)
    research = storage.get_tournament(engine, "research")
    assert research.seed == 42
    app.run()
    assert "seed 42 (deals are predictable)" in texts(app)

    # Arena faults are counted with the standings.
    app.switch_page("views/standings.py").run()
    assert "Arena faults: **0**" in texts(app)
    storage.count_arena_fault(engine, storage.row_id(research))
    storage.count_arena_fault(engine, storage.row_id(research))
    time.sleep(2.1)  # the cached progress expires
    app.run()
    assert "Arena faults: **2**" in texts(app)
    assert secret.deal_secret not in texts(app)
