"""Open ladders from the submitter's side, with real bots through ``arena bot submit``
(validate, build, smoke game through the real referee, store):

* a participant's new bot, and then its new version, enter every open ladder by
  themselves once their smoke game passes, and the previous version retires there; a
  closed ladder is not entered, and a version whose smoke game fails enters nothing;
* beyond an open ladder's daily quota a participant's submission is refused, before
  anything is built, saying when they may try again; an organiser is never refused, and a
  participant under the quota is accepted;
* ``arena bot withdraw``: a participant cannot withdraw another's bot; the owner and an
  organiser can.

On SQLite: the storage functions under these paths run on PostgreSQL too, in
tests/storage/test_withdraw.py.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from arena import storage
from arena.cli import main
from arena.storage.database import open_database
from arena.storage.models import Submission
from tests.migrated_sqlite import migrated_sqlite_url
from tests.tournament.support_open_ladders import make_bot, participants


class Arena:
    """A fresh database and data folder, and the CLI on them."""

    def __init__(self, tmp_path: Path) -> None:
        self.url = migrated_sqlite_url(tmp_path / "arena.db")
        self.common = ["--db", self.url, "--data", str(tmp_path / "data")]
        self.bots = tmp_path / "sources"
        self.engine: Engine = open_database(self.url)

    def arena(self, *args: str) -> int:
        return main([*args, *self.common])

    def submit(self, folder: Path, user: str) -> int:
        return self.arena("bot", "submit", str(folder), "--user", user)

    def states(self, ladder: str) -> dict[str, str]:
        tournament_id = storage.row_id(storage.get_tournament(self.engine, ladder))
        return {e.label: e.state for e in storage.ladder_entrants(self.engine, tournament_id)}

    def submissions(self, user: str) -> list[Submission]:
        user_id = storage.actor(self.engine, user).id
        with Session(self.engine) as session:
            return list(
                session.exec(
                    select(Submission)
                    .where(Submission.user_id == user_id)
                    .order_by(col(Submission.id))
                ).all()
            )


@pytest.fixture
def arena(tmp_path: Path) -> Arena:
    """An arena with participants alice and bob, three house bots of the organiser, a
    closed ladder between them, and an open ladder with no entrant yet."""
    made = Arena(tmp_path)
    participants(made.engine, "alice", "bob")
    for name in ("house_a", "house_b", "house_c"):
        assert made.submit(make_bot(made.bots, name, sample="greedy_bot"), "local") == 0
    assert made.arena("tournament", "create", "closed", "--format", "ladder",
                      "--bots", "house_a,house_b,house_c") == 0  # fmt: skip
    assert made.arena("tournament", "create", "open", "--format", "ladder", "--open") == 0
    return made


def test_a_new_bot_and_its_new_version_enter_the_open_ladder_by_themselves(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    assert arena.submit(make_bot(arena.bots, "alice_bot", "1"), "alice") == 0
    assert arena.states("open") == {"alice_bot@1": "active"}
    assert arena.submit(make_bot(arena.bots, "alice_bot", "2"), "alice") == 0
    assert arena.states("open") == {"alice_bot@1": "retired", "alice_bot@2": "active"}
    # The control: the closed ladder took neither.
    assert arena.states("closed") == {
        "house_a@1": "active", "house_b@1": "active", "house_c@1": "active",
    }  # fmt: skip
    # Its submission's log (read on My bots) says where it went.
    assert "entered the open ladder(s): open" in arena.submissions("alice")[-1].log
    # An unchanged resubmission is no new version: it enters nothing, retires nothing.
    capsys.readouterr()
    assert arena.submit(make_bot(arena.bots / "again", "alice_bot", "2"), "alice") == 0
    assert "unchanged" in capsys.readouterr().out
    assert arena.states("open") == {"alice_bot@1": "retired", "alice_bot@2": "active"}


def test_a_version_that_fails_its_smoke_game_enters_nothing(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    assert arena.submit(make_bot(arena.bots, "alice_bot", "1"), "alice") == 0
    crashing = make_bot(arena.bots, "alice_bot", "2", run="python -c 'raise SystemExit(3)'")
    assert arena.submit(crashing, "alice") == 1
    assert "smoke game failed" in capsys.readouterr().err
    assert arena.states("open") == {"alice_bot@1": "active"}  # nothing entered or retired
    assert [s.outcome for s in arena.submissions("alice")] == ["stored", "smoke_failed"]


def test_beyond_the_quota_a_participant_is_refused_before_any_build(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    assert arena.arena("tournament", "open", "open", "--max-versions-per-day", "1") == 0
    assert arena.submit(make_bot(arena.bots, "alice_bot", "1"), "alice") == 0
    first = arena.submissions("alice")[0]
    # A build that would fail: had it run, the refusal would be a failed build.
    failing = make_bot(arena.bots, "alice_bot", "2", build="python -c 'raise SystemExit(7)'")
    capsys.readouterr()
    assert arena.submit(failing, "alice") == 1
    error = capsys.readouterr().err.strip()
    retry = first.submitted_at + timedelta(hours=24)
    assert error == (
        "arena: error: alice has submitted 1 versions in the last 24 hours, the most the "
        f"open ladder 'open' allows; try again after {retry:%Y-%m-%d %H:%M:%S} UTC"
    )
    refused = arena.submissions("alice")[-1]
    assert (refused.outcome, refused.log) == ("refused", "")
    assert storage.latest_version(arena.engine, "alice_bot") is not None
    assert [v.label for v in storage.bot_versions(arena.engine, "alice_bot")] == ["alice_bot@1"]
    # The controls: the same bot from an organiser is not refused, it is built (and its
    # build fails, as it would have for alice) ...
    assert arena.submit(failing, "local") == 1
    assert "build" in capsys.readouterr().err
    assert arena.submissions("local")[-1].outcome == "build_failed"
    # ... and bob, under the quota, is accepted.
    assert arena.submit(make_bot(arena.bots, "bob_bot", "1"), "bob") == 0
    assert arena.states("open")["bob_bot@1"] == "active"
    # Closing the ladder lifts its quota.
    assert arena.arena("tournament", "close", "open") == 0
    assert arena.submit(make_bot(arena.bots / "v2", "alice_bot", "2"), "alice") == 0


def test_only_the_owner_or_an_organiser_withdraws_a_bot(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    assert arena.submit(make_bot(arena.bots, "alice_bot", "1"), "alice") == 0
    assert arena.submit(make_bot(arena.bots, "bob_bot", "1"), "bob") == 0
    capsys.readouterr()
    withdraw = ("bot", "withdraw", "alice_bot", "--ladder", "open")
    assert arena.arena(*withdraw, "--user", "bob") == 1
    assert capsys.readouterr().err.strip() == (
        "arena: error: alice_bot@1 is not bob's: only its owner or an organiser may withdraw it"
    )
    assert arena.states("open")["alice_bot@1"] == "active"
    # The controls: alice may withdraw her bot, an organiser bob's.
    assert arena.arena(*withdraw, "--user", "alice") == 0
    assert "withdrew alice_bot@1 from ladder 'open'" in capsys.readouterr().out
    assert arena.arena("bot", "withdraw", "bob_bot", "--ladder", "open", "--version", "1") == 0
    assert arena.states("open") == {"alice_bot@1": "withdrawn", "bob_bot@1": "withdrawn"}
    # Twice is refused, in one line.
    assert arena.arena(*withdraw, "--user", "alice") == 1
    assert capsys.readouterr().err.strip() == (
        "arena: error: alice_bot@1 has already left 'open' (withdrawn)"
    )
    # Its standings row stays, marked.
    assert arena.arena("standings", "open", "--json") == 0
    rows = {r["label"]: r for r in _json(capsys.readouterr().out)["standings"]}
    assert rows["alice_bot@1"]["left"] == "withdrawn"


def test_an_organiser_opens_and_closes_a_ladder_and_a_participant_cannot(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    assert arena.arena("tournament", "open", "closed", "--user", "alice") == 1
    assert "opening or closing a ladder needs an organiser account" in capsys.readouterr().err
    assert not storage.ladder_settings(arena.engine, _id(arena, "closed")).open
    assert arena.arena("tournament", "open", "closed", "--max-versions-per-day", "3") == 0
    settings = storage.ladder_settings(arena.engine, _id(arena, "closed"))
    assert (settings.open, settings.max_versions_per_day) == (True, 3)
    assert arena.arena("tournament", "open", "closed") == 0  # keeps its quota
    assert storage.ladder_settings(arena.engine, _id(arena, "closed")).max_versions_per_day == 3
    assert arena.arena("tournament", "open", "closed", "--no-quota") == 0
    assert storage.ladder_settings(arena.engine, _id(arena, "closed")).max_versions_per_day is None
    assert arena.arena("tournament", "close", "closed") == 0
    assert not storage.ladder_settings(arena.engine, _id(arena, "closed")).open
    # The empty open ladder says it waits; the closed one, with 3 bots, does not.
    capsys.readouterr()
    assert arena.arena("tournament", "status", "open") == 0
    status = capsys.readouterr().out
    assert "open: new versions enter by themselves (no daily quota)" in status
    assert "waiting: 0 active entrant(s); a match needs 3" in status
    assert arena.arena("tournament", "status", "closed") == 0
    status = capsys.readouterr().out
    assert "closed: entrants are added by an organiser" in status and "waiting" not in status
    # Usage errors are one line, with exit status 2.
    capsys.readouterr()
    assert arena.arena("tournament", "create", "x", "--format", "ladder", "--bots",
                       "house_a,house_b,house_c", "--max-versions-per-day", "2") == 2  # fmt: skip
    assert arena.arena("tournament", "create", "y", "--open") == 2  # not a ladder
    assert arena.arena("tournament", "create", "z", "--format", "ladder") == 2  # closed, empty
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3 and all(e.startswith("arena: error:") for e in errors)


def _id(arena: Arena, name: str) -> int:
    return storage.row_id(storage.get_tournament(arena.engine, name))


def _json(text: str) -> dict[str, Any]:
    value = json.loads(text)
    assert isinstance(value, dict)
    return value
