"""``arena analyse``: text and JSON, one-line errors, privacy and the held-back rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from arena import storage
from arena.cli import main
from arena.game.rules import PRESETS
from arena.storage.privacy import ORGANISER, Viewer
from arena.storage.travellers import duplicate_games
from tests.analysis.support import BRAVO_DETAIL, BRAVO_STDERR, Cup, cup_url, make_cup


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Cup:
    return make_cup(cup_url(tmp_path_factory.mktemp("cli")))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["analyse", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_text(cup: Cup, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "alpha", "--tournament", "cup", "--db", str(cup.engine.url))
    assert (code, err) == (0, "")
    assert out.startswith("Duplicate analysis of alpha in cup: 18 game seat(s) on 9 traveller(s)")
    for heading in ("Travellers", "Biggest losses", "By contract", "By decision kind"):
        assert heading in out
    assert out.count("* game") == 18


def test_json(cup: Cup, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "alpha", "--tournament", "cup", "--json", "--db", str(cup.engine.url)
    )
    data = json.loads(out)
    assert code == 0
    assert data["schema"] == "arena952.analysis/1"
    assert len(data["travellers"]) == 9
    assert {r["player"] for t in data["travellers"] for r in t["rows"] if r["mine"]} == {
        "alpha@1.0"
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nobody", "--tournament", "cup"], "no bot named 'nobody'"),
        (["alpha", "--tournament", "nope"], "no tournament named 'nope'"),
        (["alpha", "--tournament", "swiss"], "has no duplicate deals"),
        (["eve", "--tournament", "cup"], "did not play in tournament 'cup'"),
    ],
)
def test_errors_are_one_line(
    cup: Cup, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    if not any(t.name == "swiss" for t in storage.tournament_overview(cup.engine)):
        storage.create_tournament(
            cup.engine,
            name="swiss",
            ruleset="classic",
            rules_json=json.dumps(PRESETS["classic"].to_json()),
            time_control="decision=1000,bank=10000,grace=50,startup=10000",
            boards=1,
            seed=1,
            rating_mode="board",
            entries=cup.ids[:3],
            games_total=6,
            format="swiss",
        )
        storage.add_bot_version(
            cup.engine,
            {"name": "eve", "version": "1", "language": "python", "run": ["python", "b.py"]},
            "e" * 64,
            "/bots/eve",
        )
    code, out, err = _run(capsys, *args, "--db", str(cup.engine.url))
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert message in err


def test_another_users_stderr_never_appears(cup: Cup, capsys: pytest.CaptureFixture[str]) -> None:
    ann = storage.actor(cup.engine, "ann")
    ben = storage.actor(cup.engine, "ben")
    as_ann = duplicate_games(cup.engine, "cup", "alpha", Viewer.of(ann), lambda *_: False)
    as_ben = duplicate_games(cup.engine, "cup", "alpha", Viewer.of(ben), lambda *_: False)
    as_org = duplicate_games(cup.engine, "cup", "alpha", ORGANISER, lambda *_: False)
    assert BRAVO_STDERR not in json.dumps([g.record for g in as_ann.games])
    assert BRAVO_DETAIL not in json.dumps([g.record for g in as_ann.games])
    # The controls: the records hold it, and its owner and organisers read it.
    assert BRAVO_STDERR in json.dumps([g.record for g in as_ben.games])
    assert BRAVO_STDERR in json.dumps([g.record for g in as_org.games])
    for extra in ([], ["--json"]):
        code, out, err = _run(
            capsys, "alpha", "--tournament", "cup", "--user", "ann", *extra,
            "--db", str(cup.engine.url),
        )  # fmt: skip
        assert code == 0, err
        assert "SECRET" not in out + err


def test_held_back_games_are_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A running cup with secret deals: table 0's board (games 0-5) is complete, table 1's
    has games 6-8 of 6, so those are left out; once finished they count (the control)."""
    cup = make_cup(cup_url(tmp_path), stored=9, status="running")
    url = str(cup.engine.url)
    code, out, _ = _run(capsys, "alpha", "--tournament", "cup", "--json", "--db", url)
    data = json.loads(out)
    used = {r["schedule_index"] for t in data["travellers"] for r in t["rows"]}
    assert (code, used) == (0, set(range(6)))
    assert data["held_back_games"] == 3  # alpha (entrant 0) sits in every game of table 1
    storage.set_status(cup.engine, cup.tournament_id, "finished")
    code, out, _ = _run(capsys, "alpha", "--tournament", "cup", "--json", "--db", url)
    used = {r["schedule_index"] for t in json.loads(out)["travellers"] for r in t["rows"]}
    assert used == set(range(9))


def test_no_games_to_analyse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cup = make_cup(cup_url(tmp_path), stored=3, status="running")
    code, out, err = _run(capsys, "alpha", "--tournament", "cup", "--db", str(cup.engine.url))
    assert (code, out) == (1, "")
    assert err == (
        "arena: error: no games of bot 'alpha' in tournament 'cup' to analyse "
        "(3 held back until their boards are played)\n"
    )


def test_a_hostile_name_cannot_drive_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot label with terminal controls and a line break is shown escaped, on its row's
    line; the control: the stored label holds the raw escape."""
    cup = make_cup(cup_url(tmp_path))
    evil = "delta\x1b[2J\nFAKE LINE@1.0"
    with cup.engine.begin() as db:
        db.execute(text("UPDATE bot_version SET label = :l WHERE label = 'delta@1.0'"), {"l": evil})
        (stored,) = db.execute(text("SELECT label FROM bot_version WHERE label = :l"), {"l": evil})
    assert "\x1b" in stored[0]
    code, out, _ = _run(capsys, "alpha", "--tournament", "cup", "--db", str(cup.engine.url))
    assert code == 0
    assert "\x1b" not in out
    assert not any(line.startswith("FAKE LINE") for line in out.splitlines())
    assert "delta\\x1b[2J FAKE LINE@1.0" in out
