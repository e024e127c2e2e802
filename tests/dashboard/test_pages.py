"""Every dashboard page under Streamlit's ``AppTest`` on a seeded database: no exception,
and the numbers on screen are the database's."""

# ruff: noqa: RUF001  (the column names on screen use the Greek mu and sigma)

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.replay.steps import build_replay
from dashboard import actions
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.seed import STDERR, Seeded, seeded_sqlite
from tests.replay.support import embedded, seat_leaks, viewer_documents

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboard" / "app.py"
SAMPLES = ROOT / "sample_bots"


@pytest.fixture
def open_app(seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """``open_app(page, **query)``: the app on the seeded database, on one page."""
    monkeypatch.setenv("ARENA_DB", seeded.url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))

    def open_page(page: str | None = None, url: str | None = None, **query: str) -> AppTest:
        if url is not None:
            monkeypatch.setenv("ARENA_DB", url)
        app = AppTest.from_file(str(APP), default_timeout=120)
        app.query_params.update(query)
        app.run()
        if page is not None:
            app.switch_page(f"views/{page}.py").run()
        assert not app.exception, [e.value for e in app.exception]
        return app

    yield open_page


def texts(app: AppTest) -> str:
    """Every markdown, caption, alert and text on the page, as one string."""
    parts: list[str] = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "text", "code"):
        parts += [str(e.value) for e in getattr(app, kind)]
    return "\n".join(parts)


def test_standings(open_app: Any, seeded: Seeded) -> None:
    app = open_app(tournament="main")
    assert app.title[0].value == "Standings"
    assert "24 / 24 games stored (finished)" in app.get("progress")[0].proto.text
    table = app.dataframe[0].value
    expected = storage.standings(seeded.engine, seeded.tournament_id)
    assert list(table["Bot"]) == [r.bot for r in expected]
    assert list(table["Rank"]) == [1, 2, 3, 4]
    assert list(table["Games"]) == [18] * 4
    # Wins and mean score leave faulted games out (issue 34, item 8).
    assert list(table["Wins"]) == [r.clean_wins for r in expected]
    assert list(table["Rating (μ − 3σ)"]) == pytest.approx([r.mu - 3 * r.sigma for r in expected])
    assert list(table["μ"]) == pytest.approx([r.mu for r in expected])
    assert list(table["± 3σ"]) == pytest.approx([3 * r.sigma for r in expected])
    assert list(table["Mean score"]) == pytest.approx([r.clean_mean_score for r in expected])
    assert list(table["Made 9"]) == pytest.approx([r.made_9 for r in expected])
    assert list(table["Faults"]) == [r.faults for r in expected]
    assert sum(table["Faults"]) == len(seeded.faulted)


