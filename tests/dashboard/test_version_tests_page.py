"""The Version tests page redraws a version test from its stored games and its settings:
the verdict, the figures and the LLR over the boards are those of
:func:`arena.tournament.compare.result`. Games are played in-process by the built-in
policies (greedy for the candidate, random for the baseline) and stored as a runner would."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from sqlalchemy import text
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.game.record import game_record
from arena.ratings.sprt import SprtSettings
from arena.tournament import compare
from arena.tournament.deals import board_seeds
from tests.dashboard.seed import Seeded, play

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
POLICIES = ("greedy", "random", "greedy", "random")
"""By entry position: the candidate plays greedy, the baseline random."""


def _store_boards(
    seeded: Seeded, spec: compare.VersionTestSpec, games: int, first: int = 0
) -> None:
    """Play and store the version test's games from schedule index *first* up to *games*."""
    engine = seeded.engine
    tournament = storage.get_tournament(engine, spec.tournament)
    ids = [storage.row_id(v) for v in storage.entries(engine, spec.tournament_id)]
    seeds = board_seeds(tournament.shuffle, tournament.seed, tournament.deal_secret)
    schedule = [
        g for board in range(spec.max_boards) for g in compare.board_schedule(board, seeds(board))
    ]
    for game in schedule[first:games]:
        seats = [ids[e] for e in game.entrants]
        state = play("classic", game.seed, game.first_dealer, [POLICIES[e] for e in game.entrants])
        storage.record_game(
            engine,
            spec.tournament_id,
            schedule_index=game.schedule_index,
            table_index=game.table_index,
            board_index=game.board_index,
            seating_index=game.seating_index,
            seed=game.seed,
            seats=seats,
            record=game_record(state, [seeded.labels[s] for s in seats]),
            board_size=6,
        )


def _page(monkeypatch: pytest.MonkeyPatch, seeded: Seeded, data: Path, test: str) -> AppTest:
    monkeypatch.setenv("ARENA_DB", seeded.url)
    monkeypatch.setenv("ARENA_DATA", str(data))
    st.cache_data.clear()  # the list of tournaments is cached for 2 s, across apps
    app = AppTest.from_file(str(APP), default_timeout=120).run()
    app.switch_page("views/version_tests.py")
    app.query_params["test"] = test
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.selectbox[0].value == test  # the page shows the test asked for
    return app


@pytest.mark.slow
def test_the_page_draws_the_llr_against_its_bounds(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    spec = compare.create_version_test(
        seeded.engine,
        candidate="alpha",
        baseline="bravo",
        opponents=["charlie", "delta"],
        sprt=SprtSettings(margin=1.0, min_boards=3),
        max_boards=8,
        name="vt-page",
    )
    _store_boards(seeded, spec, games=4 * 12 + 5)  # four boards and part of a fifth
    expected = compare.result(seeded.engine, spec)
    assert 1 <= len(expected.states) <= 4

    app = _page(monkeypatch, seeded, data, "vt-page")
    assert app.title[0].value == "Version tests"
    metrics = {m.label: m.value for m in app.metric}
    final = expected.final
    assert metrics["Boards counted"] == str(final.boards)
    assert metrics["LLR"] == f"{final.llr:+.2f}"
    assert metrics["Mean difference (points/game)"] == f"{final.mean:+.2f}"
    table = app.dataframe[0].value
    assert list(table["Board"]) == [s.boards for s in expected.states]
    assert list(table["LLR"]) == pytest.approx([s.llr for s in expected.states])
    assert app.get("arrow_vega_lite_chart") or app.get("vega_lite_chart")
    words = {"better": "[better]", "not_better": "[not better]", "undecided": "[no decision"}
    assert words[final.verdict.value] in app.markdown[0].value
    assert "alpha@1.0" in app.markdown[0].value and "bravo@1.0" in app.markdown[0].value


def test_a_test_without_its_settings_says_so(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spec = compare.create_version_test(
        seeded.engine,
        candidate="charlie",
        baseline="delta",
        opponents=["alpha", "bravo"],
        sprt=SprtSettings(margin=1.0),
        max_boards=4,
        name="vt-lost",
    )
    # The control first: with its settings stored, the page draws the test.
    app = _page(monkeypatch, seeded, tmp_path / "data", "vt-lost")
    assert not app.warning, [w.value for w in app.warning]
    assert app.metric
    with seeded.engine.begin() as connection:  # settings lost (e.g. a hand-edited database)
        connection.execute(
            text("DELETE FROM version_test WHERE tournament_id = :id"), {"id": spec.tournament_id}
        )
    assert compare.load_spec(seeded.engine, spec.tournament_id) is None
    app = _page(monkeypatch, seeded, tmp_path / "data", "vt-lost")
    assert "are not stored" in app.warning[0].value
    assert not app.metric
