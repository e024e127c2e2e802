"""Accounts and logins on SQLite and a real PostgreSQL: hashes only, the same refusal for a
wrong name and a wrong password, sessions that end (idle, lifetime, logout, disable,
reset) and that count only on the origin they were made on. Time is passed in, so the
windows are exact and no test sleeps. The throttle: tests/accounts/test_throttle.py."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Engine, text

from arena import storage
from arena.accounts import admin, logins
from arena.accounts.throttle import ThrottlePolicy
from arena.storage import open_database
from arena.storage.database import StorageError
from arena.storage.models import utcnow
from arena.storage.users import find_user

POLICY = logins.LoginPolicy(throttle=ThrottlePolicy(max_client_failures=4))
"""Small limits, so that the tests need few argon2 verifications (each costs 64 MiB and
a good part of a second on a busy machine); the rules are the same as the defaults'."""


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


def _now() -> datetime:
    return utcnow()


@pytest.mark.real_argon2
def test_a_password_is_shown_once_and_stored_only_as_an_argon2id_hash(engine: Engine) -> None:
    local = storage.actor(engine)
    password = admin.add_user(engine, local, "alice", "participant")
    assert len(password) >= 20
    with engine.connect() as connection:
        stored = connection.execute(
            text("SELECT password_hash FROM arena_user WHERE name = 'alice'")
        ).scalar_one()
        everything = " ".join(
            str(value)
            for table in ("arena_user", "login_attempt", "login_session", "login_device")
            for row in connection.execute(text(f"SELECT * FROM {table}"))
            for value in row
        )
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")  # RFC 9106's second option
    assert password not in everything
    assert all(u.has_password for u in admin.users(engine, local) if u.name == "alice")


def test_only_an_organiser_manages_accounts(engine: Engine) -> None:
    local = storage.actor(engine)
    admin.add_user(engine, local, "alice", "participant")
    alice = storage.actor(engine, "alice")
    for attempt in (
        lambda: admin.add_user(engine, alice, "mallory", "organiser"),
        lambda: admin.reset_password(engine, alice, "local"),
        lambda: admin.disable_user(engine, alice, "local"),
        lambda: admin.users(engine, alice),
    ):
        with pytest.raises(
            storage.PermissionDenied, match="needs an organiser account; alice is a participant"
        ):
            attempt()
    assert find_user(engine, "mallory") is None
    # Control: the organiser may.
    admin.add_user(engine, local, "mallory", "organiser")
    assert storage.actor(engine, "mallory").is_organiser
    with pytest.raises(StorageError, match="stays enabled"):
        admin.disable_user(engine, storage.actor(engine, "mallory"), "local")


def test_a_wrong_name_and_a_wrong_password_get_the_same_answer(engine: Engine) -> None:
    password = admin.add_user(engine, storage.actor(engine), "alice", "participant")
    answers = []
    for name, guess in (("alice", "nope"), ("nobody", "nope"), ("local", "")):
        with pytest.raises(logins.LoginRefused) as refused:
            logins.log_in(engine, name, guess, "10.0.0.1")
        answers.append(str(refused.value))
    assert answers == ["wrong user name or password"] * 3
    session = logins.log_in(engine, "alice", password, "10.0.0.1")  # control
    assert session.actor.name == "alice" and session.actor.role == "participant"


def test_sessions_end_when_idle_old_logged_out_disabled_or_reset(engine: Engine) -> None:
    local = storage.actor(engine)
    password = admin.add_user(engine, local, "alice", "participant")
    now = _now()

    def fresh(at: datetime) -> str:
        return logins.log_in(engine, "alice", password, "10.0.0.1", policy=POLICY, now=at).token

    token = fresh(now)
    seen = now + POLICY.idle - timedelta(minutes=1)
    assert logins.current(engine, token, now=seen) is not None  # used: idle clock restarts
    assert logins.current(engine, token, now=seen + POLICY.idle - timedelta(minutes=1))
    assert logins.current(engine, token, now=seen + 2 * POLICY.idle) is None  # idle
    assert logins.current(engine, token, now=now) is None  # and forgotten

    token = fresh(now)
    at = now
    while at < now + POLICY.lifetime - POLICY.idle:
        at += POLICY.idle - timedelta(minutes=1)
        assert logins.current(engine, token, now=at) is not None
    assert logins.current(engine, token, now=now + POLICY.lifetime) is None  # too old

    token = fresh(now)
    logins.log_out(engine, token)
    assert logins.current(engine, token, now=now) is None

    token = fresh(now)
    new_password = admin.reset_password(engine, local, "alice")
    assert logins.current(engine, token, now=now) is None
    with pytest.raises(logins.LoginRefused):
        logins.log_in(engine, "alice", password, "10.0.0.1", policy=POLICY, now=now)
    password = new_password

    token = fresh(now)
    admin.disable_user(engine, local, "alice")
    assert logins.current(engine, token, now=now) is None
    with pytest.raises(logins.LoginRefused, match="alice is disabled"):
        logins.log_in(engine, "alice", password, "10.0.0.1", policy=POLICY, now=now)
    admin.enable_user(engine, local, "alice")
    assert logins.current(engine, fresh(now), now=now) is not None