@pytest.mark.slow
def test_standings_follow_a_running_tournament(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seeded = seeded_sqlite(tmp_path / "live.db", running_games=6)
    monkeypatch.setenv("ARENA_DB", seeded.url)
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.query_params["tournament"] = "live"
    app.run()
    assert "6 / 24 games stored (running)" in app.get("progress")[0].proto.text
    assert "Ratings cover" not in texts(app)  # one whole board: all of it rated
    from tests.dashboard.seed import store_next_game  # noqa: PLC0415

    store_next_game(seeded, seeded.running_id)
    time.sleep(1.1)  # the progress poll is cached for a second
    app.run()
    assert "7 / 24 games stored (running)" in app.get("progress")[0].proto.text
    # The 7th game opens a board that is not whole yet: stored and counted, not rated.
    assert "Ratings cover 6 of 7 stored games: ratings follow the schedule" in texts(app)
    assert not app.exception


def test_rating_history(open_app: Any, seeded: Seeded) -> None:
    app = open_app("rating_history", tournament="main")
    assert app.title[0].value == "Rating history"
    assert app.get("vega_lite_chart")
    table = app.dataframe[0].value
    current = {r.bot: r for r in storage.standings(seeded.engine, seeded.tournament_id)}
    assert sorted(table["Bot"]) == sorted(current)
    for bot, games, mu in zip(table["Bot"], table["Games"], table["μ"], strict=True):
        assert games == 18 and mu == pytest.approx(current[bot].mu)
    app.multiselect[0].unselect("bravo@1.0").run()
    assert sorted(app.dataframe[0].value["Bot"]) == ["alpha@1.0", "charlie@1.0", "delta@1.0"]


def test_statistics(open_app: Any, seeded: Seeded) -> None:
    app = open_app("statistics", tournament="main")
    assert app.title[0].value == "Statistics"
    head = app.dataframe[0].value
    pairs = storage.head_to_head(seeded.engine, seeded.tournament_id)
    assert list(head["Bot A"]) == [p.bot_a for p in pairs]
    assert list(head["Mean A - B"]) == pytest.approx([p.mean_diff for p in pairs])
    assert list(head["95% CI low"]) == pytest.approx([p.ci_low for p in pairs])
    assert list(head["Games together"]) == [p.games for p in pairs]
    contracts = app.dataframe[1].value.set_index("Bot")
    for row in storage.standings(seeded.engine, seeded.tournament_id):
        assert contracts.loc[row.bot, "Made 9"] == pytest.approx(row.made_9)
        assert contracts.loc[row.bot, "Made 2"] == pytest.approx(row.made_2)
    stats = storage.record_stats(seeded.engine, seeded.tournament_id)
    for bot, contract, _hands, mean in stats.deltas:
        assert contracts.loc[bot, f"Δ {contract}"] == pytest.approx(mean)
    assert "Hands, made rates, mean deltas (Δ) and trump calls: all 24 games." in texts(app)
    trumps = app.dataframe[2].value.set_index("Bot")
    assert trumps.sum(axis=1).to_numpy() == pytest.approx([1.0] * len(trumps))
    faults = app.dataframe[3].value.set_index("Bot")
    assert faults["Faulted games"].sum() == len(seeded.faulted)
    assert "No fault" not in texts(app)


def test_bots(open_app: Any, seeded: Seeded) -> None:
    index, seat = seeded.faulted[0]
    faulty = seeded.records[index]["players"][seat].split("@")[0]
    app = open_app("bots", bot=faulty)
    assert app.title[0].value == "Bots"
    table = app.dataframe[0].value
    assert list(table["Bot"]) == ["alpha", "bravo", "charlie", "delta"]
    assert list(table["Faulted games"]) == [
        sum(1 for i, s in seeded.faulted if seeded.records[i]["players"][s] == f"{b}@1.0")
        for b in table["Bot"]
    ]
    assert app.selectbox[0].value == faulty
    assert app.json[0].value  # the manifest
    assert '"name":"' + faulty + '"' in app.json[0].value.replace(" ", "")
    shown = texts(app)
    # A spectator sees the fault's kind, hand and decision, never the bot's stderr or the
    # fault's detail (docs/security.md, "Privacy of a bot's logs") ...
    assert any("hand 1 · trump: timeout" in e.label for e in app.expander)
    assert STDERR not in shown and "ValueError" not in shown
    assert "no answer in 1050 ms" not in shown
    # ... and the control: an organiser reads both, on the same page.
    log_in(app, "bots_org", add_account(seeded.engine, "bots_org", "organiser"))
    shown = texts(app)
    assert STDERR in shown
    assert "no answer in 1050 ms" in shown


def _zip_dir(directory: Path, top: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(directory.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                archive.write(path, f"{top}/{path.relative_to(directory)}")
    return buffer.getvalue()


def test_bots_submit_an_archive(open_app: Any, seeded: Seeded) -> None:
    app = open_app("bots")
    log_in(app, "uploader", add_account(seeded.engine, "uploader", "participant"))
    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("bot.toml", "name = 'x'\n")
        archive.writestr("../escape.py", "x")
    app.file_uploader[0].upload("evil.zip", evil.getvalue())
    app.button(key="FormSubmitter:submit_bot-Submit").click().run()
    assert "archive refused" in texts(app) and "path traversal" in texts(app)

    app.file_uploader[0].upload("random_bot.zip", _zip_dir(SAMPLES / "random_bot", "random_bot"))
    app.button(key="FormSubmitter:submit_bot-Submit").click().run(timeout=180)
    assert not app.exception
    assert "Stored random_bot@1.0.0." in texts(app), texts(app)
    assert "random_bot" in list(app.dataframe[0].value["Bot"])


def test_tournaments_create_start_and_follow(tournaments_page: tuple[AppTest, Engine]) -> None:
    app, engine = tournaments_page
    assert "No tournament yet." in texts(app)
    app.text_input[0].input("cup")
    assert app.multiselect[0].value == ["greedy_bot", "heuristic_bot", "random_bot"]
    app.number_input[0].set_value(1)
    app.button(key="FormSubmitter:create_tournament-Create").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert (
        "created tournament 'cup': 3 bots, 1 table(s) x 1 board(s) x 6 seatings = 6 games"
        in texts(app)
    )
    tournament = storage.get_tournament(engine, "cup")
    deadline = time.monotonic() + 180
    while storage.progress(engine, storage.row_id(tournament)).status != "finished":
        assert time.monotonic() < deadline, actions.runner("cup")
        time.sleep(0.5)
    runner = actions.runner("cup")
    assert runner is not None
    runner.process.wait(timeout=60)
    assert runner.exit_code == 0
    time.sleep(2.1)  # cached lists expire
    app.run()
    assert "Finished" in texts(app)
    assert "6 / 6 games" in texts(app)
    # The runner's console output stays in its log (named for organisers), off the page.
    assert "Standings: cup" not in texts(app) and "━" not in texts(app)
    assert "The runner's whole output:" in texts(app)
    listed = app.dataframe[0].value
    assert (list(listed["Status"]), list(listed["Games"])) == (["finished"], ["6 / 6"])
    assert len(storage.stored_indexes(engine, storage.row_id(tournament))) == 6

    app.text_input[0].input("cup")
    app.button(key="FormSubmitter:create_tournament-Create").click().run()
    assert "tournament 'cup' already exists" in texts(app)
    engine.dispose()


def test_replays_show_a_game_with_a_fault_in_the_viewer(open_app: Any, seeded: Seeded) -> None:
    index, seat = seeded.faulted[0]
    game_id = seeded.game_ids[index]
    record = seeded.records[index]
    app = open_app("replays", tournament="main", game=str(game_id))
    assert app.title[0].value == "Replays"
    assert app.selectbox(key="replay_pick").value == game_id
    # The whole game goes to the browser once: every step, every view, as the observer
    # draws them, and no seat's view shows another's cards.
    (document,) = viewer_documents(app)
    frames = embedded(document, "frames")
    replay = build_replay(record)
    assert frames["players"] == record["players"]
    assert len(frames["steps"]) == len(replay.steps)
    assert seat_leaks(frames, replay) == []
    assert embedded(document, "options")["start_step"] == 0
    # The fault and the autopilot are marked at their step (the trump call of hand 1).
    marked = [step for step in frames["steps"] if step[4]]
    assert [(f["seat"], f["kind"]) for f in marked[0][4]] == [(str(seat), "timeout")]
    assert any(step[3] and step[2] == seat for step in frames["steps"])

    hands = app.dataframe[0].value
    assert list(hands["Hand"]) == [h["number"] for h in record["hands"]]
    assert list(hands["Trump"]) == [h["trump"] for h in record["hands"]]
    assert list(hands["Scores"]) == [
        "/".join(f"{s:+d}" for s in h["scores"]) for h in record["hands"]
    ]
    # A spectator sees the fault, not the bot's stderr; the control: an organiser does.
    assert f"seat {seat}" in texts(app) and "timeout" in texts(app)
    assert STDERR not in texts(app) and "ValueError" not in texts(app)
    assert STDERR not in document and "ValueError" not in document
    log_in(app, "replays_org", add_account(seeded.engine, "replays_org", "organiser"))
    assert STDERR in texts(app)


def test_replays_step_link_opens_the_viewer_at_that_step(open_app: Any, seeded: Seeded) -> None:
    game_id = seeded.game_ids[3]
    app = open_app("replays", tournament="main", game=str(game_id), step="12")
    (document,) = viewer_documents(app)
    assert embedded(document, "options")["start_step"] == 12
    assert app.query_params["step"] == "12"
    # Another game picked: its viewer starts at its first step, and the link forgets the step.
    app.selectbox(key="replay_pick").set_value(seeded.game_ids[4]).run()
    (document,) = viewer_documents(app)
    assert embedded(document, "options")["start_step"] == 0
    assert "step" not in app.query_params


def test_replays_filter_by_bot_and_running_note(open_app: Any, seeded: Seeded) -> None:
    delta = seeded.versions["delta"]
    app = open_app("replays", tournament="main")
    app.selectbox[0].set_value(delta).run()
    options = app.selectbox(key="replay_pick").options
    assert len(options) == 18 and all("delta@1.0" in o for o in options)
    app = open_app("replays", tournament="live")
    assert "is running: a game can be replayed once it is over" in texts(app)
