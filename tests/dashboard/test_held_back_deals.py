"""While a tournament with secret deals runs, a stored game's cards are held back until
every game dealt alike (the other seatings of its board) is stored: on the Replays page
(picked or ``?game=`` deep link, organisers too) and in fault details, which may name
cards. Each test's control shows the same game in full once nothing is left to hide."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import streamlit as st
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.game.record import game_record
from arena.storage.models import BOARD_DEALS, TABLE_DEALS
from arena.tournament.formats import ScheduledGame
from arena.tournament.runner import store_game
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.seed import BOTS, STDERR, manifest, play, secret_deal_cup
from tests.dashboard.test_pages import texts
from tests.migrated_sqlite import built_once, migrated_sqlite_url
from tests.replay.support import embedded, viewer_documents

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
FAULTED = 7
"""The schedule index of the stored game with a fault (table 1's board, seating 1)."""
DETAIL = "seat 0 does not hold TS"


@dataclass
class Cup:
    """A 4-bot, 1-board round robin with secret deals; games 0-5 and 6-8 are stored."""

    engine: Engine
    tournament_id: int
    schedule: list[ScheduledGame]
    ids: list[int]
    game_ids: dict[int, int]
    """Schedule index -> stored game id."""
    organiser_password: str = ""

    def store(self, index: int) -> None:
        """Play and store game *index* as the runner would (the fault game with a fault)."""
        game = self.schedule[index]
        seats = [self.ids[e] for e in game.entrants]
        state = play("classic", game.seed, game.first_dealer, [BOTS[e][1] for e in game.entrants])
        fault = {
            "seat": 0,
            "hand": 1,
            "decision": "play",
            "kind": "illegal",
            "detail": DETAIL,
            "autopilot": True,
            "stderr_tail": STDERR,
        }
        faults = [fault] if index == FAULTED else []
        record = game_record(state, [f"{BOTS[e][0]}@1.0" for e in game.entrants], faults)
        store_game(self.engine, self.tournament_id, game, seats, record, 6)
        self.game_ids[index] = storage.tournament_game_ids(self.engine, self.tournament_id)[-1]

    def set_status(self, status: str) -> None:
        storage.set_status(self.engine, self.tournament_id, status)
        st.cache_data.clear()  # the dashboard's cached lists see it now


def _make_cup(tmp_path: Path, deal_scope: str, seed: int | None) -> Cup:
    """The cup in *tmp_path*: a byte copy of this process's cup for these options, made
    once (it plays and stores 9 games; ``seed=None`` deals from a secret of the process
    that no seed derives, as from a fresh one)."""

    def build(template: Path) -> tuple[Engine, Cup]:
        made = _build_cup(template, deal_scope, seed)
        return made.engine, made

    made = built_once(("held-back cup", deal_scope, seed), build, tmp_path / "arena.db")
    engine = storage.open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    return dataclasses.replace(made, engine=engine, game_ids=dict(made.game_ids))


def _build_cup(path: Path, deal_scope: str, seed: int | None) -> Cup:
    engine = storage.open_database(migrated_sqlite_url(path))
    ids = []
    for name, _ in BOTS:
        digest = hashlib.sha256(name.encode()).hexdigest()
        version, _ = storage.add_bot_version(engine, manifest(name), digest, f"/bots/{name}")
        ids.append(storage.row_id(version))
    tournament_id, schedule = secret_deal_cup(engine, "cup", ids, deal_scope=deal_scope, seed=seed)
    cup = Cup(engine, tournament_id, schedule, ids, {})
    for index in range(9):
        cup.store(index)
    cup.set_status("running")
    return cup


MakeCup = Callable[..., Cup]


@pytest.fixture
def make_cup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeCup]:
    """``make_cup(deal_scope=..., seed=...)``: the cup, served by the dashboard."""
    made: list[Cup] = []

    def make(deal_scope: str = TABLE_DEALS, seed: int | None = None) -> Cup:
        cup = _make_cup(tmp_path, deal_scope, seed)
        monkeypatch.setenv("ARENA_DB", str(cup.engine.url))
        monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))
        made.append(cup)
        return cup

    yield make
    for cup in made:
        cup.engine.dispose()
    st.cache_data.clear()