def test_a_session_counts_only_on_the_origin_it_was_made_on(engine: Engine) -> None:
    password = admin.add_user(engine, storage.actor(engine), "alice", "participant")
    own = "http://127.0.0.1:8501"
    visitor = logins.Visitor("127.0.0.1", origin=own)
    token = logins.log_in(engine, "alice", password, visitor, POLICY).token
    for elsewhere in ("http://127.0.0.1:9999", "http://localhost:8501", None):
        assert logins.current(engine, token, origin=elsewhere) is None
    # Control: on its own origin it lives, and the refusals above did not end it.
    found = logins.current(engine, token, origin=own)
    assert found is not None and found.actor.name == "alice"


def test_a_malformed_token_is_no_session(engine: Engine) -> None:
    password = admin.add_user(engine, storage.actor(engine), "alice", "participant")
    token = logins.log_in(engine, "alice", password, "10.0.0.1", POLICY).token
    for bad in ("", "x" * 10_000, token + "\x00", token[:-1], "' OR 1=1 --"):
        assert logins.current(engine, bad) is None
    assert logins.current(engine, token) is not None  # control


def test_only_the_hash_of_a_session_token_is_stored(engine: Engine) -> None:
    password = admin.add_user(engine, storage.actor(engine), "alice", "participant")
    token = logins.log_in(engine, "alice", password, "10.0.0.1").token
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT token_hash FROM login_session")).scalars().all()
    assert stored == [logins.token_hash(token)] and token not in stored


def test_an_identity_provider_login_needs_an_account_with_that_address(engine: Engine) -> None:
    local = storage.actor(engine)
    admin.add_user(engine, local, "alice", "participant", email="Alice@Example.org")
    session = logins.log_in_identity(engine, "alice@example.org", "10.0.0.1")
    assert session.actor.name == "alice" and session.method == "oidc"
    with pytest.raises(logins.LoginRefused, match="has no arena account"):
        logins.log_in_identity(engine, "eve@example.org", "10.0.0.1")
    admin.disable_user(engine, local, "alice")
    with pytest.raises(logins.LoginRefused, match="disabled"):
        logins.log_in_identity(engine, "alice@example.org", "10.0.0.1")


def test_a_provider_login_lives_only_while_the_provider_vouches_for_that_account(
    engine: Engine,
) -> None:
    local = storage.actor(engine)
    admin.add_user(engine, local, "alice", "participant", email="alice@example.org")
    password = admin.add_user(engine, local, "bob", "participant", email="bob@example.org")
    by_provider = logins.log_in_identity(engine, "alice@example.org", "10.0.0.1")
    assert logins.provider_vouches(engine, by_provider, "Alice@Example.org")
    assert not logins.provider_vouches(engine, by_provider, None)  # logged out there
    assert not logins.provider_vouches(engine, by_provider, "bob@example.org")  # someone else
    assert not logins.provider_vouches(engine, by_provider, "eve@example.org")  # no account
    # Control: a built-in login is not the provider's business, whoever is logged in there.
    by_password = logins.log_in(engine, "bob", password, "10.0.0.1", POLICY)
    assert logins.provider_vouches(engine, by_password, None)
    assert logins.provider_vouches(engine, by_password, "alice@example.org")


def test_session_lengths_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SESSION_IDLE_MINUTES", "5")
    assert logins.LoginPolicy.from_environment().idle == timedelta(minutes=5)
    monkeypatch.setenv("ARENA_SESSION_HOURS", "-1")
    with pytest.raises(ValueError, match="ARENA_SESSION_HOURS must be a positive number"):
        logins.LoginPolicy.from_environment()


HOSTILE_NAMES = ["' OR '1'='1' --", "x" * 10_000, "alice\x00admin", "", "  ", "\uff41lice", "%s%n"]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=range(len(HOSTILE_NAMES)))
def test_a_hostile_login_name_is_just_a_wrong_login(engine: Engine, name: str) -> None:
    password = admin.add_user(engine, storage.actor(engine), "alice", "participant")
    with pytest.raises(logins.LoginRefused, match=r"^wrong user name or password$"):
        logins.log_in(engine, name, password, "10.0.0.1", policy=POLICY)
    with engine.connect() as connection:
        kept = connection.execute(text("SELECT user_name FROM login_attempt")).scalars().all()
    assert len(kept) == 1 and len(kept[0]) <= 64  # counted, cut to the column's size
    # Control: alice's own name and password get in.
    assert logins.log_in(engine, "alice", password, "10.0.0.1", policy=POLICY)


@pytest.mark.parametrize("name", ["../etc", "a b", "x" * 65, "", "-rf", "alice\n"])
def test_a_bad_user_name_is_refused_in_one_line(engine: Engine, name: str) -> None:
    with pytest.raises(StorageError, match="invalid user name") as refused:
        admin.add_user(engine, storage.actor(engine), name, "participant")
    assert "\n" not in str(refused.value)
    assert find_user(engine, name) is None


def test_an_unusable_address_from_a_provider_is_refused(engine: Engine) -> None:
    admin.add_user(engine, storage.actor(engine), "alice", "participant", "alice@example.org")
    for address in ("alice@example.org\x00", "", "alice@example.org\n"):
        with pytest.raises(logins.LoginRefused, match="unusable email address"):
            logins.log_in_identity(engine, address, "10.0.0.1")
    assert logins.log_in_identity(engine, "alice@example.org", "10.0.0.1")  # control
