"""Look-alike bot and user names (a security fix): the canonical keys of
:mod:`arena.storage.names`, and storage refusing a look-alike of a stored name, resolving a
typed name to the stored one, and holding under racing submissions, on SQLite and a real
PostgreSQL. Each hostile case has a control showing the test can fail."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, text
from sqlmodel import Session

from arena import storage
from arena.storage import bots as bot_storage
from arena.storage import users as user_storage
from arena.storage.models import Bot, User
from arena.storage.names import (
    MAX_KEY_LENGTH,
    SEPARATORS,
    claim_keys,
    legacy_key,
    name_keys,
    names_collide,
)
from arena.storage.users import (
    AmbiguousName,
    PermissionDenied,
    create_user,
    find_user,
    resolve_user,
)

# ----------------------------------------------------------------------- the keys

LOOK_ALIKES_OF_GREEDY_BOT = [
    "Greedy_Bot",
    "GREEDY_BOT",
    "greedy-bot",
    "greedy.bot",
    "greedy bot",
    "greedy_b0t",
    "gr\u0435\u0435dy_bot",  # Cyrillic small ie twice
    "\uff47\uff52\uff45\uff45\uff44\uff59_bot",  # fullwidth "greedy"
    "GREEDY.B0T",
    "greedy\u200bbot",  # a zero-width space
]
DIFFERENT_NAMES = [
    ("greedy_bot", "greedy_bots"),
    ("greedy_bot", "heuristic_bot"),
    ("random_bot", "random_bot2"),
    ("alice", "alicia"),
    ("bot1", "bot2"),
]


@pytest.mark.parametrize("look_alike", LOOK_ALIKES_OF_GREEDY_BOT)
def test_look_alikes_of_a_name_collide(look_alike: str) -> None:
    assert names_collide("greedy_bot", look_alike)
    assert names_collide(look_alike, "greedy_bot")
    # Control: the exact comparison the arena made before lets every one of them through.
    assert look_alike != "greedy_bot"


@pytest.mark.parametrize(("first", "second"), DIFFERENT_NAMES)
def test_different_names_do_not_collide(first: str, second: str) -> None:
    assert not names_collide(first, second)


def test_a_capital_i_looks_like_an_l_only_before_case_folding() -> None:
    assert names_collide("paypal", "paypaI")
    assert names_collide("paypal", "PAYPAI")
    # Control: the folded key alone misses it (folding makes I an i, which is no l) ...
    assert name_keys("paypaI").folded != name_keys("paypal").folded
    # ... and the shape key alone misses case: without both, one of these would pass.
    assert name_keys("PAYPAL").shape == name_keys("paypal").shape
    assert name_keys("PAYPAI").folded != name_keys("paypal").folded


@pytest.mark.parametrize(("name", "in_capitals"), [("alice", "AL1CE"), ("admin", "ADM1N")])
def test_a_one_for_an_i_in_capitals_collides(name: str, in_capitals: str) -> None:
    """``ADM1N`` reads ``ADMIN``, which is ``admin`` in capitals; only the ``upper`` key
    sees it (the other two map a one to an l)."""
    assert names_collide(name, in_capitals)
    keys, capitals = name_keys(name), name_keys(in_capitals)
    assert keys.upper == capitals.upper
    # Control: the folded and shape keys alone let it through.
    assert keys.folded != capitals.folded and keys.shape != capitals.shape


def test_digits_and_script_look_alikes_need_the_skeleton() -> None:
    """Control for the skeleton: case folding and removing separators alone (what a
    simpler fix would do) miss a zero for an O, a Cyrillic e and a one for an l."""

    def naive(name: str) -> str:
        return re.sub(r"[-_.\s]", "", name.casefold())

    for look_alike in ("greedy_b0t", "gr\u0435\u0435dy_bot"):
        assert naive(look_alike) != naive("greedy_bot")
        assert names_collide(look_alike, "greedy_bot")
    assert naive("a1ice") != naive("alice") and names_collide("a1ice", "alice")


ASCII_NAME_CHARACTERS = st.sampled_from(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)
SEPARATOR_RUNS = st.text(alphabet=st.sampled_from([*sorted(SEPARATORS), " ", "\t"]), max_size=2)


@st.composite
def respelt(draw: Callable[[Any], Any]) -> tuple[str, str, str]:
    """A name, the same name with separators put between its characters, and the same
    name in other case."""
    characters: list[str] = draw(st.lists(ASCII_NAME_CHARACTERS, min_size=1, max_size=24))
    separated = "".join(c + draw(SEPARATOR_RUNS) for c in characters)
    flips: list[bool] = draw(
        st.lists(st.booleans(), min_size=len(characters), max_size=len(characters))
    )
    recased = "".join(
        c.swapcase() if flip else c for c, flip in zip(characters, flips, strict=True)
    )
    return "".join(characters), separated, recased


@settings(max_examples=300, deadline=None)
@given(respelt())
def test_separators_and_case_never_change_what_a_name_collides_with(
    spellings: tuple[str, str, str],
) -> None:
    name, separated, recased = spellings
    assert name_keys(separated) == name_keys(name)  # every key
    assert name_keys(recased).folded == name_keys(name).folded
    assert name_keys(recased).upper == name_keys(name).upper
    assert names_collide(recased, name) and names_collide(separated, recased)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_has_keys_without_separators(typed: str) -> None:
    keys = name_keys(typed)
    for key in keys.columns().values():
        assert not any(c in SEPARATORS or c.isspace() for c in key)
    # A folded key is its own folded key: the rounds ran until nothing changed.
    assert name_keys(keys.folded).folded == keys.folded


def test_an_ascii_names_keys_fit_their_columns() -> None:
    longest = name_keys("m" * 64)  # every m has the skeleton rn
    assert all(len(legacy_key(key, 2**63)) <= MAX_KEY_LENGTH for key in longest.columns().values())
    for model in (Bot, User):
        for column in longest.columns():
            assert model.__table__.c[column].type.length == MAX_KEY_LENGTH  # type: ignore[attr-defined]


def test_older_rows_keep_their_keys_and_newer_look_alikes_are_marked() -> None:
    claims = claim_keys([(7, "Greedy_Bot"), (3, "greedy_bot"), (9, "greedy-bot"), (4, "other")])
    assert claims.keys[3] == name_keys("greedy_bot")
    assert claims.keys[7].folded == legacy_key("greedybot", 7)
    assert claims.keys[9].shape == legacy_key("greedybot", 9)
    assert claims.keys[4] == name_keys("other")
    assert claims.collisions == [(3, 7), (3, 9)]
    assert len({k.folded for k in claims.keys.values()}) == 4  # unique, as the index needs
    # A name that shares only the shape key with an older one is reported too.
    assert claim_keys([(1, "paypal"), (2, "paypaI")]).collisions == [(1, 2)]
    # Control: names that do not look alike are not reported.
    assert claim_keys([(1, "greedy_bot"), (2, "greedy_bots")]).collisions == []


# -------------------------------------------------------------------------- storage


def _fields(name: str, version: str = "1") -> dict[str, str]:
    return {"name": name, "version": version, "language": "python", "run": "python bot.py"}


def _checksum(number: int) -> str:
    return "v2:" + format(number, "052b").replace("0", "a").replace("1", "b")


@pytest.fixture
def users(engine: Engine) -> dict[str, storage.Actor]:
    """The participants alice and mallory, and the host's organiser local."""
    for name in ("alice", "mallory"):
        create_user(engine, name, "participant", None)
    return {name: storage.actor(engine, name) for name in ("alice", "mallory", "local")}


