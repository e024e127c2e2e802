"""Personal tokens on SQLite and a real PostgreSQL (arena.storage.tokens): created, listed
and revoked by their owner or an organiser only; the secret shown once and stored only as
its SHA-256; every way a token is refused (malformed, unknown, expired, revoked, a disabled
owner), each beside a twin that is let in; an organiser's token acting as a participant;
the limits on names, scopes, expiries and live tokens; ``last_used_at`` written at most once
a minute. Time is passed in (``now=``), so no test sleeps."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event, text, update

from arena import storage
from arena.storage import StorageError, open_database, tokens
from arena.storage.models import ApiToken, utcnow
from arena.storage.tokens import (
    MAX_LIVE_TOKENS,
    PREFIX,
    TokenRefused,
    authenticate_token,
    create_token,
    hash_secret,
    list_tokens,
    parse_scopes,
    revoke_token,
)
from arena.storage.users import (
    Actor,
    PermissionDenied,
    create_user,
    find_user,
    require_role,
    set_disabled,
)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


def _user(engine: Engine, name: str, role: str = "participant") -> Actor:
    create_user(engine, name, "organiser" if role == "organiser" else "participant", None)
    return storage.actor(engine, name)


@pytest.fixture
def alice(engine: Engine) -> Actor:
    return _user(engine, "alice")


def _create(engine: Engine, by: Actor, name: str = "ci", **kwargs: Any) -> str:
    kwargs.setdefault("scopes", "read,submit")
    return create_token(engine, by, owner=kwargs.pop("owner", by.name), name=name, **kwargs)[0]


def _refusal(engine: Engine, secret: str, **kwargs: Any) -> str:
    with pytest.raises(TokenRefused) as refused:
        authenticate_token(engine, secret, **kwargs)
    return refused.value.code


def _rows(engine: Engine) -> str:
    """Every value of every api_token row, as one string."""
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT * FROM api_token")).all()
    return " ".join(str(value) for row in rows for value in row)


# ------------------------------------------------------------------ create, list, revoke


def test_a_token_is_created_listed_and_revoked(engine: Engine, alice: Actor) -> None:
    secret, info = create_token(
        engine, alice, owner="alice", name="laptop", scopes=["submit", "read"], expires_in_days=30
    )
    assert secret.startswith(PREFIX) and len(secret) == len(PREFIX) + 43
    assert secret != _create(engine, alice, "ci")  # every secret is new
    assert (info.user, info.name, info.scopes) == ("alice", "laptop", ("read", "submit"))
    assert info.prefix == secret[:12] and info.revoked_at is None and info.last_used_at is None
    assert info.expires_at == info.created_at + timedelta(days=30)
    listed = list_tokens(engine, alice, "alice")
    assert [t.name for t in listed] == ["laptop", "ci"]
    assert [t.state(info.created_at) for t in listed] == ["active", "active"]
    assert listed[1].expires_at is None  # no expiry given: never
    revoked = revoke_token(engine, alice, "alice", "laptop")
    assert revoked.id == info.id and revoked.revoked_at is not None
    assert revoke_token(engine, alice, "alice", str(info.id)).revoked_at == revoked.revoked_at
    assert [t.state(info.created_at) for t in list_tokens(engine, alice, "alice")] == [
        "revoked",
        "active",
    ]


def test_a_token_is_revoked_by_its_prefix_and_an_unknown_one_is_refused(
    engine: Engine, alice: Actor
) -> None:
    secret = _create(engine, alice, "ci")
    with pytest.raises(StorageError, match="alice has no token 'a952_nothing'"):
        revoke_token(engine, alice, "alice", "a952_nothing")
    with pytest.raises(StorageError, match="alice has no token"):
        revoke_token(engine, alice, "alice", secret)  # the whole secret is no handle
    assert revoke_token(engine, alice, "alice", secret[:12]).name == "ci"  # control


def test_a_name_shared_by_revoked_tokens_asks_for_the_id(engine: Engine, alice: Actor) -> None:
    for _ in range(2):
        _create(engine, alice, "ci")
        revoke_token(engine, alice, "alice", "ci")  # the live one of that name, each time
    with pytest.raises(StorageError, match="2 of alice's tokens are named 'ci'"):
        revoke_token(engine, alice, "alice", "ci")
    first = list_tokens(engine, alice, "alice")[0]
    assert revoke_token(engine, alice, "alice", str(first.id)).id == first.id  # control


def test_the_secret_is_never_stored_only_its_hash(engine: Engine, alice: Actor) -> None:
    secret = _create(engine, alice)
    stored = _rows(engine)
    assert secret not in stored
    assert secret[12:] not in stored and secret[12:30] not in stored  # not even its tail
    assert hash_secret(secret) in stored  # control: this is the row, holding the hash
    assert secret[:12] in stored  # and the prefix shown in lists
    assert all(secret not in repr(t) for t in list_tokens(engine, alice, "alice"))


# --------------------------------------------------------------------------- authenticate


def test_a_good_token_acts_for_its_owner_within_its_scopes(engine: Engine, alice: Actor) -> None:
    grant = authenticate_token(engine, _create(engine, alice, "ro", scopes="read"))
    assert (grant.actor.name, grant.actor.id, grant.actor.role) == (
        "alice",
        alice.id,
        "participant",
    )
    assert grant.allows("read") and not grant.allows("submit")
    both = authenticate_token(engine, _create(engine, alice, "rw"))  # control: both scopes
    assert both.allows("read") and both.allows("submit")
    assert both.token_id != grant.token_id


@pytest.mark.parametrize(
    "secret",
    [
        "",
        "a952_",
        "a952_" + "A" * 42,  # one short
        "a952_" + "A" * 44,  # one long
        "a952_" + "A" * 42 + "=",  # not URL-safe base64
        "Bearer a952_" + "A" * 43,
        "A952_" + "A" * 43,
        " a952_" + "A" * 43,
        "a952_" + "A" * 43 + "\n",
        "x" * 10_000,
    ],
)
def test_a_malformed_token_is_refused(engine: Engine, alice: Actor, secret: str) -> None:
    good = _create(engine, alice)
    assert _refusal(engine, secret) == "bad_token"
    assert authenticate_token(engine, good).actor.name == "alice"  # control


def test_an_unknown_token_is_refused(engine: Engine, alice: Actor) -> None:
    good = _create(engine, alice)
    unknown = good[:-1] + ("A" if good[-1] != "A" else "B")  # well formed, one character off
    assert _refusal(engine, unknown) == "bad_token"
    assert authenticate_token(engine, good).actor.name == "alice"  # control


def test_an_expired_token_is_refused(engine: Engine, alice: Actor) -> None:
    secret, info = create_token(
        engine, alice, owner="alice", name="ci", scopes="read", expires_in_days=30
    )
    assert info.expires_at is not None
    assert _refusal(engine, secret, now=info.expires_at) == "expired_token"
    assert _refusal(engine, secret, now=info.created_at + timedelta(days=31)) == "expired_token"
    assert info.state(info.expires_at) == "expired"
    ok = authenticate_token(engine, secret, now=info.expires_at - timedelta(seconds=1))  # control
    assert ok.actor.name == "alice"


def test_a_revoked_token_is_refused_at_once(engine: Engine, alice: Actor) -> None:
    secret = _create(engine, alice)
    assert authenticate_token(engine, secret).actor.name == "alice"  # control: before
    revoke_token(engine, alice, "alice", "ci")
    assert _refusal(engine, secret) == "revoked_token"


def test_a_disabled_owners_token_is_refused(engine: Engine, alice: Actor) -> None:
    secret = _create(engine, alice)
    set_disabled(engine, "alice", True)
    assert _refusal(engine, secret) == "bad_token"
    with pytest.raises(StorageError, match="user 'alice' is disabled"):
        create_token(engine, storage.actor(engine), owner="alice", name="new", scopes="read")
    set_disabled(engine, "alice", False)
    assert authenticate_token(engine, secret).actor.name == "alice"  # control: enabled again


def test_an_organisers_token_acts_as_a_participant(engine: Engine) -> None:
    organiser = storage.actor(engine)  # the host's `local`
    assert organiser.is_organiser  # control: the owner itself is an organiser
    require_role(organiser, "organiser", "managing accounts")
    grant = authenticate_token(engine, _create(engine, organiser, "admin-laptop"))
    assert (grant.actor.name, grant.actor.role) == ("local", "participant")
    assert not grant.actor.is_organiser
    with pytest.raises(PermissionDenied, match="needs an organiser account"):
        require_role(grant.actor, "organiser", "managing accounts")
    # Nor may it manage another user's tokens, as its organiser owner could.
    _user(engine, "bob")
    with pytest.raises(PermissionDenied):
        list_tokens(engine, grant.actor, "bob")
    assert list_tokens(engine, organiser, "bob") == []  # control


# ---------------------------------------------------------------------------- permissions


def test_a_participant_cannot_touch_anothers_tokens(engine: Engine, alice: Actor) -> None:
    bob = _user(engine, "bob")
    _create(engine, alice, "ci")
    refused = "only alice or an organiser may manage alice's tokens"
    with pytest.raises(PermissionDenied, match=refused):
        list_tokens(engine, bob, "alice")
    with pytest.raises(PermissionDenied, match=refused):
        create_token(engine, bob, owner="alice", name="mine-now", scopes="read")
    with pytest.raises(PermissionDenied, match=refused):
        revoke_token(engine, bob, "alice", "ci")
    assert [t.state(t.created_at) for t in list_tokens(engine, alice, "alice")] == ["active"]
    # Control: an organiser may do all three.
    organiser = storage.actor(engine)
    secret, info = create_token(engine, organiser, owner="alice", name="by-org", scopes="read")
    assert info.user == "alice"
    assert authenticate_token(engine, secret).actor.name == "alice"  # acts for its owner
    assert [t.name for t in list_tokens(engine, organiser, "alice")] == ["ci", "by-org"]
    assert revoke_token(engine, organiser, "alice", "ci").revoked_at is not None


def test_an_unknown_owner_is_refused(engine: Engine, alice: Actor) -> None:
    organiser = storage.actor(engine)
    with pytest.raises(StorageError, match="no user named 'nobody'"):
        create_token(engine, organiser, owner="nobody", name="ci", scopes="read")
    with pytest.raises(StorageError, match="no user named 'nobody'"):
        list_tokens(engine, organiser, "nobody")
    assert list_tokens(engine, organiser, "alice") == []  # control


# --------------------------------------------------------------------------------- limits


def test_a_live_name_is_taken_until_revoked(engine: Engine, alice: Actor) -> None:
    first = _create(engine, alice, "ci")
    with pytest.raises(StorageError, match="alice already has a live token named 'ci'"):
        _create(engine, alice, "ci")
    bob = _user(engine, "bob")
    _create(engine, bob, "ci")  # another user's names are theirs
    revoke_token(engine, alice, "alice", "ci")
    second = _create(engine, alice, "ci")  # control: the name is free again
    assert second != first and [t.name for t in list_tokens(engine, alice, "alice")] == ["ci"] * 2


def test_an_expired_tokens_name_is_free(engine: Engine, alice: Actor) -> None:
    _create(engine, alice, "ci", expires_in_days=1)
    with pytest.raises(StorageError, match="already has a live token"):
        _create(engine, alice, "ci")
    with engine.begin() as connection:  # a day later, as far as the table can tell
        connection.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(minutes=1)))
    _create(engine, alice, "ci")  # control: the expired one no longer holds the name


def test_racing_creations_of_one_name_make_one_token(engine: Engine, alice: Actor) -> None:
    start = threading.Barrier(6)

    def create(_: int) -> bool:
        start.wait(timeout=60)
        try:
            _create(engine, alice, "race")
        except StorageError as exc:
            assert "already has a live token named 'race'" in str(exc)
            return False
        return True

    with ThreadPoolExecutor(6) as pool:
        made = list(pool.map(create, range(6)))
    assert made.count(True) == 1
    assert [t.name for t in list_tokens(engine, alice, "alice")] == ["race"]


def test_at_most_max_live_tokens(engine: Engine, alice: Actor) -> None:
    for number in range(MAX_LIVE_TOKENS):
        _create(engine, alice, f"t{number}")
    with pytest.raises(StorageError, match=f"alice has {MAX_LIVE_TOKENS} live tokens already"):
        _create(engine, alice, "one-more")
    revoke_token(engine, alice, "alice", "t0")
    _create(engine, alice, "one-more")  # control: a revoked one no longer counts
    assert len(list_tokens(engine, alice, "alice")) == MAX_LIVE_TOKENS + 1


@pytest.mark.parametrize(
    ("name", "scopes", "days", "refusal"),
    [
        ("", "read", None, "a token's name is 1-64"),
        (" ci", "read", None, "a token's name is 1-64"),
        ("ci ", "read", None, "a token's name is 1-64"),
        ("-ci", "read", None, "a token's name is 1-64"),
        ("x" * 65, "read", None, "a token's name is 1-64"),
        ("a/b", "read", None, "a token's name is 1-64"),
        ("line\nbreak", "read", None, "a token's name is 1-64"),
        ("ci\x1b[2J", "read", None, "a token's name is 1-64"),
        ("ci", "admin", None, "unknown token scope 'admin'"),
        ("ci", "read,organiser", None, "unknown token scope 'organiser'"),
        ("ci", "", None, "a token needs a scope"),
        ("ci", [], None, "a token needs a scope"),
        ("ci", "read", 0, "a token expires in 1 to 366 days"),
        ("ci", "read", -5, "a token expires in 1 to 366 days"),
        ("ci", "read", 367, "a token expires in 1 to 366 days"),
    ],
)
def test_a_bad_name_scope_or_expiry_is_refused(
    engine: Engine, alice: Actor, name: str, scopes: Any, days: int | None, refusal: str
) -> None:
    with pytest.raises(StorageError, match=refusal.replace("[", r"\[")):
        create_token(engine, alice, owner="alice", name=name, scopes=scopes, expires_in_days=days)
    assert list_tokens(engine, alice, "alice") == []
    # Control: the same request, put right, makes a token.
    create_token(
        engine, alice, owner="alice", name="x" * 64, scopes="read submit", expires_in_days=366
    )
    assert [t.scopes for t in list_tokens(engine, alice, "alice")] == [("read", "submit")]


def test_scopes_are_parsed_in_every_spelling() -> None:
    assert parse_scopes("read,submit") == ("read", "submit")
    assert parse_scopes("submit read read") == ("read", "submit")
    assert parse_scopes(["submit"]) == ("submit",)
    with pytest.raises(StorageError, match="unknown token scope 'Read'"):
        parse_scopes("Read")  # exact words only


# --------------------------------------------------------------------------- last used


def test_last_used_is_written_at_most_once_a_minute(engine: Engine, alice: Actor) -> None:
    secret = _create(engine, alice)
    writes: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE API_TOKEN"):
            writes.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        start = utcnow()
        authenticate_token(engine, secret, now=start)
        authenticate_token(engine, secret, now=start + timedelta(seconds=30))
        authenticate_token(engine, secret, now=start + timedelta(seconds=59))
        assert len(writes) == 1
        assert list_tokens(engine, alice, "alice")[0].last_used_at == start
        # Control: a minute later, it is written again.
        authenticate_token(engine, secret, now=start + timedelta(minutes=1))
        assert len(writes) == 2
        assert list_tokens(engine, alice, "alice")[0].last_used_at == start + timedelta(minutes=1)
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_a_creation_racing_a_disable_neither_makes_a_token_nor_enables_the_account(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL (SQLite's write transaction holds the whole database, so there the
    disable cannot come in between): an organiser disables the owner after the creation
    read the owner's row and before it locked it."""
    engine = open_database(postgres_url)
    try:
        alice = _user(engine, "alice")
        _create(engine, alice, "before")  # control: enabled, a token is made
        real = tokens.resolve_name

        def raced(*args: Any) -> Any:
            found = real(*args)
            set_disabled(engine, "alice", True)  # another transaction, committed meanwhile
            return found

        monkeypatch.setattr(tokens, "resolve_name", raced)
        with pytest.raises(StorageError, match="user 'alice' is disabled"):
            _create(engine, alice, "during")
        monkeypatch.undo()
        user = find_user(engine, "alice")
        assert user is not None and user.disabled  # the disable stands
        assert [t.name for t in list_tokens(engine, storage.actor(engine), "alice")] == ["before"]
    finally:
        engine.dispose()
