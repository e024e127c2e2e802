"""Bots, their versions and labels; tournaments and their entrants."""

from __future__ import annotations

import json
from datetime import UTC

import pytest
from sqlalchemy import Engine

from arena.storage import (
    StorageError,
    add_bot_version,
    bot_versions,
    entries,
    get_bot,
    get_tournament,
    latest_version,
    list_bots,
    list_tournaments,
    set_status,
)
from tests.storage.helpers import checksum, make_bots, make_tournament

FIELDS = {"name": "alpha", "version": "1.0", "language": "python", "run": ["python", "bot.py"]}


def test_versions_labels_and_unchanged_resubmission(engine: Engine) -> None:
    first, created = add_bot_version(engine, FIELDS, checksum("a"), "/store/alpha/1")
    assert created
    assert (first.seq, first.label, first.version, first.language) == (
        1,
        "alpha@1.0",
        "1.0",
        "python",
    )
    assert json.loads(first.manifest) == FIELDS
    assert first.submitted_at.tzinfo is not None

    again, created = add_bot_version(engine, FIELDS, checksum("a"), "/elsewhere")
    assert not created
    assert (again.id, again.path) == (first.id, "/store/alpha/1")

    changed, created = add_bot_version(engine, FIELDS, checksum("b"), "/store/alpha/2")
    assert created
    assert (changed.seq, changed.label) == (2, f"alpha@1.0+{checksum('b')[:8]}")

    newer, _ = add_bot_version(engine, {**FIELDS, "version": "1.1"}, checksum("c"), "/s/3")
    assert (newer.seq, newer.label) == (3, "alpha@1.1")

    # Going back to earlier files is a new submission (the latest differs), labelled apart.
    back, created = add_bot_version(engine, FIELDS, checksum("a"), "/store/alpha/4")
    assert created
    assert (back.seq, back.label) == (4, f"alpha@1.0+{checksum('a')[:8]}")
    back_b, _ = add_bot_version(engine, FIELDS, checksum("b"), "/store/alpha/5")
    assert back_b.label == f"alpha@1.0+{checksum('b')[:8]}.5"

    assert [v.seq for v in bot_versions(engine, "alpha")] == [1, 2, 3, 4, 5]
    latest = latest_version(engine, "alpha")
    assert latest is not None
    assert latest.id == back_b.id
    bot = get_bot(engine, "alpha")
    assert bot is not None
    assert bot.id == first.bot_id


def test_bots_are_listed_by_name_and_unknown_ones_are_none(engine: Engine) -> None:
    for name in ("zeta", "beta"):
        add_bot_version(engine, {**FIELDS, "name": name}, checksum(name), f"/{name}")
    assert [b.name for b in list_bots(engine)] == ["beta", "zeta"]
    assert get_bot(engine, "nobody") is None
    assert latest_version(engine, "nobody") is None
    assert bot_versions(engine, "nobody") == []


@pytest.mark.parametrize(
    ("fields", "digest", "message"),
    [
        ({"version": "1"}, checksum("x"), "manifest fields need"),
        (FIELDS, "ABC", "checksum must be"),
    ],
)
def test_bad_submissions_are_refused(
    engine: Engine, fields: dict[str, str], digest: str, message: str
) -> None:
    with pytest.raises(StorageError, match=message):
        add_bot_version(engine, fields, digest, "/x")
    assert list_bots(engine) == []


def test_tournament_lifecycle(engine: Engine) -> None:
    bots = make_bots(engine, 4)
    tournament = make_tournament(engine, bots[::-1], games_total=24, rating_mode="board")
    assert tournament.id is not None
    assert (tournament.status, tournament.format, tournament.seed) == (
        "created",
        "round_robin",
        2**40 + 7,
    )
    stored = get_tournament(engine, "t1")
    assert json.loads(stored.rules)["contracts"] == [9, 5, 2]
    assert stored.created_at.tzinfo == UTC
    assert [v.id for v in entries(engine, tournament.id)] == bots[::-1]

    set_status(engine, tournament.id, "running")
    set_status(engine, tournament.id, "interrupted")
    assert get_tournament(engine, "t1").finished_at is None
    set_status(engine, tournament.id, "finished")
    done = get_tournament(engine, "t1")
    assert done.status == "finished"
    assert done.finished_at is not None
    assert done.finished_at >= done.created_at

    second = make_tournament(engine, bots[:3], games_total=6, name="t2")
    assert [t.name for t in list_tournaments(engine)] == [second.name, "t1"]
    with pytest.raises(StorageError, match=r"^no tournament named 'nope'$"):
        get_tournament(engine, "nope")


def test_tournament_name_is_unique(engine: Engine) -> None:
    bots = make_bots(engine, 3)
    make_tournament(engine, bots, games_total=6, name="x")
    with pytest.raises(StorageError, match=r"^tournament 'x' already exists$"):
        make_tournament(engine, bots, games_total=6, name="x")
    assert len(list_tournaments(engine)) == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rating_mode": "elo"}, "rating_mode"),
        ({"entrants": "repeat"}, "listed twice"),
        ({"entrants": "unknown"}, "no bot version with id 999"),
    ],
)
def test_invalid_tournaments_are_refused(
    engine: Engine, change: dict[str, str], message: str
) -> None:
    bots = make_bots(engine, 3)
    entrants = {"repeat": [*bots, bots[0]], "unknown": [*bots, 999]}.get(
        change.get("entrants", ""), bots
    )
    with pytest.raises(StorageError, match=message):
        make_tournament(engine, entrants, 6, rating_mode=change.get("rating_mode", "game"))
    assert list_tournaments(engine) == []


def test_set_status_checks_its_arguments(engine: Engine) -> None:
    tournament = make_tournament(engine, make_bots(engine, 3), games_total=6)
    assert tournament.id is not None
    with pytest.raises(StorageError, match="unknown status"):
        set_status(engine, tournament.id, "paused")
    with pytest.raises(StorageError, match="no tournament with id 999"):
        set_status(engine, 999, "running")