@pytest.fixture
def people(engine: Engine, users: dict[str, storage.Actor]) -> dict[str, storage.Actor]:
    """:func:`users`, alice owning greedy_bot."""
    storage.add_bot_version(
        engine, _fields("greedy_bot"), _checksum(1), "/a", submitter=users["alice"]
    )
    return users


def _bot_names(engine: Engine) -> list[str]:
    return [bot.name for bot in storage.list_bots(engine)]


def test_another_owners_look_alike_bot_name_is_refused_and_nothing_stored(
    engine: Engine, people: dict[str, storage.Actor]
) -> None:
    for number, look_alike in enumerate(LOOK_ALIKES_OF_GREEDY_BOT, start=2):
        expected = (
            f"bot name {look_alike!r} is too close to 'greedy_bot' (alice's): choose another "
            "name in bot.toml"
        )
        with pytest.raises(PermissionDenied) as refused:
            bot_storage.check_may_submit(engine, people["mallory"], look_alike)
        assert str(refused.value) == expected
        for submitter in (people["mallory"], people["local"], people["alice"]):  # anyone's
            with pytest.raises(PermissionDenied) as refused:
                storage.add_bot_version(
                    engine, _fields(look_alike), _checksum(number), "/m", submitter=submitter
                )
            assert str(refused.value) == expected
    assert _bot_names(engine) == ["greedy_bot"]
    assert len(storage.bot_versions(engine, "greedy_bot")) == 1
    # Control: distinct names are stored, and the owner adds versions under the exact name.
    for name in ("greedy_bots", "heuristic_bot"):
        version, created = storage.add_bot_version(
            engine, _fields(name), _checksum(99), "/m", submitter=people["mallory"]
        )
        assert created and version.label == f"{name}@1"
    _, created = storage.add_bot_version(
        engine, _fields("greedy_bot", "2"), _checksum(100), "/a2", submitter=people["alice"]
    )
    assert created
    assert _bot_names(engine) == ["greedy_bot", "greedy_bots", "heuristic_bot"]