def _open(page: str, cup: Cup | None = None, **query: str) -> AppTest:
    """*page* of the cup, as a spectator, or as the cup's organiser when *cup* is given
    (fault details and stderr are the bot owner's and organisers' only)."""
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params.update({"tournament": "cup", **query})
    app.run()
    if cup is not None:
        if not cup.organiser_password:
            cup.organiser_password = add_account(cup.engine, "org", "organiser")
        log_in(app, "org", cup.organiser_password)
    app.switch_page(f"views/{page}.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _replay(cup: Cup, index: int, organiser: bool = False) -> AppTest:
    """The Replays page deep-linked to game *index* of the cup."""
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params.update({"tournament": "cup", "game": str(cup.game_ids[index])})
    app.run()
    if organiser:
        if not cup.organiser_password:
            cup.organiser_password = add_account(cup.engine, "org", "organiser")
        log_in(app, "org", cup.organiser_password)
    app.switch_page("views/replays.py").run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.selectbox(key="replay_pick").value == cup.game_ids[index]
    return app


def _cards_shown(app: AppTest) -> bool:
    """Whether the page replays a game: the viewer (with the game's frames), its header and
    the hands table, all or none."""
    documents = viewer_documents(app)
    viewer = bool(documents) and all(embedded(d, "frames")["steps"] for d in documents)
    header = "won by" in texts(app)
    assert viewer == header == bool(app.dataframe), texts(app)  # all or none
    return viewer


def _assert_held_back(app: AppTest, stored: int, total: int) -> None:
    assert not _cards_shown(app)
    (notice,) = [i.value for i in app.info if "held back" in str(i.value)]
    assert f"({stored} of {total} stored)" in notice
    assert STDERR not in texts(app) and DETAIL not in texts(app)


@pytest.mark.parametrize("organiser", [False, True])
@pytest.mark.parametrize("status", ["running", "interrupted"])
def test_a_game_of_an_unfinished_deal_group_shows_no_cards(
    make_cup: MakeCup, status: str, organiser: bool
) -> None:
    cup = make_cup()
    cup.set_status(status)
    _assert_held_back(_replay(cup, FAULTED, organiser), 3, 6)
    # The control: in the same tournament, a table whose 6 seatings are all stored replays.
    assert _cards_shown(_replay(cup, 2, organiser))


@pytest.mark.parametrize("ending", ["group complete", "finished"])
def test_the_same_game_replays_once_nothing_is_left_to_hide(make_cup: MakeCup, ending: str) -> None:
    cup = make_cup()
    _assert_held_back(_replay(cup, FAULTED), 3, 6)
    if ending == "finished":
        cup.set_status("finished")
    else:
        for index in (9, 10, 11):
            cup.store(index)
        st.cache_data.clear()
    app = _replay(cup, FAULTED, organiser=True)
    assert _cards_shown(app)
    assert DETAIL in texts(app) and STDERR in texts(app)


def test_predictable_deals_are_not_held_back(make_cup: MakeCup) -> None:
    cup = make_cup(seed=5)
    assert _cards_shown(_replay(cup, FAULTED))


def test_board_deals_hold_back_until_every_table_played_the_board(make_cup: MakeCup) -> None:
    # Board 0 is dealt alike at all 4 tables: table 0's seatings are all stored, but 15
    # games of the board are still to be played elsewhere.
    cup = make_cup(deal_scope=BOARD_DEALS)
    _assert_held_back(_replay(cup, 2), 9, 24)


def test_fault_details_are_held_back_with_the_cards(make_cup: MakeCup) -> None:
    cup = make_cup()
    assert cup.schedule[FAULTED].entrants[0] == 0  # the faulty seat 0 is alpha
    bots = _open("bots", cup, bot="alpha")
    assert [e for e in bots.expander if f"game #{FAULTED}" in e.label]  # listed, but:
    assert "held back" in texts(bots) and "(3 of 6 stored)" in texts(bots)
    assert STDERR not in texts(bots) and DETAIL not in texts(bots)
    statistics = _open("statistics", cup)
    details = statistics.dataframe[-1].value
    assert list(details["#"]) == [FAULTED]
    assert details["Detail"][0].startswith("held back")

    # The control: the tournament over, the same pages show the fault in full (to an
    # organiser: to spectators, never; tests/test_privacy_canary.py).
    cup.set_status("finished")
    assert STDERR in texts(_open("bots", cup, bot="alpha"))
    assert list(_open("statistics", cup).dataframe[-1].value["Detail"]) == [DETAIL]


def test_my_bots_holds_back_a_games_record_until_its_deal_is_played(make_cup: MakeCup) -> None:
    """My bots shows an author their own games with the record to download: not the
    record of a game whose board is still being played (it holds every seat's cards)."""
    cup = make_cup()
    held, played = 6, 0  # table 1's board is 3 of 6 stored; table 0's is complete
    entrant = next(e for e in cup.schedule[held].entrants if e in cup.schedule[played].entrants)
    name = BOTS[entrant][0]
    app = _open("my_bots", cup)
    app.sidebar.selectbox(key="mybots_owner").set_value(storage.actor(cup.engine).id).run()
    app.selectbox(key="mybots_bot").set_value(name).run()
    version = cup.ids[entrant]

    def downloads(index: int) -> list[str]:
        """The download buttons once game *index* is chosen."""
        app.selectbox(key=f"mybots_game_{version}").set_value(cup.game_ids[index]).run()
        assert not app.exception, [e.value for e in app.exception]
        return [str(button.key) for button in app.get("download_button")]

    assert f"mybots_record_{cup.game_ids[held]}" not in downloads(held)
    assert "held back until the other games dealt alike are played" in texts(app)
    # The control: a game whose board is all played can be downloaded.
    assert f"mybots_record_{cup.game_ids[played]}" in downloads(played)
