"""Entrants leaving a ladder, and open ladders, in storage (on SQLite and PostgreSQL):
who may withdraw a bot, what a withdrawn or retired entrant keeps (games, ratings, a
place in the standings) and loses (a seat at new tables), which ladders a new version
enters by itself, and the daily version quota of open ladders.

Every refusal has its control beside it: the same call by someone allowed, or under the
limit, goes through.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from arena import storage
from arena.storage import Actor, PermissionDenied, StorageError
from arena.storage.models import BotVersion, Submission
from arena.storage.submissions import finish_submission, start_submission
from arena.storage.users import actor_of, create_user
from arena.tournament import setup
from arena.tournament.ladder import contenders
from tests.storage.helpers import checksum


def _user(engine: Engine, name: str, role: str = "participant") -> Actor:
    return actor_of(create_user(engine, name, role, None))  # type: ignore[arg-type]


def _version(engine: Engine, name: str, version: str, by: Actor | None = None) -> BotVersion:
    fields = {"name": name, "version": version, "language": "python", "run": ["x"]}
    stored, created = storage.add_bot_version(
        engine, fields, checksum(f"{name}@{version}"), f"/bots/{name}/{version}", submitter=by
    )
    assert created
    return stored


def _ladder(
    engine: Engine, name: str, bots: list[str], *, is_open: bool = False, quota: int | None = None
) -> int:
    tournament, _ = setup.create_tournament(
        engine,
        by=storage.actor(engine),
        name=name,
        ruleset="classic",
        bots=bots,
        boards=1,
        seed=5,
        format_name="ladder",
        ladder=setup.LadderOptions(open=is_open, max_versions_per_day=quota),
    )
    return storage.row_id(tournament)


def _states(engine: Engine, tournament_id: int) -> dict[str, str]:
    return {e.label: e.state for e in storage.ladder_entrants(engine, tournament_id)}


@pytest.fixture
def people(engine: Engine) -> dict[str, Actor]:
    """alice and bob (participants) with a bot each, olga (an organiser) with two."""
    users = {
        "alice": _user(engine, "alice"),
        "bob": _user(engine, "bob"),
        "olga": _user(engine, "olga", "organiser"),
    }
    _version(engine, "alice_bot", "1", users["alice"])
    _version(engine, "bob_bot", "1", users["bob"])
    _version(engine, "house_a", "1", users["olga"])
    _version(engine, "house_b", "1", users["olga"])
    return users


def test_a_participant_cannot_withdraw_another_participants_bot(
    engine: Engine, people: dict[str, Actor]
) -> None:
    ladder = _ladder(engine, "lad", ["alice_bot", "bob_bot", "house_a", "house_b"])
    alice_bot = storage.row_id(_latest(engine, "alice_bot"))
    with pytest.raises(PermissionDenied, match="not bob's: only its owner or an organiser"):
        storage.withdraw_entry(engine, ladder, alice_bot, people["bob"])
    assert _states(engine, ladder)["alice_bot@1"] == "active"
    # Controls: its owner may, and an organiser may withdraw anyone's bot.
    storage.withdraw_entry(engine, ladder, alice_bot, people["alice"])
    bob_bot = storage.row_id(_latest(engine, "bob_bot"))
    storage.withdraw_entry(engine, ladder, bob_bot, people["olga"])
    states = _states(engine, ladder)
    assert states["alice_bot@1"] == states["bob_bot@1"] == "withdrawn"
    assert states["house_a@1"] == "active"


def test_withdrawing_twice_or_what_is_not_entered_is_refused(
    engine: Engine, people: dict[str, Actor]
) -> None:
    ladder = _ladder(engine, "lad", ["alice_bot", "house_a", "house_b"])
    bob_bot = storage.row_id(_latest(engine, "bob_bot"))
    with pytest.raises(StorageError, match=r"^bob_bot@1 is not entered in 'lad'$"):
        storage.withdraw_entry(engine, ladder, bob_bot, people["bob"])
    alice_bot = storage.row_id(_latest(engine, "alice_bot"))
    storage.withdraw_entry(engine, ladder, alice_bot, people["alice"])
    with pytest.raises(StorageError, match=r"already left 'lad' \(withdrawn\)"):
        storage.withdraw_entry(engine, ladder, alice_bot, people["alice"])
    # A round robin's entrants cannot leave: its schedule is fixed at creation.
    robin, _ = setup.create_tournament(
        engine, by=people["olga"], name="robin", ruleset="classic",
        bots=["alice_bot", "house_a", "house_b"], boards=1, seed=5,
    )  # fmt: skip
    with pytest.raises(StorageError, match="not a ladder"):
        storage.withdraw_entry(engine, storage.row_id(robin), alice_bot, people["olga"])


def test_a_withdrawn_entrant_keeps_its_games_and_rating_but_is_seated_no_more(
    engine: Engine, people: dict[str, Actor], records: list[dict[str, Any]]
) -> None:
    ladder = _ladder(engine, "lad", ["alice_bot", "bob_bot", "house_a", "house_b"])
    ids = {e.label: e.bot_version_id for e in storage.ladder_entrants(engine, ladder)}
    table = [ids["alice_bot@1"], ids["bob_bot@1"], ids["house_a@1"]]
    storage.schedule_match(engine, ladder, 0, table)
    for seating in range(storage.BOARD_SIZE):
        storage.record_game(
            engine, ladder, schedule_index=seating, table_index=0, board_index=0,
            seating_index=seating, seed=1, seats=table, record=records[seating],
        )  # fmt: skip
    before = {r.bot: r for r in storage.standings(engine, ladder)}
    storage.withdraw_entry(engine, ladder, ids["alice_bot@1"], people["alice"])
    after = {r.bot: r for r in storage.standings(engine, ladder)}
    assert after["alice_bot@1"].left == "withdrawn" and after["bob_bot@1"].left is None
    assert after["alice_bot@1"].games == before["alice_bot@1"].games == storage.BOARD_SIZE
    assert after["alice_bot@1"].mu == before["alice_bot@1"].mu
    assert ids["alice_bot@1"] not in {c.key for c in contenders(engine, ladder)}
    assert ids["bob_bot@1"] in {c.key for c in contenders(engine, ladder)}  # control
    # A table chosen before the withdrawal is refused when stored: the runner chooses again.
    with pytest.raises(storage.EntrantLeft):
        storage.schedule_match(engine, ladder, 1, table)
    storage.schedule_match(
        engine, ladder, 1, [ids["bob_bot@1"], ids["house_a@1"], ids["house_b@1"]]
    )


def test_a_withdrawn_bots_next_version_stays_out_of_a_closed_ladder(
    engine: Engine, people: dict[str, Actor]
) -> None:
    ladder = _ladder(engine, "lad", ["alice_bot", "bob_bot", "house_a", "house_b"])
    storage.withdraw_entry(engine, ladder, storage.row_id(_latest(engine, "alice_bot")),
                           people["alice"])  # fmt: skip
    _version(engine, "alice_bot", "2", people["alice"])
    _version(engine, "bob_bot", "2", people["bob"])  # the control: not withdrawn
    assert storage.enter_new_versions(engine, ladder) == ["bob_bot@2"]
    assert _states(engine, ladder) == {
        "alice_bot@1": "withdrawn", "bob_bot@1": "retired", "house_a@1": "active",
        "house_b@1": "active", "bob_bot@2": "active",
    }  # fmt: skip
    retired = next(e for e in storage.ladder_entrants(engine, ladder) if e.label == "bob_bot@1")
    assert retired.left_at is not None


def test_a_new_version_enters_every_open_ladder_and_retires_the_previous_one(
    engine: Engine, people: dict[str, Actor]
) -> None:
    opened = _ladder(engine, "open", ["alice_bot", "house_a", "house_b"], is_open=True)
    also = _ladder(engine, "also-open", [], is_open=True)  # an open ladder may start empty
    closed = _ladder(engine, "closed", ["alice_bot", "house_a", "house_b"])
    new = _version(engine, "alice_bot", "2", people["alice"])
    assert storage.enter_open_ladders(engine, storage.row_id(new)) == ["open", "also-open"]
    assert _states(engine, opened)["alice_bot@1"] == "retired"
    assert _states(engine, opened)["alice_bot@2"] == "active"
    assert _states(engine, also) == {"alice_bot@2": "active"}
    assert "alice_bot@2" not in _states(engine, closed)  # the control: a closed ladder
    # Entering again (or after a runner got there first) enters nothing twice.
    assert storage.enter_open_ladders(engine, storage.row_id(new)) == []
    # An older version never enters where a newer one of its bot is.
    old = _latest(engine, "alice_bot", seq=1)
    assert storage.enter_open_ladders(engine, storage.row_id(old)) == []
    # Closing stops it; opening again starts it.
    storage.set_ladder_open(engine, opened, is_open=False, max_versions_per_day=None,
                            by=people["olga"])  # fmt: skip
    third = _version(engine, "alice_bot", "3", people["alice"])
    assert storage.enter_open_ladders(engine, storage.row_id(third)) == ["also-open"]


def test_only_an_organiser_opens_or_closes_a_ladder(
    engine: Engine, people: dict[str, Actor]
) -> None:
    ladder = _ladder(engine, "lad", ["alice_bot", "house_a", "house_b"])
    with pytest.raises(PermissionDenied, match="opening or closing a ladder needs an organiser"):
        storage.set_ladder_open(engine, ladder, is_open=True, max_versions_per_day=2,
                                by=people["alice"])  # fmt: skip
    assert not storage.ladder_settings(engine, ladder).open
    with pytest.raises(StorageError, match="give 1 or more"):
        storage.set_ladder_open(engine, ladder, is_open=True, max_versions_per_day=0,
                                by=people["olga"])  # fmt: skip
    settings = storage.set_ladder_open(engine, ladder, is_open=True, max_versions_per_day=2,
                                       by=people["olga"])  # fmt: skip
    assert (settings.open, settings.max_versions_per_day) == (True, 2)
    stored = storage.ladder_settings(engine, ladder)
    assert (stored.open, stored.max_versions_per_day) == (True, 2)


def test_the_version_quota_counts_builds_in_the_last_24_hours(
    engine: Engine, people: dict[str, Actor]
) -> None:
    _ladder(engine, "lad", ["alice_bot", "house_a", "house_b"], is_open=True, quota=2)
    now = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
    alice = people["alice"].id
    _submitted(engine, alice, now - timedelta(hours=30), "stored")  # out of the window
    _submitted(engine, alice, now - timedelta(hours=20), "build_failed")
    _submitted(engine, alice, now - timedelta(hours=10), "refused")  # built nothing
    _submitted(engine, alice, now - timedelta(hours=9), "unchanged")  # built nothing
    assert storage.version_quota_refusal(engine, alice, now) is None  # 1 of 2: under it
    _submitted(engine, alice, now - timedelta(hours=5), "smoke_failed")
    refusal = storage.version_quota_refusal(engine, alice, now)
    assert refusal == (
        "alice has submitted 2 versions in the last 24 hours, the most the open ladder "
        "'lad' allows; try again after 2026-11-28 16:00:00 UTC"
    )
    # The controls: bob has submitted nothing; an organiser is never counted; once the
    # oldest leaves the window, alice may again.
    assert storage.version_quota_refusal(engine, people["bob"].id, now) is None
    for hours in (1, 2, 3):
        _submitted(engine, people["olga"].id, now - timedelta(hours=hours), "stored")
    assert storage.version_quota_refusal(engine, people["olga"].id, now) is None
    later = now + timedelta(hours=4, minutes=1)
    assert storage.version_quota_refusal(engine, alice, later) is None


def test_the_strictest_open_ladder_sets_the_quota_and_a_closed_one_none(
    engine: Engine, people: dict[str, Actor]
) -> None:
    now = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
    closed = _ladder(engine, "strict-but-closed", ["alice_bot", "house_a", "house_b"], quota=1)
    alice = people["alice"].id
    _submitted(engine, alice, now - timedelta(hours=3), "stored")
    _submitted(engine, alice, now - timedelta(hours=2), "stored")
    assert storage.version_quota_refusal(engine, alice, now) is None  # closed: no quota
    _ladder(engine, "loose", ["alice_bot", "house_a", "house_b"], is_open=True, quota=5)
    assert storage.version_quota_refusal(engine, alice, now) is None
    storage.set_ladder_open(engine, closed, is_open=True, max_versions_per_day=1,
                            by=people["olga"])  # fmt: skip
    refusal = storage.version_quota_refusal(engine, alice, now)
    assert refusal is not None and "'strict-but-closed'" in refusal
    # Two counted, one allowed: room comes when the newer of the two leaves the window.
    assert refusal.endswith("try again after 2026-11-29 10:00:00 UTC")


def _latest(engine: Engine, name: str, seq: int | None = None) -> BotVersion:
    versions = storage.bot_versions(engine, name)
    return versions[-1] if seq is None else next(v for v in versions if v.seq == seq)


def _submitted(engine: Engine, user_id: int, at: datetime, outcome: Any) -> None:
    """A finished submission row of *user_id* dated *at*."""
    submission_id = start_submission(engine, user_id=user_id, bot_name="x", via="cli")
    if outcome != "running":
        finish_submission(engine, submission_id, outcome=outcome, message="")
    with Session(engine) as session:
        row = session.get(Submission, submission_id)
        assert row is not None
        row.submitted_at = at
        session.add(row)
        session.commit()
