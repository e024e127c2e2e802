"""The password policy, an organiser's one-time password that must be replaced, and
changing one's own password (on SQLite and a real PostgreSQL where storage is involved).
Each refusal has a control that passes; time is passed in, no test sleeps."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, func, select

from arena import storage
from arena.accounts import admin, logins
from arena.accounts.policy import MAX_LENGTH, PasswordRefused, check_password
from arena.accounts.throttle import ThrottlePolicy
from arena.storage import open_database
from arena.storage.models import LoginDevice
from arena.storage.users import find_user, password_change_required

NEW = "a long walk in the park"
ORIGIN = "http://127.0.0.1:8501"
POLICY = logins.LoginPolicy(throttle=ThrottlePolicy(max_client_failures=4))


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


# ------------------------------------------------------------------------------- policy


@pytest.mark.parametrize(
    ("password", "name", "reason"),
    [
        ("short", "alice", "at least 10 characters"),
        ("x" * (MAX_LENGTH + 1) + "y", "alice", "at most 256 characters"),
        ("aaaaaaaaaaaa", "bob", "one character repeated"),
        ("alice-in-wonderland", "alice", "user name"),
        ("ALICE-IN-WONDERLAND", "alice", "user name"),
        ("A.l.i.c.e.2024!!", "alice", "user name"),  # separators are ignored, as in names
        ("my-name-is-\uff41\uff4c\uff49\uff43\uff45", "alice", "user name"),  # fullwidth letters
        ("greedy_bot", "Greedy-Bot", "user name"),
        ("Greedy-Bot-Greedy", "greedy_bot", "user name"),
        ("LoremIpsum", "lorem.ipsum", "user name"),
    ],
)
def test_the_policy_refuses(password: str, name: str, reason: str) -> None:
    with pytest.raises(PasswordRefused, match=reason):
        check_password(password, name)


@pytest.mark.parametrize(
    ("password", "name"),
    [
        ("correct horse battery", "alice"),
        ("xy" * (MAX_LENGTH // 2), "bob"),
        ("ab" * 5, "carol"),  # two characters repeated: long enough, and not one character
        ("jo-jo-and-the-rest", "jo"),  # a two-letter name is only refused as the whole password
        ("wonderland-tea-party", "alice"),
    ],
)
def test_the_policy_accepts(password: str, name: str) -> None:
    check_password(password, name)


# ------------------------------------------------------- an organiser's one-time password


def test_an_organisers_password_must_be_replaced_and_a_rehash_keeps_that(engine: Engine) -> None:
    local = storage.actor(engine)
    password = admin.add_user(engine, local, "alice", "participant")
    alice = find_user(engine, "alice")
    assert alice is not None and alice.id is not None and alice.must_change_password
    session = logins.log_in(engine, "alice", password, "192.0.2.1")  # the first login works
    assert logins.must_replace_password(engine, session)
    # A stored hash re-hashed with stronger parameters (new_password=False) is no new password.
    storage.users.set_password_hash(engine, "alice", alice.password_hash or "", new_password=False)
    assert password_change_required(engine, alice.id)
    # The CLI's --user acts for alice all the same: it is no login.
    assert storage.actor(engine, "alice").name == "alice"
    # Control: an account seeded by a script that says its user knows the password.
    admin.add_user(engine, local, "seeded", "participant", must_change_password=False)
    seeded = find_user(engine, "seeded")
    assert seeded is not None and not seeded.must_change_password


def test_a_reset_sets_the_flag_again_and_a_typed_password_meets_the_policy(
    engine: Engine,
) -> None:
    local = storage.actor(engine)
    admin.add_user(engine, local, "bob", "participant", must_change_password=False)
    with pytest.raises(PasswordRefused, match="user name"):
        admin.reset_password(engine, local, "bob", password="bob-is-my-name")
    with pytest.raises(PasswordRefused, match="at least 10"):
        admin.add_user(engine, local, "carol", "participant", password="short")
    assert find_user(engine, "carol") is None
    typed = admin.reset_password(engine, local, "Bob", password=NEW)  # control
    assert typed == NEW
    bob = find_user(engine, "bob")
    assert bob is not None and bob.must_change_password
    assert logins.log_in(engine, "bob", NEW, "192.0.2.2").actor.name == "bob"


# ----------------------------------------------------------------- changing one's password


def test_a_change_keeps_this_session_and_device_and_ends_the_others(engine: Engine) -> None:
    old = admin.add_user(engine, storage.actor(engine), "dora", "participant")
    here = logins.log_in(engine, "dora", old, logins.Visitor("192.0.2.10", origin=ORIGIN))
    there = logins.log_in(engine, "dora", old, logins.Visitor("192.0.2.11", origin=ORIGIN))
    visitor = logins.Visitor("192.0.2.10", here.device, ORIGIN)
    logins.change_password(engine, here.token, old, NEW, NEW, visitor, POLICY)
    assert logins.current(engine, here.token, origin=ORIGIN) is not None
    assert logins.current(engine, there.token, origin=ORIGIN) is None
    with engine.connect() as connection:
        devices = connection.execute(
            select(func.count())
            .select_from(LoginDevice)
            .where(LoginDevice.user_id == here.actor.id)
        ).scalar_one()
    assert devices == 1  # this browser's; the other one is forgotten
    dora = find_user(engine, "dora")
    assert dora is not None and not dora.must_change_password
    with pytest.raises(logins.LoginRefused):
        logins.log_in(engine, "dora", old, "192.0.2.12")
    logins.log_in(engine, "dora", NEW, "192.0.2.12")


def test_a_change_is_refused_without_the_current_password_and_is_throttled(
    engine: Engine,
) -> None:
    old = admin.add_user(engine, storage.actor(engine), "eve", "participant")
    visitor = logins.Visitor("192.0.2.20", origin=ORIGIN)
    session = logins.log_in(engine, "eve", old, visitor)
    for reason, args in (
        ("confirmation differ", (old, NEW, NEW + "?")),
        ("at least 10", (old, "short", "short")),
        ("user name", (old, "eve-and-adam", "eve-and-adam")),
        ("not the current one", (old, old, old)),
    ):
        with pytest.raises(logins.LoginRefused, match=reason):
            logins.change_password(engine, session.token, *args, visitor, POLICY)
    for _ in range(4):  # someone at an unlocked screen guessing the password
        with pytest.raises(logins.LoginRefused, match="the current password is wrong"):
            logins.change_password(engine, session.token, "guess-guess", NEW, NEW, visitor, POLICY)
    with pytest.raises(logins.LoginThrottled, match="try again in"):
        logins.change_password(engine, session.token, old, NEW, NEW, visitor, POLICY)
    assert logins.current(engine, session.token, origin=ORIGIN) is not None
    eve = find_user(engine, "eve")
    assert eve is not None and eve.must_change_password  # nothing changed
    # Control: from another address, with the right password, it works.
    elsewhere = logins.Visitor("192.0.2.21", origin=ORIGIN)
    fresh = logins.log_in(engine, "eve", old, elsewhere, POLICY)
    logins.change_password(engine, fresh.token, old, NEW, NEW, elsewhere, POLICY)
    assert logins.log_in(engine, "eve", NEW, elsewhere).actor.name == "eve"


def test_an_ended_session_changes_nothing(engine: Engine) -> None:
    old = admin.add_user(engine, storage.actor(engine), "finn", "participant")
    visitor = logins.Visitor("192.0.2.30", origin=ORIGIN)
    session = logins.log_in(engine, "finn", old, visitor)
    logins.log_out(engine, session.token)
    with pytest.raises(logins.LoginRefused, match="session ended"):
        logins.change_password(engine, session.token, old, NEW, NEW, visitor)
    with pytest.raises(logins.LoginRefused, match="session ended"):  # another origin's
        other = logins.log_in(engine, "finn", old, visitor)
        logins.change_password(
            engine, other.token, old, NEW, NEW, logins.Visitor("192.0.2.30", origin="http://x")
        )
    logins.log_in(engine, "finn", old, "192.0.2.31")  # control: the old password still works
