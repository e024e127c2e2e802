"""The Test match page and the privacy of a test match's tournament, with AppTest on a
real played test match: a spectator and another participant find it on no page
(Standings, Tournaments, Rating history, Replays, Statistics), its requester and an
organiser do (the controls); the page queues a match, shows its place in the queue and
cancels it, and offers a participant only their own bots."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.storage import test_matches as queue
from arena.storage.settings import set_setting
from arena.submission import submit_bot
from arena.tournament.test_matches import play_queue
from dashboard import actions
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.seed import seeded_sqlite

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboard" / "app.py"
PAGES = ("standings", "tournaments", "rating_history", "replays", "statistics")


@dataclass
class Arena:
    url: str
    engine: Engine
    data: Path
    passwords: dict[str, str]
    private: str
    """The played test match's tournament name."""
    game_id: int
    """One of its games."""


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """Seeded public tournaments, accounts alice and bob (participants) and olga
    (organiser), alice's and bob's bots, and alice's test match against builtin:greedy,
    played by the queue runner with real processes."""
    folder = tmp_path_factory.mktemp("test-match-pages")
    seeded = seeded_sqlite(folder / "arena.db")  # a copy of this process's seeded file
    url, engine = seeded.url, seeded.engine
    passwords = {
        name: add_account(engine, name, role)
        for name, role in (("alice", "participant"), ("bob", "participant"), ("olga", "organiser"))
    }
    data = folder / "data"
    for owner in ("alice", "bob"):
        copy = folder / f"{owner}_bot"
        shutil.copytree(ROOT / "sample_bots" / "random_bot", copy)
        manifest = copy / "bot.toml"
        manifest.write_text(manifest.read_text().replace('"random_bot"', f'"{owner}_bot"'))
        submit_bot(engine, copy, data, submitter=storage.actor(engine, owner))
    alice = storage.actor(engine, "alice")
    match = queue.request_test_match(
        engine, by=alice, bot="alice_bot", opponents=["builtin:greedy"]
    )
    play_queue(engine, data)
    private = queue.tournament_name(queue.match_id(match))
    game_id = storage.tournament_game_ids(
        engine, storage.row_id(storage.get_tournament(engine, private))
    )[0]
    yield Arena(url, engine, data, passwords, private, game_id)
    engine.dispose()


def _app(arena: Arena, monkeypatch: pytest.MonkeyPatch, who: str | None) -> AppTest:
    monkeypatch.setenv("ARENA_DB", arena.url)
    monkeypatch.setenv("ARENA_DATA", str(arena.data))
    app = AppTest.from_file(str(APP), default_timeout=60).run()
    if who is not None:
        log_in(app, who, arena.passwords[who])
    return app


def _everything_shown(app: AppTest) -> str:
    """The text of every element and every choice a widget offers."""
    parts: list[str] = []
    for kind in ("markdown", "caption", "title", "subheader", "info", "error", "success"):
        parts += [str(e.value) for e in getattr(app, kind)]
    for widget in (*app.selectbox, *app.multiselect):
        parts += [str(o) for o in widget.options]
    parts += [str(d.value) for d in app.dataframe]
    return "\n".join(parts)


@pytest.mark.parametrize("who", [None, "bob", "alice", "olga"])
def test_a_private_tournament_shows_only_to_its_requester_and_organisers(
    arena: Arena, monkeypatch: pytest.MonkeyPatch, who: str | None
) -> None:
    app = _app(arena, monkeypatch, who)
    may_see = who in ("alice", "olga")
    for page in PAGES:
        app.switch_page(f"views/{page}.py").run()
        assert not app.exception, (page, [e.value for e in app.exception])
        shown = _everything_shown(app)
        assert (arena.private in shown) is may_see, (page, who)
        assert "builtin_greedy" not in shown or may_see, (page, who)
    # A link straight to the private tournament and one of its games shows neither.
    app.query_params["tournament"] = arena.private
    app.query_params["game"] = str(arena.game_id)
    app.session_state["_selected_tournament"] = None
    app.switch_page("views/replays.py").run()
    assert not app.exception
    tournament_box = next(s for s in app.sidebar.selectbox if s.label == "Tournament")
    assert (tournament_box.value == arena.private) is may_see


def test_a_spectator_gets_no_test_match_form(arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    app = _app(arena, monkeypatch, None)
    app.switch_page("views/test_match.py").run()
    assert app.title[0].value == "Test match"
    assert "Log in as a participant" in app.main.caption[-1].value
    assert not [b for b in app.button if b.key == "FormSubmitter:test_match-Queue the test match"]


def test_the_page_queues_shows_the_position_and_cancels(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _app(arena, monkeypatch, "bob")
    app.switch_page("views/test_match.py").run()
    assert not app.exception, [e.value for e in app.exception]
    # Only his own bot is offered; alice's match is not listed for him.
    assert app.selectbox[0].options == ["bob_bot"]
    assert "builtin:greedy" in app.multiselect[0].options
    assert "None yet." in _everything_shown(app)
    set_setting(arena.engine, "test_boards_per_hour", "2", by=None)
    submit = "FormSubmitter:test_match-Queue the test match"
    app.number_input[0].set_value(3)
    app.button(key=submit).click().run()
    assert "2 board(s) per hour" in app.error[0].value  # beyond the quota: refused
    # Another queue runner holds the queue, so the page starts none and the match waits.
    with queue.queue_lock(arena.engine):
        app.number_input[0].set_value(1)
        app.multiselect[0].set_value(["alice_bot"])
        app.button(key=submit).click().run()
        assert not app.error, [e.value for e in app.error]
        (mine,) = queue.list_test_matches(arena.engine, storage.actor(arena.engine, "bob"))
        assert app.success[0].value == f"Queued test match #{mine.id}."
        assert ":gray-badge[queued] position 1 in the queue" in _everything_shown(app)
        assert "bob_bot@1.0.0 vs alice_bot, builtin" in _everything_shown(app)
        app.button(key=f"cancel_{mine.id}").click().run()
    found = queue.get_test_match(arena.engine, mine.id)
    assert found is not None and found.status == "cancelled"


def test_a_participant_may_not_request_for_someone_elses_bot(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob = storage.actor(arena.engine, "bob")
    with pytest.raises(actions.ActionError, match="belongs to alice"):
        actions.request_test_match(
            arena.engine, arena.url, arena.data, bot="alice_bot",
            opponents=["builtin:greedy"], boards=1, ruleset="classic", by=bob,
        )  # fmt: skip
    with pytest.raises(actions.ActionError, match="log in as a participant"):
        actions.request_test_match(
            arena.engine, arena.url, arena.data, bot="bob_bot",
            opponents=["builtin:greedy"], boards=1, ruleset="classic", by=None,
        )  # fmt: skip
