"""The login throttle on SQLite and a real PostgreSQL: growing delays per (account, client)
pair, a limit per client, per account and over the whole arena, and browsers that have
logged in before (their device cookie) that nobody else's failures can keep out.

Each hostile case has its control: the same login that the flood holds back from a new
browser, or the same browser before the flood. Time is passed in, so no test sleeps.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Engine, text

from arena import storage
from arena.accounts import admin, logins
from arena.accounts.throttle import ThrottlePolicy
from arena.storage import open_database
from arena.storage.models import utcnow

THROTTLE = ThrottlePolicy(
    free_pair_failures=2, max_client_failures=6, max_account_failures=6, max_global_failures=9
)
"""Small limits, so that few argon2 verifications are needed (each costs 64 MiB)."""
POLICY = logins.LoginPolicy(throttle=THROTTLE)
OWNER = "192.0.2.10"
"""The address alice usually logs in from."""


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def alice(engine: Engine) -> str:
    """alice's password."""
    return admin.add_user(engine, storage.actor(engine), "alice", "participant")


def _fail(engine: Engine, name: str, visitor: logins.Visitor | str, at: datetime) -> None:
    with pytest.raises(logins.LoginRefused, match=r"^wrong user name or password$"):
        logins.log_in(engine, name, "a wrong guess", visitor, POLICY, at)


def _log_in(
    engine: Engine, password: str, visitor: logins.Visitor | str, at: datetime
) -> logins.Session:
    return logins.log_in(engine, "alice", password, visitor, POLICY, at)


def test_a_pair_waits_growing_delays_once_its_free_failures_are_spent(
    engine: Engine, alice: str
) -> None:
    now = utcnow()
    for _ in range(THROTTLE.free_pair_failures + 1):  # the free ones, then one more: checked
        _fail(engine, "alice", OWNER, now)
    last = now
    for delay in (1, 2):  # after the 3rd and the 4th failure
        with pytest.raises(logins.LoginThrottled, match="this name from your address") as held:
            _log_in(engine, alice, OWNER, last + timedelta(seconds=delay - 0.5))
        assert held.value.retry_after == timedelta(seconds=0.5)
        last += timedelta(seconds=delay)
        _fail(engine, "alice", OWNER, last)  # waited: checked again
    # Control: another address is not this pair, and after its wait the pair gets in.
    assert _log_in(engine, alice, "198.51.100.1", last)
    assert _log_in(engine, alice, OWNER, last + timedelta(seconds=4)).actor.name == "alice"


def test_a_success_starts_its_pair_afresh(engine: Engine, alice: str) -> None:
    now = utcnow()
    for _ in range(THROTTLE.free_pair_failures + 1):
        _fail(engine, "alice", OWNER, now)
    _log_in(engine, alice, OWNER, now + timedelta(seconds=2))
    later = now + timedelta(seconds=2)
    for _ in range(THROTTLE.free_pair_failures + 1):
        _fail(engine, "alice", OWNER, later)  # all checked: the count started again
    with pytest.raises(logins.LoginThrottled):  # control: and it still grows
        _log_in(engine, alice, OWNER, later)


def test_a_client_over_its_limit_waits_whatever_names_it_tries(engine: Engine, alice: str) -> None:
    now = utcnow()
    for attempt in range(THROTTLE.max_client_failures):
        _fail(engine, f"user{attempt}", "203.0.113.7", now)
    with pytest.raises(logins.LoginThrottled, match="for your address"):
        _log_in(engine, alice, "203.0.113.7", now)
    assert _log_in(engine, alice, "198.51.100.1", now)  # control: another client


def test_the_owner_gets_in_from_their_browser_while_strangers_flood_their_name(
    engine: Engine, alice: str
) -> None:
    """The finding: wrong passwords for an account from forged addresses used to lock its
    owner out for 15 minutes. Now they hold back new browsers only."""
    now = utcnow()
    usual = _log_in(engine, alice, OWNER, now - timedelta(days=3))
    assert usual.device is not None
    strangers = [f"203.0.113.{n}" for n in range(THROTTLE.max_account_failures + 5)]
    # Also from the owner's own address (a shared network): past the client's limit too.
    for address in strangers + [OWNER] * THROTTLE.max_client_failures:
        with pytest.raises(logins.LoginRefused):  # wrong, or held back once over a limit
            logins.log_in(engine, "alice", "a wrong guess", address, POLICY, now)
    # Control: the flood holds back the right password from a browser new to the account,
    # even at another address...
    with pytest.raises(logins.LoginThrottled, match="this name"):
        _log_in(engine, alice, "192.0.2.99", now)
    # ... but not from the owner's browser, at their address or any other.
    for address in (OWNER, "203.0.113.1", "192.0.2.99"):
        visitor = logins.Visitor(address, device=usual.device)
        assert _log_in(engine, alice, visitor, now).actor.name == "alice"


