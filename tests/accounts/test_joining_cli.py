"""The organiser's command line for joining, through the real CLI (``arena ...`` in this
process): ``arena settings``, ``arena user invite/invites/revoke-invite``, and a typed
one-time password (``--ask-password``) held to the policy."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from arena.accounts import joining
from arena.accounts.passwords import verify
from arena.cli import main
from arena.storage import open_database
from arena.storage.settings import get_setting
from arena.storage.users import find_user
from tests.migrated_sqlite import migrated_sqlite_url


def _arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def where(tmp_path: Path) -> tuple[str, ...]:
    return ("--db", migrated_sqlite_url(tmp_path / "arena.db"), "--data", str(tmp_path / "data"))


def test_settings_show_and_set_the_join_mode(
    capsys: pytest.CaptureFixture[str], where: tuple[str, ...]
) -> None:
    code, out, _ = _arena(capsys, "settings", "show", *where)
    assert code == 0 and re.search(r"join\s+│\s+closed", out)
    code, out, _ = _arena(capsys, "settings", "set", "join", "invite", *where)
    assert (code, out) == (0, "join = invite\n")
    code, _, err = _arena(capsys, "settings", "set", "join", "everyone", *where)
    assert code == 1
    assert err == (
        "arena: error: setting join must be one of closed, invite, open, not 'everyone'\n"
    )
    code, _, err = _arena(capsys, "settings", "set", "jion", "open", *where)
    assert code == 2 and err.count("\n") == 1 and "'jion' is not one of" in err
    _arena(capsys, "user", "add", "pat", "--role", "participant", *where)
    code, _, err = _arena(capsys, "settings", "set", "join", "open", "--user", "pat", *where)
    assert code == 1 and "changing the arena's settings needs an organiser account" in err
    engine = open_database(where[1])
    assert get_setting(engine, "join") == "invite"  # neither refused value was stored
    engine.dispose()


def test_an_invitation_is_printed_once_listed_without_its_code_and_revoked(
    capsys: pytest.CaptureFixture[str], where: tuple[str, ...]
) -> None:
    code, out, err = _arena(
        capsys, "user", "invite", "--uses", "3", "--expires", "12h", "--role", "organiser", *where
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("invitation 1: 3 organiser accounts, expires ")
    invite_code = lines[1]
    assert joining.CODE.fullmatch(invite_code)
    assert "joining is 'closed'" in err  # the organiser is told the code works nowhere yet
    code, out, _ = _arena(capsys, "user", "invites", *where)
    assert code == 0 and invite_code not in out and "0/3" in out and "usable" in out
    assert joining.code_hash(invite_code) not in out
    code, out, _ = _arena(capsys, "user", "revoke-invite", "1", *where)
    assert (code, out) == (0, "revoked invitation 1\n")
    assert "revoked" in _arena(capsys, "user", "invites", *where)[1]
    code, _, err = _arena(capsys, "user", "revoke-invite", "7", *where)
    assert (code, err) == (1, "arena: error: no invitation with id 7 (see `arena user invites`)\n")


@pytest.mark.parametrize("duration", ["7x", "soon", "0m", "-3d", "999d"])
def test_a_bad_duration_is_one_usage_line(
    capsys: pytest.CaptureFixture[str], where: tuple[str, ...], duration: str
) -> None:
    code, out, err = _arena(capsys, "user", "invite", "--expires", duration, *where)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("arena: error: Invalid value for '--expires'")
    code, _, _ = _arena(capsys, "user", "invite", "--expires", "30m", *where)  # control
    assert code == 0


def test_a_participant_cannot_invite(
    capsys: pytest.CaptureFixture[str], where: tuple[str, ...]
) -> None:
    _arena(capsys, "user", "add", "pat", "--role", "participant", *where)
    for command in (("invite",), ("invites",), ("revoke-invite", "1")):
        code, out, err = _arena(capsys, "user", *command, "--user", "pat", *where)
        assert code == 1 and out == "" and "needs an organiser account; pat is a participant" in err


def _typing(monkeypatch: pytest.MonkeyPatch, *answers: str) -> None:
    """What the organiser types at the hidden prompts (a test has no terminal)."""
    typed = iter(answers)
    monkeypatch.setattr(click.termui, "hidden_prompt_func", lambda prompt: next(typed))


def test_a_typed_one_time_password_meets_the_policy(
    capsys: pytest.CaptureFixture[str], where: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    _typing(monkeypatch, "quinn-rules", "quinn-rules")
    code, out, err = _arena(
        capsys, "user", "add", "quinn", "--role", "participant", "--ask-password", *where
    )
    assert code == 1 and "a password may not be or contain the user name" in err
    _typing(monkeypatch, "tea at the mad hatter", "tea at the mad hatter")
    code, out, err = _arena(
        capsys, "user", "add", "quinn", "--role", "participant", "--ask-password", *where
    )
    assert code == 0, err
    assert "tea at the mad hatter" not in out and "must be replaced" in out
    listed = _arena(capsys, "user", "list", *where)[1]
    assert re.search(r"quinn .*one-time", listed) and re.search(r"local .*none", listed)
    engine = open_database(where[1])
    quinn = find_user(engine, "quinn")
    assert quinn is not None and quinn.must_change_password
    assert verify("tea at the mad hatter", quinn.password_hash)[0]
    engine.dispose()
