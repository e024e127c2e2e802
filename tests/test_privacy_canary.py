"""The canary test: a bot's stderr and its faults' details reach its owner and
organisers only.

A real bot prints a unique canary on stdout and stderr and times out in every game of a
stored tournament (:mod:`tests.privacy_support`), so the canary is in every record's
``bot_logs`` and in every fault's ``stderr_tail``. Then: the canary, and the faults'
detail, appear nowhere on any page a spectator or another participant can open (Replays
of every game, Bots, Statistics, My bots: everything each page sends to the browser,
tables and code blocks included), nor in ``arena export --user OTHER``, ``arena replay
--user OTHER`` or ``arena bot logs`` run by another participant. The controls: the owner
and an organiser see them on the same pages and in the same commands.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.cli import main
from arena.storage.privacy import HIDDEN
from tests.dashboard.accounts_support import log_in
from tests.privacy_support import ROOT, CanaryArena, copied_canary_arena

APP = ROOT / "dashboard" / "app.py"
DETAIL = "no answer in 500 ms"
"""The canary bot's faults' detail: also its owner's and organisers' only."""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CanaryArena]:
    arena = copied_canary_arena(tmp_path_factory.mktemp("canary"))
    yield arena
    arena.engine.dispose()


def everything(app: AppTest) -> str:
    """Everything the page sent to the browser: every element's message (text, tables'
    Arrow data, code blocks, JSON, widget labels and options), as one string."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(app._tree)
    return "\n".join(parts)


def open_page(
    world: CanaryArena, monkeypatch: pytest.MonkeyPatch, who: str | None, page: str, **query: str
) -> AppTest:
    """*page* as *who* sees it (``None``: a spectator), logged in through the sidebar."""
    monkeypatch.setenv("ARENA_DB", world.url)
    monkeypatch.setenv("ARENA_DATA", str(world.data))
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params.update(query)
    app.run()
    if who is not None:
        log_in(app, who, world.passwords[who])
    app.switch_page(f"views/{page}.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def pages(world: CanaryArena) -> list[tuple[str, dict[str, str]]]:
    """Every page that shows bot text, with its query: the replay of each game."""
    return [
        ("bots", {"bot": "canary_bot"}),
        ("statistics", {"tournament": "cup"}),
        ("my_bots", {}),
        *(("replays", {"tournament": "cup", "game": str(g)}) for g in world.game_ids),
    ]


@pytest.mark.parametrize("who", [None, "other"])
def test_no_page_shows_the_canary_to_a_spectator_or_another_participant(
    world: CanaryArena, monkeypatch: pytest.MonkeyPatch, who: str | None
) -> None:
    for page, query in pages(world):
        shown = everything(open_page(world, monkeypatch, who, page, **query))
        assert world.canary not in shown, (who, page, query)
        assert DETAIL not in shown, (who, page, query)
        if page in ("bots", "replays"):
            assert "timeout" in shown  # the fault itself is public: its kind, hand, decision


@pytest.mark.parametrize("who", ["owner", "olga"])
def test_the_owner_and_an_organiser_see_the_canary(
    world: CanaryArena, monkeypatch: pytest.MonkeyPatch, who: str
) -> None:
    faulted = world.game_ids[0]
    for page, query in [
        ("bots", {"bot": "canary_bot"}),
        ("replays", {"tournament": "cup", "game": str(faulted)}),
    ]:
        shown = everything(open_page(world, monkeypatch, who, page, **query))
        assert world.canary in shown and DETAIL in shown, (who, page)
    statistics = everything(open_page(world, monkeypatch, who, "statistics", tournament="cup"))
    assert DETAIL in statistics  # its table shows the detail (the stderr is on the others)
    my_bots = open_page(world, monkeypatch, who, "my_bots")
    if who == "olga":  # an organiser chooses whose workspace to read
        owner = storage.actor(world.engine, "owner").id
        my_bots.sidebar.selectbox(key="mybots_owner").set_value(owner).run()
    assert world.canary in everything(my_bots), who


def test_the_cache_keeps_viewers_apart(world: CanaryArena, monkeypatch: pytest.MonkeyPatch) -> None:
    # The owner's page fills the dashboard's caches first; a spectator's page right after
    # it, in the same process, must not be served the owner's copy.
    game = str(world.game_ids[1])
    owner = everything(
        open_page(world, monkeypatch, "owner", "replays", tournament="cup", game=game)
    )
    assert world.canary in owner
    spectator = everything(
        open_page(world, monkeypatch, None, "replays", tournament="cup", game=game)
    )
    # (Protobuf's text escapes the detail's apostrophe: look for its start.)
    assert world.canary not in spectator and HIDDEN.split("'")[0] in spectator
    bots_owner = everything(open_page(world, monkeypatch, "owner", "bots", bot="canary_bot"))
    assert world.canary in bots_owner
    bots_other = everything(open_page(world, monkeypatch, "other", "bots", bot="canary_bot"))
    assert world.canary not in bots_other


# ---------------------------------------------------------------------------- the CLI


def _files(directory: Path) -> str:
    return "\n".join(p.read_text() for p in sorted(directory.glob("*.json")))


def test_an_export_for_another_user_holds_no_canary(
    world: CanaryArena, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = {who: tmp_path / (who or "host") for who in ("other", "owner", "olga", None)}
    for who, out in outs.items():
        user = [] if who is None else ["--user", who]
        assert main(["export", "cup", "--out", str(out), *user, *world.db()]) == 0
    other = _files(outs["other"])
    assert len(list(outs["other"].glob("*.json"))) == 6
    assert world.canary not in other and DETAIL not in other and HIDDEN in other
    for record in map(json.loads, (p.read_text() for p in outs["other"].glob("*.json"))):
        assert record["hands"] and record["result"]  # the game itself is all there
        assert all(f["kind"] == "timeout" and f["hand"] == 1 for f in record["faults"])
    # The controls: the owner's export, an organiser's, and the host's complete one.
    for who in ("owner", "olga", None):
        assert world.canary in _files(outs[who]) and DETAIL in _files(outs[who]), who
    assert _files(outs[None]) == _files(outs["olga"])


def test_replay_as_another_user_hides_the_fault_detail(
    world: CanaryArena, capsys: pytest.CaptureFixture[str]
) -> None:
    game = str(world.game_ids[0])
    assert main(["replay", game, "--user", "other", *world.db()]) == 0
    other = capsys.readouterr().out
    assert "timeout" in other and DETAIL not in other and world.canary not in other
    assert main(["replay", game, "--user", "owner", *world.db()]) == 0
    assert DETAIL in capsys.readouterr().out  # the control


def test_bot_logs_only_for_the_owner_and_organisers(
    world: CanaryArena, capsys: pytest.CaptureFixture[str]
) -> None:
    game = str(world.game_ids[0])
    for args in ([], ["--game", game]):
        assert main(["bot", "logs", "canary_bot", *args, "--user", "other", *world.db()]) == 1
        out, err = capsys.readouterr()
        assert world.canary not in out + err
        assert err.strip().count("\n") == 0 and "only owner or an organiser" in err
    for who in ("owner", "olga"):  # the controls
        assert main(["bot", "logs", "canary_bot", "--game", game, "--user", who, *world.db()]) == 0
        out = capsys.readouterr().out
        assert world.canary in out and DETAIL in out, who