def test_a_device_is_trusted_only_for_the_account_it_logged_in_as(
    engine: Engine, alice: str
) -> None:
    now = utcnow()
    bob = admin.add_user(engine, storage.actor(engine), "bob", "participant")
    bobs = logins.log_in(engine, "bob", bob, OWNER, POLICY, now - timedelta(days=1)).device
    for attempt in range(THROTTLE.max_account_failures):
        _fail(engine, "alice", f"203.0.113.{attempt}", now)
    with pytest.raises(logins.LoginThrottled, match="this name"):
        _log_in(engine, alice, logins.Visitor(OWNER, device=bobs), now)
    # Control: the same browser is trusted for bob.
    assert logins.log_in(engine, "bob", bob, logins.Visitor(OWNER, device=bobs), POLICY, now)


def test_a_trusted_device_waits_only_for_its_own_failures(engine: Engine, alice: str) -> None:
    now = utcnow()
    device = _log_in(engine, alice, OWNER, now - timedelta(days=1)).device
    browser = logins.Visitor(OWNER, device=device)
    for _ in range(THROTTLE.free_pair_failures + 1):
        _fail(engine, "alice", browser, now)
    with pytest.raises(logins.LoginThrottled, match="this name from this browser"):
        _log_in(engine, alice, browser, now)
    # Control: its delays end, and nobody else's failures made them.
    assert _log_in(engine, alice, browser, now + timedelta(seconds=2))


def test_a_planted_device_token_is_never_made_trusted(engine: Engine, alice: str) -> None:
    """A device token the arena never issued (planted by someone who knows it) is replaced
    at login, so its planter cannot borrow the owner's trust."""
    planted = "A" * 43
    session = _log_in(engine, alice, logins.Visitor(OWNER, device=planted), utcnow())
    assert session.device is not None and session.device != planted
    with engine.connect() as connection:
        stored = set(connection.execute(text("SELECT token_hash FROM login_device")).scalars())
    assert stored == {logins.token_hash(session.device)}
    # Control: a token the arena issued is kept at the next login.
    again = _log_in(engine, alice, logins.Visitor(OWNER, device=session.device), utcnow())
    assert again.device == session.device


def test_a_new_password_forgets_the_accounts_devices(engine: Engine, alice: str) -> None:
    now = utcnow()
    device = _log_in(engine, alice, OWNER, now - timedelta(days=1)).device
    password = admin.reset_password(engine, storage.actor(engine), "alice")
    for attempt in range(THROTTLE.max_account_failures):
        _fail(engine, "alice", f"203.0.113.{attempt}", now)
    with pytest.raises(logins.LoginThrottled, match="this name"):
        _log_in(engine, password, logins.Visitor(OWNER, device=device), now)


def test_untrusted_logins_wait_once_the_whole_arena_has_failed_too_often(
    engine: Engine, alice: str
) -> None:
    now = utcnow()
    device = _log_in(engine, alice, OWNER, now - timedelta(days=1)).device
    for attempt in range(THROTTLE.max_global_failures):
        _fail(engine, f"someone{attempt}", f"203.0.113.{attempt}", now)
    with pytest.raises(logins.LoginThrottled, match="this arena"):
        _log_in(engine, alice, "192.0.2.99", now)
    assert _log_in(engine, alice, logins.Visitor(OWNER, device=device), now)  # control


def test_every_wait_ends_when_its_failures_leave_the_window(engine: Engine, alice: str) -> None:
    now = utcnow()
    for attempt in range(THROTTLE.max_account_failures):
        _fail(engine, "alice", f"203.0.113.{attempt}", now)
    with pytest.raises(logins.LoginThrottled) as held:
        _log_in(engine, alice, "192.0.2.99", now)
    assert held.value.retry_after == THROTTLE.window
    after = now + THROTTLE.window + timedelta(seconds=1)
    assert _log_in(engine, alice, "192.0.2.99", after).actor.name == "alice"


def test_spellings_of_one_account_share_its_allowance(engine: Engine, alice: str) -> None:
    """``ALICE``, ``a.lice``, ``Al1ce``... are alice (canonical names): guessing under
    another spelling is no new allowance, and the right password gets in under any."""
    now = utcnow()
    spellings = ["ALICE", "a.lice", "A-lice", "Alice", "alICE", "al1ce"]
    for n, spelling in enumerate(spellings[: THROTTLE.max_account_failures]):
        _fail(engine, spelling, f"203.0.113.{n}", now)
    with pytest.raises(logins.LoginThrottled, match="this name"):
        _log_in(engine, alice, "192.0.2.99", now)
    # Control: failures under a name that is nobody's look-alike count for nobody else.
    later = now + THROTTLE.window + timedelta(seconds=1)
    for n in range(THROTTLE.max_account_failures):
        _fail(engine, "alicia", f"203.0.113.{n}", later)
    session = logins.log_in(engine, "ALICE", alice, "192.0.2.99", POLICY, later)
    assert session.actor.name == "alice"
