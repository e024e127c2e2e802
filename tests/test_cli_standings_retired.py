"""``arena standings`` hides a ladder's retired versions unless ``--all`` (issue 34, item 5).

A ladder of alpha, bravo and charlie; alpha's version 2 enters and retires version 1.
Without ``--all`` version 1 is gone from the table and the JSON (which counts it in
``retired_hidden``), and the rest are ranked among themselves (1 to 3, no gap, the last
row without a P(>next)); with ``--all`` it is there, marked ``(retired)`` and
``"retired": true``. Control: a withdrawn bot (it has no newer version) stays, marked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from arena import storage
from arena.cli import main
from arena.storage.database import open_database
from arena.tournament import setup
from tests.migrated_sqlite import migrated_sqlite_url
from tests.storage.helpers import checksum

LADDER = "club ladder"


def _version(engine: Engine, name: str, version: str) -> int:
    fields = {"name": name, "version": version, "language": "python", "run": ["x"]}
    stored, _ = storage.add_bot_version(
        engine, fields, checksum(f"{name}@{version}"), f"/bots/{name}/{version}"
    )
    return storage.row_id(stored)


@pytest.fixture
def ladder(tmp_path: Path) -> Iterator[tuple[str, Engine, int]]:
    """The ladder's database URL, its engine and id; alpha@1 retired by alpha@2."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    for name in ("alpha", "bravo", "charlie"):
        _version(engine, name, "1")
    tournament, _ = setup.create_tournament(
        engine,
        by=storage.actor(engine),
        name=LADDER,
        ruleset="classic",
        bots=["alpha", "bravo", "charlie"],
        boards=1,
        seed=5,
        format_name="ladder",
        ladder=setup.LadderOptions(),
    )
    tournament_id = storage.row_id(tournament)
    storage.enter_version(engine, tournament_id, _version(engine, "alpha", "2"))
    yield url, engine, tournament_id
    engine.dispose()


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["standings", LADDER, "--json", *argv]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert isinstance(answer, dict)
    return answer


def test_retired_versions_are_hidden_unless_all_and_marked_when_shown(
    ladder: tuple[str, Engine, int], capsys: pytest.CaptureFixture[str]
) -> None:
    url = ladder[0]
    assert main(["standings", LADDER, "--db", url]) == 0
    out = capsys.readouterr().out
    assert "alpha@1" not in out and "alpha@2" in out
    assert "1 retired ladder version(s) hidden" in out and "--all" in out

    assert main(["standings", LADDER, "--all", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "alpha@1 (retired)" in out and "hidden" not in out

    hidden = _json(capsys, "--db", url)
    rows = hidden["standings"]
    assert [r["label"] for r in rows if r["bot"] == "alpha"] == ["alpha@2"]
    assert hidden["retired_hidden"] == 1
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert rows[-1]["p_above_next"] is None and all(r["rank_high"] <= 3 for r in rows)
    assert not any(r["retired"] for r in rows)

    shown = _json(capsys, "--all", "--db", url)
    assert shown["retired_hidden"] == 0
    retired = [r for r in shown["standings"] if r["retired"]]
    assert [(r["label"], r["left"]) for r in retired] == [("alpha@1", "retired")]
    assert [r["rank"] for r in shown["standings"]] == [1, 2, 3, 4]


def test_control_a_withdrawn_bot_stays_in_the_standings_marked(
    ladder: tuple[str, Engine, int], capsys: pytest.CaptureFixture[str]
) -> None:
    url, engine, tournament_id = ladder
    bravo = storage.bot_versions(engine, "bravo")[-1]
    storage.withdraw_entry(engine, tournament_id, storage.row_id(bravo), storage.actor(engine))
    assert main(["standings", LADDER, "--db", url]) == 0
    assert "bravo@1 (withdrawn)" in capsys.readouterr().out
    rows = _json(capsys, "--db", url)["standings"]
    assert [r["left"] for r in rows if r["bot"] == "bravo"] == ["withdrawn"]
    assert not any(r["retired"] for r in rows)


def test_control_a_tournament_with_nothing_retired_says_nothing_hidden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    for name in ("alpha", "bravo", "charlie"):
        _version(engine, name, "1")
    setup.create_tournament(
        engine,
        by=storage.actor(engine),
        name=LADDER,
        ruleset="classic",
        bots=["alpha", "bravo", "charlie"],
        boards=1,
        seed=5,
        format_name="ladder",
        ladder=setup.LadderOptions(),
    )
    engine.dispose()
    assert main(["standings", LADDER, "--db", url]) == 0
    out = capsys.readouterr().out
    assert "hidden" not in out and "alpha@1" in out
    assert _json(capsys, "--db", url)["retired_hidden"] == 0
