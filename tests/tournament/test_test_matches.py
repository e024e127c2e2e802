"""Test-match requests, on SQLite and PostgreSQL: who may test what, the quota with its
retry time, the checks on opponents and boards, who sees which matches, and the queue's
lock. Each refusal has a twin that is accepted. (Played matches, with real bot processes:
``test_test_matches_played.py``.)"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import storage
from arena.storage import test_matches as queue
from arena.storage.database import StorageError, open_database
from arena.storage.models import TestMatch
from arena.storage.settings import set_setting
from arena.storage.users import Actor, PermissionDenied, actor_of, create_user, set_disabled
from arena.tournament.test_matches import play_queue


@pytest.fixture
def engine(database_url: str) -> Engine:
    return open_database(database_url)


def _user(engine: Engine, name: str, role: str = "participant") -> Actor:
    return actor_of(
        create_user(engine, name, "organiser" if role == "organiser" else "participant", None)
    )


def _bot(engine: Engine, name: str, by: Actor, version: str = "1.0") -> int:
    """Store a version of bot *name* for *by* (never played here: its path is fake)."""
    digest = hashlib.sha256(f"{name}{version}".encode()).hexdigest()
    fields = {"name": name, "version": version, "language": "python", "run": ["python", "b.py"]}
    stored, _ = storage.add_bot_version(engine, fields, digest, f"/bots/{name}", submitter=by)
    return storage.row_id(stored)


@pytest.fixture
def people(engine: Engine) -> dict[str, Actor]:
    """alice and bob (participants, each with a bot) and olga (an organiser)."""
    actors = {
        "alice": _user(engine, "alice"),
        "bob": _user(engine, "bob"),
        "olga": _user(engine, "olga", "organiser"),
    }
    _bot(engine, "alice_bot", actors["alice"])
    _bot(engine, "bob_bot", actors["bob"])
    return actors


def _ask(engine: Engine, by: Actor, bot: str = "alice_bot", **kwargs: object) -> TestMatch:
    options: dict[str, object] = {"opponents": ["builtin:greedy"], "boards": 1}
    options.update(kwargs)
    return queue.request_test_match(engine, by=by, bot=bot, **options)  # type: ignore[arg-type]


def test_a_participant_cannot_test_someone_elses_bot(
    engine: Engine, people: dict[str, Actor]
) -> None:
    with pytest.raises(PermissionDenied, match="belongs to bob: you may test only your own"):
        _ask(engine, people["alice"], "bob_bot")
    assert queue.list_test_matches(engine, people["olga"]) == []
    # Controls: her own bot is accepted, and an organiser may test anyone's.
    mine = _ask(engine, people["alice"], "alice_bot", opponents=["bob_bot"])
    theirs = _ask(engine, people["olga"], "bob_bot")
    assert (mine.status, theirs.status) == ("queued", "queued")
    assert storage.get_bot_version(engine, theirs.bot_version_id).label == "bob_bot@1.0"


def test_beyond_the_quota_a_participant_is_told_when_to_try_again(
    engine: Engine, people: dict[str, Actor]
) -> None:
    set_setting(engine, "test_boards_per_hour", "3", by=people["olga"].id)
    first = _ask(engine, people["alice"], boards=2)
    _ask(engine, people["alice"], boards=1)
    with pytest.raises(queue.QuotaExceeded) as refused:
        _ask(engine, people["alice"], boards=1)
    # The oldest counted request frees its boards one hour after it was made.
    retry_at = first.requested_at + timedelta(hours=1)
    assert refused.value.retry_at == retry_at
    assert f"try again after {retry_at:%Y-%m-%d %H:%M:%S} UTC" in str(refused.value)
    assert "3 board(s) per hour, 3 used" in str(refused.value)
    with pytest.raises(queue.QuotaExceeded, match="ask for fewer boards"):
        _ask(engine, people["bob"], "bob_bot", boards=4)
    # Controls: another participant, and an organiser, are accepted at the same moment.
    _ask(engine, people["bob"], "bob_bot", boards=3)
    _ask(engine, people["olga"], "alice_bot", boards=5)
    # A cancelled request gives its boards back.
    (latest, *_) = queue.list_test_matches(engine, people["alice"])
    queue.cancel_test_match(engine, latest.id, people["alice"])
    assert _ask(engine, people["alice"], boards=1).status == "queued"


def test_an_hour_old_request_no_longer_counts(engine: Engine, people: dict[str, Actor]) -> None:
    set_setting(engine, "test_boards_per_hour", "1", by=people["olga"].id)
    old = _ask(engine, people["alice"])
    with pytest.raises(queue.QuotaExceeded):
        _ask(engine, people["alice"])
    with Session(engine) as session:
        row = session.get(TestMatch, old.id)
        assert row is not None
        row.requested_at = row.requested_at - timedelta(minutes=61)
        session.add(row)
        session.commit()
    assert _ask(engine, people["alice"]).status == "queued"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": []}, "choose one or two opponents"),
        ({"opponents": ["builtin:greedy", "bob_bot", "builtin:random"]}, "one or two"),
        ({"opponents": ["bob_bot", "BOB-BOT"]}, "an opponent is named twice"),
        ({"opponents": ["builtin:nope"]}, "no house bot 'builtin:nope'"),
        ({"opponents": ["nobody_bot"]}, "no bot named 'nobody_bot'"),
        ({"boards": 0}, "1 to 20 boards, not 0"),
        ({"boards": 21}, "1 to 20 boards, not 21"),
        ({"ruleset": "poker"}, "unknown ruleset 'poker'"),
        ({"opponents": ["alice_bot"]}, "cannot meet itself"),
        ({"version": "9.9"}, "has no version '9.9'"),
    ],
)
def test_a_bad_request_is_refused_and_stores_nothing(
    engine: Engine, people: dict[str, Actor], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(StorageError, match=message):
        _ask(engine, people["alice"], **kwargs)
    assert queue.list_test_matches(engine, people["olga"]) == []


def test_the_valid_twins_of_the_bad_requests_are_accepted(
    engine: Engine, people: dict[str, Actor]
) -> None:
    _bot(engine, "alice_bot", people["alice"], "2.0")
    set_setting(engine, "test_boards_per_hour", "30", by=people["olga"].id)
    accepted = [
        _ask(engine, people["alice"], opponents=["builtin:greedy", "BOB-BOT"], boards=20),
        _ask(engine, people["alice"], opponents=["builtin:pimc"], ruleset="catalan"),
        # An older version may meet the latest one of the same bot.
        _ask(engine, people["alice"], opponents=["alice_bot"], version="1.0"),
    ]
    assert [m.opponents for m in accepted] == [
        '["builtin:greedy", "bob_bot"]',
        '["builtin:pimc"]',
        '["alice_bot"]',
    ]
    labels = [storage.get_bot_version(engine, m.bot_version_id).label for m in accepted]
    assert labels == ["alice_bot@2.0", "alice_bot@2.0", "alice_bot@1.0"]


def test_a_disabled_owners_bot_is_no_opponent(engine: Engine, people: dict[str, Actor]) -> None:
    set_disabled(engine, "bob", True)
    with pytest.raises(StorageError, match="'bob_bot' is not active"):
        _ask(engine, people["alice"], opponents=["bob_bot"])
    set_disabled(engine, "bob", False)  # the control: active again, accepted
    assert _ask(engine, people["alice"], opponents=["bob_bot"]).status == "queued"


def test_the_third_seat_is_the_first_house_bot_not_at_the_table() -> None:
    assert queue.seated_opponents(["bob_bot"]) == ["bob_bot", "builtin:random"]
    assert queue.seated_opponents(["builtin:random"]) == ["builtin:random", "builtin:greedy"]
    assert queue.seated_opponents(["a", "b"]) == ["a", "b"]


def test_each_sees_only_their_own_test_matches(engine: Engine, people: dict[str, Actor]) -> None:
    hers = _ask(engine, people["alice"])
    his = _ask(engine, people["bob"], "bob_bot")
    assert [m.id for m in queue.list_test_matches(engine, people["bob"])] == [his.id]
    assert [m.id for m in queue.list_test_matches(engine, people["alice"])] == [hers.id]
    assert [m.id for m in queue.list_test_matches(engine, people["olga"])] == [his.id, hers.id]
    assert [m.queue_position for m in queue.list_test_matches(engine, people["olga"])] == [2, 1]
    with pytest.raises(StorageError, match="no test match"):
        queue.cancel_test_match(engine, hers.id, people["bob"])
    queue.cancel_test_match(engine, hers.id, people["alice"])  # the control: her own
    alice = people["alice"].id
    assert not queue.may_see_tournament(alice, None)
    assert not queue.may_see_tournament(alice, people["bob"])
    assert queue.may_see_tournament(alice, people["alice"])
    assert queue.may_see_tournament(alice, people["olga"])
    assert queue.may_see_tournament(None, None)


def test_one_queue_runner_at_a_time(
    engine: Engine, people: dict[str, Actor], tmp_path: Path
) -> None:
    match = _ask(engine, people["alice"])
    with queue.queue_lock(engine):
        assert queue.queue_runner_busy(engine)
        with pytest.raises(queue.QueueBusy, match="another queue runner"):
            play_queue(engine, tmp_path)
        found = queue.get_test_match(engine, queue.match_id(match))
        assert found is not None
        assert (found.status, found.tournament_id) == ("queued", None)
    # The control: once the holder lets go, the lock is free again.
    assert not queue.queue_runner_busy(engine)
    with queue.queue_lock(engine):
        pass
