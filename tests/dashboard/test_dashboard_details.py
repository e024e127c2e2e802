"""Dashboard details (issue 34, item 9), in pure functions and on the Tournaments page:

* an empty cell shows as an em dash on every page, never the word "None"
  (:mod:`dashboard.cells`);
* progress in words that fit the format: a version test its sequential test ended early
  is *finished*, not 6% done; a ladder's games count against its game budget, or it is
  open-ended (:mod:`dashboard.progress_text`);
* a runner's console output (a progress bar, its workers' sandbox warnings) never reaches
  the page: one line says how it ended (:mod:`dashboard.runner_text`);
* a tournament stored as running whose runner is gone says so (the runner-liveness rule).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.game.rules import PRESETS
from arena.ratings.sprt import SprtSettings, Verdict
from arena.storage.models import LadderSettings
from arena.storage.runner_liveness import NO_RUNNER
from arena.tournament import compare
from dashboard import cells
from dashboard.progress_text import progress_of
from dashboard.runner_text import runner_outcome
from tests.dashboard.seed import Seeded
from tests.dashboard.test_version_tests_page import _store_boards

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboard" / "app.py"
VIEWS = ROOT / "dashboard" / "views"

# ------------------------------------------------------------------------ empty cells


def test_every_table_of_the_views_goes_through_the_one_helper() -> None:
    direct = {p.name for p in VIEWS.glob("*.py") if "st.dataframe(" in p.read_text("utf-8")}
    assert direct == set()
    # Control: the check sees a direct call where there is one.
    assert "st.dataframe(" in (ROOT / "dashboard" / "cells.py").read_text("utf-8")


def test_a_missing_value_is_an_em_dash() -> None:
    assert cells.text(None) == cells.EMPTY == "—"
    assert cells.text(3) == "3"
    assert cells.text(0.25, lambda v: f"{v:+.2f}") == "+0.25"
    assert cells.text("") == ""  # an empty text is a value, not a missing one


def _tables(script: object) -> list[str]:
    app = AppTest.from_function(script).run()  # type: ignore[arg-type]
    assert not app.exception
    return [table.proto.placeholder for table in app.dataframe]


def test_the_helpers_tables_show_missing_values_as_em_dashes() -> None:
    def through_the_helper() -> None:
        import pandas as pd  # noqa: PLC0415 - AppTest runs the function's source alone

        from dashboard import cells  # noqa: PLC0415

        cells.table(pd.DataFrame({"Left at": [None, "2026-11-28"], "Games": [None, 3]}))

    def plain() -> None:
        import pandas as pd  # noqa: PLC0415 - AppTest runs the function's source alone
        import streamlit as st  # noqa: PLC0415

        st.dataframe(pd.DataFrame({"Left at": [None, "2026-11-28"]}))

    assert _tables(through_the_helper) == ["—"]
    assert _tables(plain) == [""]  # control: Streamlit's own default, which shows "None"


# ------------------------------------------------------------------------ progress words


def test_a_version_test_that_stopped_early_is_finished_not_six_percent_done() -> None:
    shown = progress_of(
        format_name=compare.FORMAT,
        status="finished",
        stored=144,
        scheduled=2400,
        verdict=Verdict.BETTER,
    )
    assert shown.games == "finished early: 144 games (SPRT accepted H1: better)"
    assert shown.fraction == 1.0
    assert shown.line == shown.games  # the status line says it the same way
    # Control: the same numbers in a round robin are what they say.
    plain = progress_of(format_name="round_robin", status="running", stored=144, scheduled=2400)
    assert (plain.games, plain.fraction) == ("144 / 2,400", 0.06)
    assert plain.line == "144 / 2,400 games"


def test_a_version_test_still_running_or_played_to_its_end() -> None:
    running = progress_of(format_name=compare.FORMAT, status="running", stored=144, scheduled=2400)
    assert running.games == "144 of at most 2,400 games (it stops once the test decides)"
    assert running.fraction == 0.06
    spent = progress_of(
        format_name=compare.FORMAT,
        status="finished",
        stored=2400,
        scheduled=2400,
        verdict=Verdict.UNDECIDED,
    )
    assert spent.games == "finished: 2,400 games, all played (SPRT undecided)"


def test_a_ladder_counts_against_its_budget_or_is_open_ended() -> None:
    budget = progress_of(
        format_name=storage.LADDER_FORMAT,
        status="running",
        stored=316,
        scheduled=324,
        games_budget=600,
    )
    assert (budget.games, budget.fraction) == ("316 of its 600-game budget", 316 / 600)
    open_ended = progress_of(
        format_name=storage.LADDER_FORMAT,
        status="running",
        stored=316,
        scheduled=324,
        games_budget=0,
    )
    assert (open_ended.games, open_ended.fraction) == (
        "316 games (open-ended: no game budget)",
        None,
    )
    done = progress_of(
        format_name=storage.LADDER_FORMAT, status="finished", stored=318, scheduled=324
    )
    assert (done.games, done.fraction) == ("finished: 318 games", 1.0)
    # Control: read as a round robin, the ladder is the misleading "316 / 324".
    plain = progress_of(format_name="round_robin", status="running", stored=316, scheduled=324)
    assert plain.games == "316 / 324"


# ------------------------------------------------------------------------ runner outcome

RUNNER_OUTPUT = (
    "WARNING:arena.sandbox.cgroups:cannot create a bot cgroup: [Errno 13] Permission denied\n"
    "tournament cup ━━━━━━━━━━━━━━━━  3/6 0:00:04\rtournament cup ━━━━━━━━━━━━ 4/6 0:00:05\n"
    "arena: error: the database is locked: is another runner playing 'cup'?\n"
)


def test_a_failed_runner_is_one_line_in_words() -> None:
    said = runner_outcome(RUNNER_OUTPUT, 1)
    assert said == (
        "The runner stopped: the database is locked: is another runner playing 'cup'?; "
        "finished games are kept; resume to play the rest."
    )
    assert "WARNING" not in said and "━" not in said and "\n" not in said
    # Control: without the CLI's error line, it says the exit status (still one line).
    assert runner_outcome("WARNING:arena.sandbox.cgroups:x\n", 2) == (
        "The runner stopped: it exited with status 2; finished games are kept; resume to "
        "play the rest."
    )


def test_a_stopped_runner_names_its_signal_and_a_clean_one_says_nothing() -> None:
    assert runner_outcome(RUNNER_OUTPUT, -15) == (
        "The runner was stopped (SIGTERM): finished games are kept; resume to play the rest."
    )
    assert runner_outcome(RUNNER_OUTPUT, 0) is None
    assert runner_outcome(RUNNER_OUTPUT, None) is None  # still running


# ------------------------------------------------------------------------ on the page


def _ladder(seeded: Seeded, name: str, budget: int) -> int:
    created = storage.create_tournament(
        seeded.engine,
        name=name,
        ruleset="classic",
        rules_json=json.dumps(PRESETS["classic"].to_json()),
        time_control="decision=1000,bank=10000,grace=50,startup=10000",
        boards=1,
        seed=None,
        rating_mode="game",
        entries=list(seeded.versions.values())[:3],
        games_total=324,
        format=storage.LADDER_FORMAT,
        deal_secret=b"k" * 32,
        ladder=LadderSettings(games_budget=budget, confidence=0.95, min_games=30),
    )
    return storage.row_id(created)


@pytest.mark.slow  # about 4 s: 48 games played in-process, then the page
def test_the_tournaments_page_shows_progress_as_each_format_means_it(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spec = compare.create_version_test(
        seeded.engine,
        candidate="alpha",
        baseline="bravo",
        opponents=["charlie", "delta"],
        sprt=SprtSettings(margin=1.0, min_boards=3),
        max_boards=200,
        name="vt-early",
        seed=1,  # the same deals every run (a fresh secret's differ from run to run)
    )
    # Greedy against random: boards until the test decides, as a runner would play them;
    # a few usually do, but how many depends on the deals.
    boards = 0
    while compare.result(seeded.engine, spec).verdict is Verdict.UNDECIDED and boards < 12:
        first = boards * compare.GAMES_PER_BOARD
        boards += 1
        _store_boards(seeded, spec, games=boards * compare.GAMES_PER_BOARD, first=first)
    assert compare.result(seeded.engine, spec).verdict is Verdict.BETTER
    storage.set_status(seeded.engine, spec.tournament_id, "finished")
    _ladder(seeded, "ladder-budget", 600)
    _ladder(seeded, "ladder-open", 0)

    monkeypatch.setenv("ARENA_DB", seeded.url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    st.cache_data.clear()
    app = AppTest.from_file(str(APP), default_timeout=120).run()
    app.switch_page("views/tournaments.py").run()
    assert not app.exception, [e.value for e in app.exception]
    listed = app.dataframe[0].value
    row = {name: i for i, name in enumerate(listed["Tournament"])}
    games = list(listed["Games"])
    stored = boards * compare.GAMES_PER_BOARD
    assert games[row["vt-early"]] == (f"finished early: {stored} games (SPRT accepted H1: better)")
    assert listed["Progress"][row["vt-early"]] == 1.0
    assert games[row["ladder-budget"]] == "0 of its 600-game budget"
    assert games[row["ladder-open"]] == "0 games (open-ended: no game budget)"
    # The seed's "live" tournament is stored as running, but no runner holds it.
    assert listed["Status"][row["live"]] == NO_RUNNER
    assert listed["Status"][row["main"]] == "finished"  # control: the stored status
    assert games[row["main"]] == "{0} / {0}".format(seeded_games(listed, row))
    assert {table.proto.placeholder for table in app.dataframe} == {cells.EMPTY}
    assert not re.search(r"\bNone\b", " ".join(str(v) for v in listed.to_numpy().ravel()))
    # The followed tournament's status line says it the same way, with one bar (full).
    app.sidebar.selectbox(key="tournament").set_value("vt-early").run()
    line = next(m.value for m in app.markdown if "badge[finished]" in m.value)
    assert f"finished early: {stored} games (SPRT accepted H1: better) ·" in line
    assert [bar.proto.value for bar in app.get("progress")] == [100]
    app.sidebar.selectbox(key="tournament").set_value("ladder-open").run()
    line = next(m.value for m in app.markdown if "open-ended" in m.value)
    assert "0 games (open-ended: no game budget) ·" in line
    assert app.get("progress") == []  # control: no bar means anything there


def seeded_games(listed: object, row: dict[str, int]) -> int:
    """The seed's finished round robin's game count, from the list itself."""
    games = str(listed["Games"][row["main"]])  # type: ignore[index]
    return int(games.split(" / ")[1])
