# ruff: noqa: RUF001  (the rank interval on screen uses an en dash)

"""Rank confidence everywhere: the standings read model, ``arena standings`` (table and
``--json``) and the dashboard's Standings page show the same P(above next) and 95% rank
interval, computed from the stored ratings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.cli import main
from arena.ratings import Rating, p_above_next, rank_intervals
from arena.storage.standings import RATING_LAG_NOTE, STANDINGS_LEGEND
from tests.dashboard.seed import Seeded, seeded_sqlite

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def test_the_read_model_carries_the_confidence_of_its_own_order(seeded: Seeded) -> None:
    rows = storage.standings(seeded.engine, seeded.tournament_id)
    skills = [Rating(r.mu, r.sigma) for r in rows]
    assert [r.p_above_next for r in rows] == p_above_next(skills)
    assert rows[-1].p_above_next is None
    assert all(0.0 < p < 1.0 for p in (r.p_above_next for r in rows[:-1]) if p is not None)
    intervals = rank_intervals(skills)
    assert [(r.rank_low, r.rank_high) for r in rows] == [(i.low, i.high) for i in intervals]
    for row in rows:
        assert 1 <= row.rank_low <= row.rank_high <= len(rows)
    # Seeded: two greedy and two random bots after 18 games each, so the order within
    # each pair is in doubt but not between the pairs.
    assert rows[0].rank_low == 1 and rows[0].rank_high >= 2
    assert {r.name for r in rows} == {"alpha", "bravo", "charlie", "delta"}
    assert {r.version for r in rows} == {"1.0"}


def test_standings_json_prints_every_column(
    seeded: Seeded, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["standings", "main", "--json", "--db", seeded.url]) == 0
    shown = json.loads(capsys.readouterr().out)
    rows = storage.standings(seeded.engine, seeded.tournament_id)
    assert shown["tournament"] == "main"
    assert shown["legend"] == STANDINGS_LEGEND
    assert shown["arena_faults"] == 0
    assert len(shown["standings"]) == len(rows)
    for printed, row in zip(shown["standings"], rows, strict=True):
        for key in ("rank", "mu", "sigma", "conservative", "games", "wins", "faults",
                    "p_above_next", "rank_low", "rank_high", "mean_score", "made_9"):  # fmt: skip
            assert printed[key] == getattr(row, key), key
        assert (printed["bot"], printed["version"], printed["label"]) == (
            row.name,
            row.version,
            row.bot,
        )
    assert shown["standings"][-1]["p_above_next"] is None


def test_standings_table_shows_the_columns_and_says_what_they_mean(
    seeded: Seeded, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["standings", "main", "--db", seeded.url]) == 0
    out = capsys.readouterr().out
    assert "P(>next)" in out and "rank 95%" in out
    assert " ".join(STANDINGS_LEGEND.split()) in " ".join(out.split())
    first = storage.standings(seeded.engine, seeded.tournament_id)[0]
    assert first.p_above_next is not None
    assert f"{first.p_above_next:.0%}" in out


def test_the_dashboard_standings_show_the_confidence(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARENA_DB", seeded.url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params["tournament"] = "main"
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    table = app.dataframe[0].value
    rows = storage.standings(seeded.engine, seeded.tournament_id)
    shown = table["P(>next)"]
    assert list(shown[:-1]) == pytest.approx([r.p_above_next for r in rows[:-1]])
    assert shown.isna().tolist() == [False] * (len(rows) - 1) + [True]  # none below the last
    expected = [
        str(r.rank_low) if r.rank_low == r.rank_high else f"{r.rank_low}–{r.rank_high}"
        for r in rows
    ]
    assert list(table["Rank 95%"]) == expected
    captions = "\n".join(str(c.value) for c in app.caption)
    assert STANDINGS_LEGEND in captions


def test_standings_say_when_the_ratings_cover_fewer_games_than_are_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ``live`` has 7 stored games: one whole board, rated, and one game of the next board.
    seeded = seeded_sqlite(tmp_path / "lag.db", running_games=7)
    try:
        assert main(["standings", "live", "--db", seeded.url]) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert f"ratings cover 6 of 7 stored games: {RATING_LAG_NOTE}" in out
        assert main(["standings", "live", "--json", "--db", seeded.url]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert (shown["games_stored"], shown["games_rated"]) == (7, 6)
        # The control: every stored game of ``main`` is rated, and nothing is said.
        assert main(["standings", "main", "--db", seeded.url]) == 0
        assert "ratings cover" not in capsys.readouterr().out
        assert main(["standings", "main", "--json", "--db", seeded.url]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["games_stored"] == shown["games_rated"] == 24
    finally:
        seeded.engine.dispose()