def test_a_look_alike_user_name_is_refused_and_nothing_stored(engine: Engine) -> None:
    create_user(engine, "alice", "participant", None)
    for look_alike in ("Alice", "ALICE", "a.lice", "a-l-i-c-e", "a1ice", "AL1CE", "a_L_1_c_e"):
        with pytest.raises(storage.StorageError) as refused:
            create_user(engine, look_alike, "participant", None)
        assert str(refused.value) == (
            f"user name {look_alike!r} is too close to 'alice': choose another name"
        )
    with pytest.raises(storage.StorageError, match=r"^user name 'alice' is taken$"):
        create_user(engine, "alice", "organiser", None)
    assert [u.name for u in storage.list_user_rows(engine)] == ["alice", "local"]
    # Control: a name that does not look like another is stored.
    create_user(engine, "alicia", "participant", None)
    assert [u.name for u in storage.list_user_rows(engine)] == ["alice", "alicia", "local"]


def test_a_typed_name_resolves_to_the_stored_one(
    engine: Engine, people: dict[str, storage.Actor]
) -> None:
    storage.add_bot_version(
        engine, _fields("greedy_bots"), _checksum(5), "/g", submitter=people["mallory"]
    )
    for typed in ("GREEDY_BOT", "greedy-b0t", "gr\u0435\u0435dy bot"):
        assert bot_storage.resolve_bot_name(engine, typed) == "greedy_bot"
        assert storage.get_bot(engine, typed).name == "greedy_bot"  # type: ignore[union-attr]
        assert storage.latest_version(engine, typed).label == "greedy_bot@1"  # type: ignore[union-attr]
        assert [v.label for v in storage.bot_versions(engine, typed)] == ["greedy_bot@1"]
        assert storage.bot_owner(engine, typed) == "alice"
    # Control: an exact name is itself, and a name that looks like no bot's is none.
    assert bot_storage.resolve_bot_name(engine, "GREEDY_BOTS") == "greedy_bots"
    assert storage.latest_version(engine, "GREEDY_BOT", exact=True) is None
    assert bot_storage.resolve_bot_name(engine, "greedy_bot_2") is None
    assert storage.bot_versions(engine, "nobody") == []
    assert storage.actor(engine, "ALICE") == people["alice"]
    assert resolve_user(engine, "MaLLory").name == "mallory"  # type: ignore[union-attr]
    with pytest.raises(PermissionDenied, match="no user named 'alicia'"):
        storage.actor(engine, "alicia")
    # The login lookup stays exact (its throttle counts per typed name).
    assert find_user(engine, "ALICE") is None


# ----------------------------------------------------------------------------- races


def _meeting_patience(engine: Engine) -> float:
    """How long a racer waits at the meeting point for the other one. On SQLite it never
    comes: writers are serialised, and the other waits for this one's write transaction
    (the check runs inside it), so there is no race to arrange and no point waiting."""
    return 0.0 if engine.dialect.name == "sqlite" else 2.0


@pytest.fixture
def meet_after_the_check(monkeypatch: pytest.MonkeyPatch, engine: Engine) -> Callable[[bool], None]:
    """Make two racing submissions both finish their look-alike check before either
    stores (on PostgreSQL; on SQLite the writers take turns: :func:`_meeting_patience`).
    With ``blind=True`` the check also finds nothing, as if it had not run."""
    patience = _meeting_patience(engine)

    def install(blind: bool) -> None:
        barrier = threading.Barrier(2)
        waited: set[int] = set()
        real = bot_storage.look_alikes

        def checked_then_wait(session: Session, model: type[Bot], name: str) -> list[Bot]:
            found = [] if blind else real(session, model, name)
            if patience and threading.get_ident() not in waited:  # a thread's first check
                waited.add(threading.get_ident())
                with contextlib.suppress(threading.BrokenBarrierError):
                    barrier.wait(timeout=patience)
            return found

        monkeypatch.setattr(bot_storage, "look_alikes", checked_then_wait)

    return install


def _race(engine: Engine, people: dict[str, storage.Actor]) -> list[object]:
    """mallory's ``Greedy_Bot`` against alice's ``GREEDY.B0T``, both new, at once."""
    outcomes: list[object] = [None, None]
    contenders = [("Greedy_Bot", people["mallory"]), ("GREEDY.B0T", people["alice"])]

    def submit(index: int) -> None:
        name, submitter = contenders[index]
        try:
            outcomes[index] = storage.add_bot_version(
                engine, _fields(name), _checksum(10 + index), "/r", submitter=submitter
            )
        except storage.StorageError as exc:  # collected: a thread cannot raise into the test
            outcomes[index] = exc

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def test_two_racing_look_alike_new_names_store_one(
    engine: Engine, users: dict[str, storage.Actor], meet_after_the_check: Callable[[bool], None]
) -> None:
    meet_after_the_check(False)
    outcomes = _race(engine, users)
    stored = _bot_names(engine)
    assert len(stored) == 1
    refused = [o for o in outcomes if isinstance(o, storage.StorageError)]
    assert len(refused) == 1 and isinstance(refused[0], PermissionDenied)
    assert f"is too close to {stored[0]!r}" in str(refused[0])


