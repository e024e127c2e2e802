"""The Ladder page of an open ladder under Streamlit's ``AppTest``: an organiser opens it
and sets its quota with the toggle; spectators and participants are offered no switch,
and the action refuses a participant by itself; the entrants show who left, and why."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.storage.database import open_database
from dashboard import actions
from tests.dashboard.accounts_support import add_account, log_in
from tests.migrated_sqlite import migrated_sqlite_url
from tests.tournament.test_ladder import _ladder, _version

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
SWITCH = "Open or close this ladder"


def _ladder_page(app: AppTest) -> AppTest:
    app.switch_page("views/ladder.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_an_organiser_opens_a_ladder_on_its_page_and_no_one_else_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    _ladder(engine, "club", ["ace", "mid", "dud"])
    ladder = storage.row_id(storage.get_tournament(engine, "club"))
    pat = add_account(engine, "pat", "participant")
    olga = add_account(engine, "olga", "organiser")
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))

    app = AppTest.from_file(str(APP), default_timeout=120)
    app.run()
    _ladder_page(app)
    assert not [e for e in app.expander if e.label == SWITCH]  # a spectator
    log_in(app, "pat", pat)
    _ladder_page(app)
    assert not [e for e in app.expander if e.label == SWITCH]  # a participant
    with pytest.raises(actions.ActionError, match="needs an organiser account"):
        actions.set_ladder_open(
            engine, ladder, is_open=True, max_versions_per_day=None,
            by=storage.actor(engine, "pat"),
        )  # fmt: skip
    assert not storage.ladder_settings(engine, ladder).open
    assert any("closed" in str(m.value) for m in app.markdown)

    # The control: an organiser has the switch, and it works.
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.run()
    log_in(app, "olga", olga)
    _ladder_page(app)
    assert [e for e in app.expander if e.label == SWITCH]
    app.toggle[0].set_value(True)
    app.number_input[0].set_value(2)
    app.button(key=f"FormSubmitter:ladder_access_{ladder}-Save").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert [s.value for s in app.success] == [
        "club: open: every newly stored version enters it (at most 2 versions a day each)"
    ]
    settings = storage.ladder_settings(engine, ladder)
    assert (settings.open, settings.max_versions_per_day) == (True, 2)
    _ladder_page(app)
    assert any("open: new versions enter by themselves (at most 2 a day" in str(m.value)
               for m in app.markdown)  # fmt: skip


def test_the_entrants_show_who_left_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    _ladder(engine, "club", ["ace", "mid", "dud", "low"])
    ladder = storage.row_id(storage.get_tournament(engine, "club"))
    _version(engine, "mid", "2")
    storage.enter_new_versions(engine, ladder)
    dud = next(e for e in storage.ladder_entrants(engine, ladder) if e.label == "dud@1")
    storage.withdraw_entry(engine, ladder, dud.bot_version_id, storage.actor(engine))
    monkeypatch.setenv("ARENA_DB", url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.run()
    _ladder_page(app)
    entrants = next(f.value for f in app.dataframe if "State" in f.value.columns)
    states = dict(zip(entrants["Bot"], entrants["State"], strict=True))
    assert states == {"ace@1": "matched", "mid@1": "retired", "dud@1": "withdrawn",
                      "low@1": "matched", "mid@2": "matched"}  # fmt: skip
    left = dict(zip(entrants["Bot"], entrants["Left at"].notna(), strict=True))
    assert left == {"ace@1": False, "mid@1": True, "dud@1": True, "low@1": False,
                    "mid@2": False}  # fmt: skip
