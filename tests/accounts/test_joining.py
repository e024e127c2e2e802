"""Joining on SQLite and a real PostgreSQL: invitation codes (hashed, counted, refused when
expired, used up, revoked or wrong, each beside a twin that works), the use counted in the
transaction that makes the account (racing sign-ups never exceed a code's uses), the
per-client sign-up limits with their retry times, and the join modes. Time is passed in,
so windows are exact and no test sleeps."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Engine, text

from arena import storage
from arena.accounts import joining, logins
from arena.accounts.joining import SignUp, SignUpLimited, SignUpRefused
from arena.accounts.passwords import hash_password, verify
from arena.storage import invites, open_database
from arena.storage.models import utcnow
from arena.storage.settings import set_setting
from arena.storage.users import create_user, find_user

PASSWORD = "correct horse battery"
INVALID = re.escape("this invitation code is not valid (ask for a new one)")


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


def _mode(engine: Engine, mode: str) -> None:
    set_setting(engine, "join", mode, by=None)


def _invite(
    engine: Engine,
    uses: int = 1,
    expires_in: timedelta | None = timedelta(days=7),
    now: datetime | None = None,
) -> joining.NewInvite:
    return joining.create_invite(
        engine, storage.actor(engine), "participant", uses, expires_in, now=now
    )


def _visitor(client: str = "203.0.113.1") -> logins.Visitor:
    return logins.Visitor(client, origin="http://127.0.0.1:8501")


def _join(
    engine: Engine,
    name: str,
    code: str = "",
    client: str = "203.0.113.1",
    now: datetime | None = None,
) -> logins.Session:
    return joining.sign_up(
        engine, SignUp(name, PASSWORD, PASSWORD, code), _visitor(client), now=now
    )


# -------------------------------------------------------------------------- invitations


def test_a_code_is_random_url_safe_shown_once_and_stored_only_hashed(engine: Engine) -> None:
    first, second = _invite(engine), _invite(engine)
    assert first.code != second.code
    assert joining.CODE.fullmatch(first.code) and len(first.code) * 6 >= 128
    with engine.connect() as connection:
        rows = " ".join(
            str(value) for row in connection.execute(text("SELECT * FROM invite")) for value in row
        )
    assert first.code not in rows and second.code not in rows
    assert joining.code_hash(first.code) in rows  # what is kept instead
    listed = joining.list_invites(engine, storage.actor(engine))
    assert [(i.id, i.uses, i.max_uses, i.state(utcnow())) for i in listed] == [
        (second.id, 0, 1, "usable"),
        (first.id, 0, 1, "usable"),
    ]


def test_only_an_organiser_makes_lists_or_revokes_invitations(engine: Engine) -> None:
    local = storage.actor(engine)
    create_user(engine, "pat", "participant", None)
    pat = storage.actor(engine, "pat")
    invite = _invite(engine)
    for attempt in (
        lambda: joining.create_invite(engine, pat),
        lambda: joining.list_invites(engine, pat),
        lambda: joining.revoke_invite(engine, pat, invite.id),
    ):
        with pytest.raises(storage.PermissionDenied, match="pat is a participant"):
            attempt()
    joining.revoke_invite(engine, local, invite.id)  # control
    assert joining.list_invites(engine, local)[0].revoked
    with pytest.raises(storage.StorageError, match="no invitation with id 999"):
        joining.revoke_invite(engine, local, 999)


def test_a_valid_code_makes_an_account_with_its_role_and_counts_the_use(engine: Engine) -> None:
    _mode(engine, "invite")
    invite = joining.create_invite(engine, storage.actor(engine), "organiser", uses=2)
    session = _join(engine, "newcomer", invite.code)
    assert (session.actor.name, session.actor.role, session.method) == (
        "newcomer",
        "organiser",
        "password",
    )
    assert logins.current(engine, session.token, origin="http://127.0.0.1:8501") is not None
    user = find_user(engine, "newcomer")
    assert user is not None and verify(PASSWORD, user.password_hash)[0]
    assert not user.must_change_password  # the newcomer chose it
    assert joining.list_invites(engine, storage.actor(engine))[0].uses == 1


def test_an_expired_code_is_refused_and_its_twin_before_expiry_works(engine: Engine) -> None:
    _mode(engine, "invite")
    made = utcnow()
    expired = _invite(engine, expires_in=timedelta(hours=1), now=made)
    later = made + timedelta(hours=1, seconds=1)
    with pytest.raises(SignUpRefused, match=INVALID):
        _join(engine, "late", expired.code, now=later)
    assert find_user(engine, "late") is None
    assert joining.list_invites(engine, storage.actor(engine))[0].state(later) == "expired"
    # Control: the same code, a minute before it expires.
    assert _join(engine, "early", expired.code, now=made + timedelta(minutes=59)).actor.name


def test_a_used_up_code_is_refused_after_its_uses(engine: Engine) -> None:
    _mode(engine, "invite")
    invite = _invite(engine, uses=2)
    _join(engine, "first", invite.code)  # control: its uses work
    _join(engine, "second", invite.code)
    with pytest.raises(SignUpRefused, match=INVALID):
        _join(engine, "third", invite.code)
    assert find_user(engine, "third") is None
    (listed,) = joining.list_invites(engine, storage.actor(engine))
    assert (listed.uses, listed.state(utcnow())) == (2, "used up")


def test_a_revoked_code_is_refused_and_its_unrevoked_twin_works(engine: Engine) -> None:
    _mode(engine, "invite")
    revoked, kept = _invite(engine, uses=5), _invite(engine, uses=5)
    joining.revoke_invite(engine, storage.actor(engine), revoked.id)
    with pytest.raises(SignUpRefused, match=INVALID):
        _join(engine, "refused", revoked.code)
    assert _join(engine, "welcome", kept.code).actor.name == "welcome"  # control


def test_a_wrong_code_gets_the_same_answer_as_a_spent_one(engine: Engine) -> None:
    _mode(engine, "invite")
    invite = _invite(engine)
    answers = set()
    for code in (invite.code[:-1] + ("A" if invite.code[-1] != "A" else "B"), "", "x" * 500):
        with pytest.raises(SignUpRefused) as refused:
            _join(engine, "guesser", code)
        answers.add(str(refused.value))
    _join(engine, "holder", invite.code)  # control: the real code
    with pytest.raises(SignUpRefused) as spent:
        _join(engine, "guesser", invite.code)
    answers.add(str(spent.value))
    assert answers == {"this invitation code is not valid (ask for a new one)"}


def test_a_taken_name_does_not_spend_the_code(engine: Engine) -> None:
    _mode(engine, "invite")
    create_user(engine, "alice", "participant", None)
    invite = _invite(engine)
    for taken in ("alice", "Alice", "a1ice"):
        with pytest.raises(SignUpRefused, match=r"user name .* is t"):
            _join(engine, taken, invite.code)
    assert joining.list_invites(engine, storage.actor(engine))[0].uses == 0
    assert _join(engine, "alicia", invite.code).actor.name == "alicia"  # control


def test_racing_sign_ups_never_exceed_a_codes_uses(engine: Engine) -> None:
    """Eight sign-ups at once for a code of three uses, each in its own connection and
    thread, straight into the storing transaction: three accounts, three uses."""
    invite = _invite(engine, uses=3)
    hashed = joining.code_hash(invite.code)
    password_hash = hash_password(PASSWORD)
    start = threading.Barrier(8)
    now = utcnow()

    def racer(n: int) -> str:
        start.wait()
        try:
            invites.sign_up(engine, f"racer{n}", password_hash, hashed, now)
        except invites.InviteRefused:
            return "refused"
        return "made"

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(racer, range(8)))
    assert sorted(outcomes) == ["made"] * 3 + ["refused"] * 5
    assert joining.list_invites(engine, storage.actor(engine))[0].uses == 3
    made = [n for n in range(8) if find_user(engine, f"racer{n}") is not None]
    assert len(made) == 3


def test_durations_parse_or_say_what_fits() -> None:
    assert joining.parse_duration("7d") == timedelta(days=7)
    assert joining.parse_duration(" 12H ") == timedelta(hours=12)
    assert joining.parse_duration("30m") == timedelta(minutes=30)
    assert joining.parse_duration("never") is None
    for bad in ("7", "d", "7w", "1.5h", "-1d", "7d 2h", "", "0m", "400d", "9" * 40 + "d"):
        with pytest.raises(ValueError) as refused:
            joining.parse_duration(bad)
        assert "\n" not in str(refused.value)


# ---------------------------------------------------------------------------- join modes


def test_a_closed_arena_takes_no_sign_ups(engine: Engine) -> None:
    with pytest.raises(SignUpRefused, match="this arena takes no sign-ups"):
        _join(engine, "hopeful")
    assert find_user(engine, "hopeful") is None
    _mode(engine, "open")  # control
    assert _join(engine, "hopeful").actor.role == "participant"


def test_an_invite_arena_needs_a_code_and_an_open_one_none(engine: Engine) -> None:
    _mode(engine, "invite")
    with pytest.raises(SignUpRefused, match=INVALID):
        _join(engine, "walkin")
    _mode(engine, "open")  # control
    assert _join(engine, "walkin").actor.name == "walkin"


def test_sign_up_applies_the_name_rules_and_the_password_policy(engine: Engine) -> None:
    _mode(engine, "open")
    visitor = _visitor()
    for form, reason in (
        (SignUp("bad name", PASSWORD, PASSWORD), "invalid user name"),
        (SignUp("carol", PASSWORD, PASSWORD + "x"), "confirmation differ"),
        (SignUp("carol", "short", "short"), "at least 10 characters"),
        (SignUp("carol", "Carol-the-great", "Carol-the-great"), "user name"),
    ):
        with pytest.raises(SignUpRefused, match=reason):
            joining.sign_up(engine, form, visitor)
    assert find_user(engine, "carol") is None
    joining.sign_up(engine, SignUp("carol", PASSWORD, PASSWORD), visitor)  # control
    assert find_user(engine, "carol") is not None


# ------------------------------------------------------------------------- rate limits


def test_open_sign_ups_are_limited_per_client_with_a_retry_time(engine: Engine) -> None:
    _mode(engine, "open")
    start = utcnow()
    for n in range(joining.ACCOUNTS_PER_CLIENT_PER_DAY):
        _join(engine, f"farm{n}", client="198.51.100.9", now=start + timedelta(minutes=n))
    with pytest.raises(SignUpLimited) as limited:
        _join(engine, "farm9", client="198.51.100.9", now=start + timedelta(hours=1))
    assert "try again in 23 hours" in str(limited.value)
    assert limited.value.retry_after == timedelta(hours=23)
    assert find_user(engine, "farm9") is None
    # Control: another client is accepted at the same moment ...
    _join(engine, "neighbour", client="198.51.100.10", now=start + timedelta(hours=1))
    # ... and the first client again once its first account leaves the 24 hours.
    _join(engine, "farm9", client="198.51.100.9", now=start + timedelta(hours=24, seconds=1))


def test_open_sign_up_tries_are_limited_per_hour(engine: Engine) -> None:
    """Walking through names to learn which are taken is held back."""
    _mode(engine, "open")
    create_user(engine, "taken", "participant", None)
    start = utcnow()
    for n in range(joining.ATTEMPTS_PER_CLIENT_PER_HOUR):
        with pytest.raises(SignUpRefused, match="is taken"):
            _join(engine, "taken", client="198.51.100.20", now=start + timedelta(minutes=n))
    with pytest.raises(SignUpLimited, match="try again in 50 minutes"):
        _join(engine, "fresh", client="198.51.100.20", now=start + timedelta(minutes=10))
    _join(engine, "fresh", client="198.51.100.21", now=start + timedelta(minutes=10))  # control


def test_failed_codes_are_limited_per_client_in_invite_mode(engine: Engine) -> None:
    _mode(engine, "invite")
    invite = _invite(engine, uses=3)
    start = utcnow()
    for _ in range(joining.ATTEMPTS_PER_CLIENT_PER_HOUR):
        with pytest.raises(SignUpRefused, match=INVALID):
            _join(engine, "guess", "y" * 32, client="198.51.100.30", now=start)
    with pytest.raises(SignUpLimited, match="try again in 60 minutes") as limited:
        _join(engine, "holder", invite.code, client="198.51.100.30", now=start)
    assert limited.value.retry_after == timedelta(hours=1)
    # Control: another client with the code is accepted, and sign-ups with good codes
    # are not what this mode counts.
    for n in range(3):
        _join(engine, f"holder{n}", invite.code, client="198.51.100.31", now=start)
