"""My bots (``dashboard/views/my_bots.py``) under ``AppTest``, on the canary arena
(:mod:`tests.privacy_support`) plus a ladder, a failed submission and a bot of ``other``.

Its owner sees each version's state (entered in a ladder, then withdrawn with the page's
button), its submission log, a failed submission that never became a version, and every
game with its own stderr; another participant sees only their own bots and cannot reach
the owner's, here or with ``arena bot logs`` (the controls: their own bot works for them);
games of a private tournament are listed for the user it is private to and organisers only;
the time per decision is the record's.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import Session, select
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.cli import main
from arena.storage.models import Entry, Tournament
from arena.storage.privacy import Viewer
from arena.storage.users import PermissionDenied
from arena.storage.workspace import author_bots, version_game_count
from arena.submission import SubmitError, submit_bot
from tests.dashboard.accounts_support import log_in
from tests.privacy_support import SAMPLES, TIME_CONTROL, CanaryArena, copied_canary_arena
from tests.test_privacy_canary import APP, everything

LADDER = "open_cup"

DECISION_MS = int(dict(p.split("=") for p in TIME_CONTROL.split(","))["decision"])
"""The cup's limit per decision, which "Max % of limit" divides by."""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CanaryArena]:
    root = tmp_path_factory.mktemp("my_bots")
    arena = copied_canary_arena(root)
    engine = arena.engine
    # other's own bot, and a first version of the owner's that failed its build.
    other_bot = root / "other_bot"
    shutil.copytree(SAMPLES / "random_bot", other_bot, ignore=shutil.ignore_patterns("__pycache__"))
    toml = other_bot / "bot.toml"
    toml.write_text(toml.read_text().replace('"random_bot"', '"other_bot"'))
    submit_bot(engine, other_bot, arena.data, submitter=storage.actor(engine, "other"))
    never = root / "never_bot"
    shutil.copytree(other_bot, never)
    (never / "bot.toml").write_text(
        toml.read_text().replace('"other_bot"', '"never_bot"')
        + "build = \"sh -c 'echo NEVER-BUILT-MARK; exit 2'\"\n"
    )
    with pytest.raises(SubmitError):
        submit_bot(engine, never, arena.data, submitter=storage.actor(engine, "owner"))
    assert main(["tournament", "create", LADDER, "--format", "ladder", "--bots",
                 "canary_bot,random_bot,greedy_bot", *arena.db()]) == 0  # fmt: skip
    yield arena
    engine.dispose()


