"""``arena token create|list|revoke`` through the real CLI (``arena ...`` in this process):
the secret alone on stdout once and never listed, scopes and expiries, revoking by id,
name or prefix, and the exit codes: 0 done, 1 refused (one line), 2 a usage error. The
rules themselves are tested in tests/accounts/test_tokens.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from arena.cli import main
from arena.storage import open_database
from arena.storage.tokens import TokenRefused, authenticate_token, hash_secret
from tests.migrated_sqlite import migrated_sqlite_url

SECRET = re.compile(r"a952_[A-Za-z0-9_-]{43}")


def _arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def where(tmp_path: Path) -> tuple[str, ...]:
    return ("--db", migrated_sqlite_url(tmp_path / "arena.db"), "--data", str(tmp_path / "data"))


@pytest.fixture
def engine(where: tuple[str, ...]) -> Iterator[Engine]:
    engine = open_database(where[1])
    yield engine
    engine.dispose()


@pytest.fixture
def alice(capsys: pytest.CaptureFixture[str], where: tuple[str, ...]) -> tuple[str, ...]:
    """``--user alice`` (a participant) and the database options."""
    assert _arena(capsys, "user", "add", "alice", "--role", "participant", *where)[0] == 0
    return ("--user", "alice", *where)


def _create(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = _arena(capsys, "token", "create", *args)
    assert code == 0, err
    return out.strip()


def test_create_prints_the_secret_alone_once(
    capsys: pytest.CaptureFixture[str], alice: tuple[str, ...], engine: Engine
) -> None:
    code, out, err = _arena(capsys, "token", "create", "ci", *alice)
    assert code == 0
    secret = out.removesuffix("\n")
    assert SECRET.fullmatch(secret)  # stdout is the secret and its newline, nothing else
    assert err.count("\n") == 1 and "shown only now" in err and secret not in err
    assert "(read, submit; expires never)" in err
    grant = authenticate_token(engine, secret)
    assert (grant.actor.name, sorted(grant.scopes)) == ("alice", ["read", "submit"])
    # --quiet: the secret only, and nothing on stderr (for `$(arena token create ...)`).
    code, out, err = _arena(capsys, "token", "create", "laptop", "-q", *alice)
    assert code == 0 and SECRET.fullmatch(out.strip()) and err == ""
    assert out.strip() != secret


def test_list_never_shows_a_secret(
    capsys: pytest.CaptureFixture[str], alice: tuple[str, ...]
) -> None:
    secrets = [
        _create(capsys, "ci", "--scope", "read", *alice),
        _create(capsys, "laptop", "--expires-in-days", "30", *alice),
    ]
    code, out, err = _arena(capsys, "token", "list", *alice)
    assert code == 0, err
    for secret in secrets:
        assert secret not in out and hash_secret(secret) not in out
        assert secret[:12] in out  # control: the prefix is listed, to tell tokens apart
    assert re.search(r"ci\s+a952_\S+\s+read\s", out) and "active" in out
    code, out, err = _arena(capsys, "token", "list", "--json", *alice)
    assert code == 0, err
    listed = json.loads(out)
    assert listed["user"] == "alice"
    assert [(t["name"], t["scopes"], t["state"]) for t in listed["tokens"]] == [
        ("ci", ["read"], "active"),
        ("laptop", ["read", "submit"], "active"),
    ]
    assert listed["tokens"][0]["expires_at"] is None
    assert listed["tokens"][1]["expires_at"] is not None
    assert [t["prefix"] for t in listed["tokens"]] == [s[:12] for s in secrets]
    for secret in secrets:
        assert secret not in out and hash_secret(secret) not in out


def test_list_shows_only_the_users_own_tokens(
    capsys: pytest.CaptureFixture[str], alice: tuple[str, ...], where: tuple[str, ...]
) -> None:
    secret = _create(capsys, "alice-ci", *alice)
    _arena(capsys, "user", "add", "bob", "--role", "participant", *where)
    code, out, _ = _arena(capsys, "token", "list", "--json", "--user", "bob", *where)
    assert code == 0 and json.loads(out)["tokens"] == []
    assert secret[:12] not in out
    code, out, _ = _arena(capsys, "token", "list", "--json", *alice)  # control
    assert [t["name"] for t in json.loads(out)["tokens"]] == ["alice-ci"]


@pytest.mark.parametrize(
    ("options", "scopes"),
    [
        ((), ["read", "submit"]),
        (("--scope", "read"), ["read"]),
        (("--scope", "submit", "--scope", "read"), ["read", "submit"]),
        (("--scopes", "submit"), ["submit"]),
        (("--scopes", "read,submit"), ["read", "submit"]),
    ],
)
def test_scopes_as_asked(
    capsys: pytest.CaptureFixture[str],
    alice: tuple[str, ...],
    engine: Engine,
    options: tuple[str, ...],
    scopes: list[str],
) -> None:
    secret = _create(capsys, "ci", *options, *alice)
    assert sorted(authenticate_token(engine, secret).scopes) == scopes


@pytest.mark.parametrize(
    "options",
    [
        ("--scope", "admin"),
        ("--scopes", "read,admin"),
        ("--scopes", ""),
        ("--expires-in-days", "0"),
        ("--expires-in-days", "367"),
        ("--expires-in-days", "soon"),
    ],
)
def test_a_bad_scope_or_expiry_is_one_usage_line(
    capsys: pytest.CaptureFixture[str], alice: tuple[str, ...], options: tuple[str, ...]
) -> None:
    code, out, err = _arena(capsys, "token", "create", "ci", *options, *alice)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("arena: error: Invalid value for")
    code, out, _ = _arena(capsys, "token", "list", "--json", *alice)
    assert json.loads(out)["tokens"] == []  # nothing was made
    # Control: a good scope and the longest expiry.
    assert SECRET.fullmatch(
        _create(capsys, "ci", "--scope", "read", "--expires-in-days", "366", *alice)
    )


def test_refusals_are_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], alice: tuple[str, ...]
) -> None:
    _create(capsys, "ci", *alice)
    code, out, err = _arena(capsys, "token", "create", "ci", *alice)
    assert (code, out) == (1, "")
    assert err == "arena: error: alice already has a live token named 'ci'\n"
    code, out, err = _arena(capsys, "token", "create", "no/slash", *alice)
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert err.startswith("arena: error: a token's name is 1-64")
    code, out, err = _arena(capsys, "token", "revoke", "nothing", *alice)
    assert (code, out, err) == (1, "", "arena: error: alice has no token 'nothing'\n")
    assert SECRET.fullmatch(_create(capsys, "ci-2", *alice))  # control


def test_an_unknown_user_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], where: tuple[str, ...]
) -> None:
    for command in (("create", "ci"), ("list",), ("revoke", "ci")):
        code, out, err = _arena(capsys, "token", *command, "--user", "nobody", *where)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert "no user named 'nobody'" in err


def test_revoke_by_id_name_or_prefix(
    capsys: pytest.CaptureFixture[str], alice: tuple[str, ...], engine: Engine
) -> None:
    secrets = [_create(capsys, name, *alice) for name in ("one", "two", "three")]
    assert authenticate_token(engine, secrets[0]).actor.name == "alice"  # control: before
    for handle, secret in zip(("1", "two", secrets[2][:12]), secrets, strict=True):
        code, out, err = _arena(capsys, "token", "revoke", handle, *alice)
        assert code == 0, err
        assert out.startswith("revoked token ") and out.count("\n") == 1
        with pytest.raises(TokenRefused) as refused:
            authenticate_token(engine, secret)
        assert refused.value.code == "revoked_token"
    code, out, _ = _arena(capsys, "token", "revoke", "two", *alice)
    assert code == 0 and "was already revoked" in out
    code, out, _ = _arena(capsys, "token", "list", "--json", *alice)
    assert {t["state"] for t in json.loads(out)["tokens"]} == {"revoked"}


def test_the_hosts_organiser_gets_a_participants_token(
    capsys: pytest.CaptureFixture[str], where: tuple[str, ...], engine: Engine
) -> None:
    secret = _create(capsys, "host", "-q", *where)  # no --user: the host's `local`
    grant = authenticate_token(engine, secret)
    assert (grant.actor.name, grant.actor.role) == ("local", "participant")