def test_the_unique_indexes_alone_stop_a_race_the_check_missed(
    engine: Engine, users: dict[str, storage.Actor], meet_after_the_check: Callable[[bool], None]
) -> None:
    meet_after_the_check(True)
    outcomes = _race(engine, users)
    assert len(_bot_names(engine)) == 1
    assert sum(isinstance(o, storage.StorageError) for o in outcomes) == 1


def test_control_without_the_unique_indexes_a_blind_race_stores_both(
    engine: Engine, users: dict[str, storage.Actor], meet_after_the_check: Callable[[bool], None]
) -> None:
    with engine.begin() as connection:
        for index in ("ix_bot_name_folded", "ix_bot_name_shape", "ix_bot_name_upper"):
            connection.execute(text(f"DROP INDEX {index}"))
    meet_after_the_check(True)
    outcomes = _race(engine, users)
    assert not any(isinstance(o, storage.StorageError) for o in outcomes)
    assert sorted(_bot_names(engine)) == ["GREEDY.B0T", "Greedy_Bot"]


def test_two_racing_look_alike_user_names_store_one(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    barrier = threading.Barrier(2)
    waited: set[int] = set()
    real = user_storage.look_alikes
    patience = _meeting_patience(engine)

    def checked_then_wait(session: Session, model: Any, name: str) -> list[Any]:
        found = real(session, model, name)
        if patience and threading.get_ident() not in waited:
            waited.add(threading.get_ident())
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=patience)
        return found

    monkeypatch.setattr(user_storage, "look_alikes", checked_then_wait)
    errors: list[BaseException] = []

    def create(name: str) -> None:
        try:
            create_user(engine, name, "participant", None)
        except storage.StorageError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=create, args=(n,)) for n in ("olga", "OLGA")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    names = [u.name for u in storage.list_user_rows(engine) if u.name != "local"]
    assert len(names) == 1 and len(errors) == 1
    assert str(errors[0]).endswith(f"is too close to {names[0]!r}: choose another name")


# --------------------------------------------------------- legacy look-alikes in lookups


def _legacy_look_alike(engine: Engine, name: str, owner_id: int) -> None:
    """A bot stored before migration 0008 beside a look-alike (keys marked with its id)."""
    with engine.begin() as connection:
        bot_id = connection.execute(
            text(
                "INSERT INTO bot (name, name_folded, name_shape, name_upper, owner_id, "
                "created_at) VALUES (:name, 'x', 'y', 'z', :owner, CURRENT_TIMESTAMP) "
                "RETURNING id"
            ),
            {"name": name, "owner": owner_id},
        ).scalar_one()
        marked = {
            column: legacy_key(key, bot_id) for column, key in name_keys(name).columns().items()
        }
        connection.execute(
            text(
                "UPDATE bot SET name_folded = :name_folded, name_shape = :name_shape, "
                "name_upper = :name_upper WHERE id = :id"
            ),
            {**marked, "id": bot_id},
        )


def test_a_name_like_several_legacy_look_alikes_is_ambiguous(
    engine: Engine, people: dict[str, storage.Actor]
) -> None:
    _legacy_look_alike(engine, "Greedy_Bot", people["mallory"].id)
    with pytest.raises(AmbiguousName) as ambiguous:
        bot_storage.resolve_bot_name(engine, "GREEDY_BOT")
    assert str(ambiguous.value) == (
        "bot name 'GREEDY_BOT' looks like 2 bots: 'greedy_bot', 'Greedy_Bot'; "
        "give one of them exactly"
    )
    with pytest.raises(AmbiguousName):
        storage.latest_version(engine, "greedy-bot")
    # Control: each exact name is its own bot, and the legacy one's owner may add versions
    # under it (and only under it).
    assert bot_storage.resolve_bot_name(engine, "Greedy_Bot") == "Greedy_Bot"
    assert storage.bot_owner(engine, "greedy_bot") == "alice"
    assert storage.bot_owner(engine, "Greedy_Bot") == "mallory"
    _, created = storage.add_bot_version(
        engine, _fields("Greedy_Bot"), _checksum(3), "/m", submitter=people["mallory"]
    )
    assert created
    with pytest.raises(PermissionDenied, match="too close to 'greedy_bot' \\(alice's\\)"):
        storage.add_bot_version(
            engine, _fields("GREEDY_BOT"), _checksum(4), "/m", submitter=people["mallory"]
        )