def _my_bots(world: CanaryArena, monkeypatch: pytest.MonkeyPatch, who: str | None) -> AppTest:
    monkeypatch.setenv("ARENA_DB", world.url)
    monkeypatch.setenv("ARENA_DATA", str(world.data))
    app = AppTest.from_file(str(APP), default_timeout=120).run()
    if who is not None:
        log_in(app, who, world.passwords[who])
    app.switch_page("views/my_bots.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _table(app: AppTest, column: str) -> Any:
    """The first table on the page with *column*."""
    return next(d.value for d in app.dataframe if column in d.value.columns)


def test_a_spectator_is_asked_to_log_in(
    world: CanaryArena, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _my_bots(world, monkeypatch, None)
    assert "Log in (in the sidebar) to see your bots" in app.info[0].value
    assert world.canary not in everything(app) and not app.selectbox


def test_the_owner_sees_versions_logs_and_games(
    world: CanaryArena, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _my_bots(world, monkeypatch, "owner")
    assert app.selectbox(key="mybots_bot").options == ["canary_bot"]
    versions = _table(app, "State")
    assert list(versions["Label"]) == ["canary_bot@1.0.0"]
    assert versions["State"][0] == f"stored; entered in {LADDER}"
    assert list(versions["Games"]) == [6] and list(versions["Faulted games"]) == [6]
    shown = everything(app)
    assert "NEVER-BUILT-MARK" in shown and "build_failed" in shown  # never a version
    assert "== smoke game: 0 fault(s)" in shown  # the stored version's log
    games = _table(app, "Decisions")
    assert sorted(games["Game"]) == sorted(world.game_ids) and list(games["Faults"]) == [1] * 6
    assert world.canary in shown  # the newest game's stderr, below the table


def test_withdraw_from_a_ladder(world: CanaryArena, monkeypatch: pytest.MonkeyPatch) -> None:
    app = _my_bots(world, monkeypatch, "owner")
    (button,) = [b for b in app.button if b.label == "Withdraw from ladder"]
    button.click().run()
    assert not app.exception, [e.value for e in app.exception]
    with Session(world.engine) as session:
        entry = session.exec(
            select(Entry).where(Entry.bot_version_id == world.canary_version)
            .join(Tournament, Tournament.id == Entry.tournament_id)  # type: ignore[arg-type]
            .where(Tournament.name == LADDER)
        ).one()  # fmt: skip
    assert entry.left_because == "withdrawn" and entry.left_at is not None
    app = _my_bots(world, monkeypatch, "owner")
    assert _table(app, "State")["State"][0] == f"stored; withdrawn in {LADDER}"
    assert not [b for b in app.button if b.label == "Withdraw from ladder"]


def test_another_participant_sees_only_their_own_bots(
    world: CanaryArena, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _my_bots(world, monkeypatch, "other")
    assert app.selectbox(key="mybots_bot").options == ["other_bot"]  # the control: their own
    assert not app.sidebar.selectbox  # no choice of owner
    shown = everything(app)
    assert world.canary not in shown and "canary_bot" not in shown and "NEVER-BUILT" not in shown
    owner = storage.actor(world.engine, "owner")
    with pytest.raises(PermissionDenied):
        author_bots(world.engine, owner.id, Viewer.of(storage.actor(world.engine, "other")))


def test_bot_logs_refuses_another_participant(
    world: CanaryArena, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bot", "logs", "canary_bot", "--user", "other", *world.db()]) == 1
    assert "only owner or an organiser may read its logs" in capsys.readouterr().err
    assert main(["bot", "logs", "other_bot", "--user", "other", *world.db()]) == 0  # control
    assert "other_bot@1.0.0: stored; 0 game(s)" in capsys.readouterr().out
    assert main(["bot", "logs", "other_bot", "--user", "owner", *world.db()]) == 1
    assert "only other or an organiser" in capsys.readouterr().err


def test_private_tournament_games_are_their_users_and_organisers(
    world: CanaryArena, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, version = world.engine, world.canary_version
    users = {name: storage.actor(engine, name) for name in ("owner", "other", "olga")}
    _private_to(world, users["other"].id)
    try:
        # The owner's bot played in other's private tournament (as a test match's
        # opponent would): its games are other's and the organisers' to see.
        assert version_game_count(engine, version, Viewer.of(users["owner"])) == 0
        assert version_game_count(engine, version, Viewer.of(users["olga"])) == 6
        assert version_game_count(engine, version, Viewer(users["other"].id, True)) == 6
        app = _my_bots(world, monkeypatch, "owner")
        assert "No stored game yet." in [i.value for i in app.info]
        assert main(["export", "cup", "--out", str(world.data / "x"), "--user", "owner",
                     *world.db()]) == 1  # fmt: skip
    finally:
        _private_to(world, None)
    assert version_game_count(engine, version, Viewer.of(users["owner"])) == 6  # control


def _private_to(world: CanaryArena, user_id: int | None) -> None:
    with Session(world.engine) as session:
        tournament = session.get(Tournament, world.tournament_id)
        assert tournament is not None
        tournament.private_to = user_id
        session.add(tournament)
        session.commit()


def test_time_per_decision_is_the_records(
    world: CanaryArena, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _my_bots(world, monkeypatch, "olga")  # an organiser reads the host's random_bot
    app.sidebar.selectbox(key="mybots_owner").set_value(storage.actor(world.engine).id).run()
    app.selectbox(key="mybots_bot").set_value("random_bot").run()
    games = _table(app, "Decisions")
    records = {g: r for g, (_, r) in zip(world.game_ids, storage.tournament_records(
        world.engine, world.tournament_id), strict=True)}  # fmt: skip
    for _, row in games.iterrows():
        record = records[int(row["Game"])]
        seat = [p.split("@")[0] for p in record["players"]].index("random_bot")
        times = sorted(record["timings"]["decision_ms"][seat])
        assert row["Decisions"] == len(times) > 0
        assert row["Mean ms"] == pytest.approx(sum(times) / len(times))
        assert row["p99 ms"] == times[math.ceil(0.99 * len(times)) - 1]
        assert row["Max ms"] == times[-1]
        assert row["Max % of limit"] == pytest.approx(100 * times[-1] / DECISION_MS)
