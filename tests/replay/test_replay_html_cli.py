"""``arena replay ID --html FILE``: the replay viewer in one offline file, as the reader may
read the record, refused while the game's cards are held back; errors in one line."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import cli
from arena.storage.models import TABLE_DEALS
from tests.dashboard.accounts_support import add_account
from tests.dashboard.seed import STDERR, Seeded, seeded_sqlite
from tests.dashboard.test_held_back_deals import FAULTED, _make_cup

_FRAMES = re.compile(r'<script type="application/json" id="frames">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    seeded = seeded_sqlite(tmp_path_factory.mktemp("seed") / "arena.db")
    yield seeded
    seeded.engine.dispose()


def _replay(url: str, *args: str) -> Result:
    return CliRunner().invoke(cli, ["replay", *args, "--db", url], terminal_width=200)


def _frames(path: Path) -> dict[str, object]:
    found = _FRAMES.search(path.read_text(encoding="utf-8"))
    assert found is not None
    loaded: dict[str, object] = json.loads(found.group(1))
    return loaded


def test_html_writes_the_viewer_of_the_game(seeded: Seeded, tmp_path: Path) -> None:
    index, seat = seeded.faulted[0]
    out = tmp_path / "game.html"
    result = _replay(seeded.url, str(seeded.game_ids[index]), "--html", str(out))
    assert result.exit_code == 0, result.output
    assert f"to {out}" in result.output and len(result.output.splitlines()) == 1
    document = out.read_text(encoding="utf-8")
    assert document.startswith("<!DOCTYPE html>") and "default-src 'none'" in document
    frames = _frames(out)
    assert frames["players"] == seeded.records[index]["players"]
    faults = [f for step in frames["steps"] for f in step[4]]  # type: ignore[attr-defined]
    # The host's organiser reads every fault's detail; no stderr is ever in the viewer.
    assert [f["detail"] for f in faults] == ["no answer in 1050 ms"]
    assert STDERR not in document and "ValueError" not in document
    assert str(seat) == faults[0]["seat"]


def test_html_shows_fault_details_as_user_may_read_them(seeded: Seeded, tmp_path: Path) -> None:
    index, _ = seeded.faulted[0]
    add_account(seeded.engine, "spectator_html", "participant")
    out = tmp_path / "spectator.html"
    result = _replay(
        seeded.url, str(seeded.game_ids[index]), "--html", str(out), "--user", "spectator_html"
    )
    assert result.exit_code == 0, result.output
    assert "no answer in 1050 ms" not in out.read_text(encoding="utf-8")


def test_html_refuses_a_held_back_game(tmp_path: Path) -> None:
    cup = _make_cup(tmp_path, TABLE_DEALS, None)  # running, secret deals, game 7's group open
    url = str(cup.engine.url)
    try:
        out = tmp_path / "held.html"
        result = _replay(url, str(cup.game_ids[FAULTED]), "--html", str(out))
        assert result.exit_code == 1
        assert "held back" in result.output and "(3 of 6 stored)" in result.output
        assert len(result.output.strip().splitlines()) == 1
        assert not out.exists()
        # The control: game 2's 6 seatings are all stored, it is written.
        written = _replay(url, str(cup.game_ids[2]), "--html", str(out))
        assert written.exit_code == 0, written.output
        assert out.exists()
    finally:
        cup.engine.dispose()


def test_the_text_replay_refuses_a_held_back_game_too(tmp_path: Path) -> None:
    """The readable replay prints every seat's cards as well: held back the same way."""
    cup = _make_cup(tmp_path, TABLE_DEALS, None)
    url = str(cup.engine.url)
    try:
        result = _replay(url, str(cup.game_ids[FAULTED]))
        assert result.exit_code == 1
        (line,) = result.output.strip().splitlines()
        assert "held back" in line and "(3 of 6 stored)" in line
        # The control: a game whose 6 seatings are all stored is shown, cards and all.
        shown = _replay(url, str(cup.game_ids[2]))
        assert shown.exit_code == 0, shown.output
        assert "Hand 1" in shown.output or "hand 1" in shown.output.lower()
    finally:
        cup.engine.dispose()


@pytest.mark.parametrize("where", ["missing/dir/game.html", "file/game.html"])
def test_a_bad_path_is_one_line(seeded: Seeded, tmp_path: Path, where: str) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    out = tmp_path / where
    result = _replay(seeded.url, str(seeded.game_ids[0]), "--html", str(out))
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("Error: cannot write") or "cannot write" in line
    assert not out.exists()


def test_without_html_the_text_replay_is_unchanged(seeded: Seeded) -> None:
    result = _replay(seeded.url, str(seeded.game_ids[0]))
    assert result.exit_code == 0, result.output
    assert "Hand 1: dealer seat" in result.output and "<!DOCTYPE" not in result.output
