"""A bot's private directory whose referee was killed between making it and locking it
(no owner lock, or only the lock's staging name) goes at a later referee's sweep once it
is old enough, and nothing else does: not a fresh one (a referee may be about to lock
it), not another user's, not a symbolic link, not one with a mount in it."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from arena.sandbox import quota
from tests.sandbox.sandbox_support import missing

OLD = time.time() - quota.ABANDONED_AFTER_S - 60


def _private(parent: Path, name: str, *, age: float | None = OLD, staging: bool = False) -> Path:
    """A private directory as :func:`arena.sandbox.workdirs.make` leaves it, before the lock."""
    private = parent / f"{quota.PREFIX}{name}"
    private.mkdir(mode=0o711)
    for sub in ("home", "tmp"):
        (private / sub).mkdir(mode=0o700)
    (private / "home" / "notes.txt").write_text("what the bot wrote")
    if staging:
        (private / f".{quota.OWNER_LOCK}").touch()
    if age is not None:
        os.utime(private, (age, age))
    return private


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory the sweep looks in."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def _swept_here(temp: Path) -> set[str]:
    return {p.name for p in quota.sweep_stale() if p.parent == temp}


def test_an_old_directory_never_locked_is_removed_and_a_fresh_one_kept(temp: Path) -> None:
    never_locked = _private(temp, "never000")
    staged = _private(temp, "staged00", staging=True)
    fresh = _private(temp, "fresh000", age=None)
    assert _swept_here(temp) == {never_locked.name, staged.name}
    assert not never_locked.exists() and not staged.exists()
    assert (fresh / "home").is_dir()
    # Control: the fresh one goes too once it is as old.
    os.utime(fresh, (OLD, OLD))
    assert _swept_here(temp) == {fresh.name}


def test_a_locked_directory_is_judged_by_its_lock_not_its_age(temp: Path) -> None:
    held = _private(temp, "held0000")
    fd = quota.hold(held)
    try:
        os.utime(held, (OLD, OLD))
        assert _swept_here(temp) == set()  # its referee (this test) holds the lock
    finally:
        os.close(fd)
    assert _swept_here(temp) == {held.name}  # control: the lock free, it goes


def test_another_users_directory_and_a_link_are_never_touched(
    temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = _private(temp, "theirs00")
    target = _private(temp, "target00")
    target_link = temp / f"{quota.PREFIX}link0000"
    target_link.symlink_to(target, target_is_directory=True)
    real_getuid = os.getuid
    someone_else = real_getuid() + 1
    monkeypatch.setattr(quota.os, "getuid", lambda: someone_else)
    assert _swept_here(temp) == set()
    assert theirs.exists() and target.exists() and target_link.is_symlink()
    # Control: as their owner, the real directories go; the link stays.
    monkeypatch.setattr(quota.os, "getuid", real_getuid)
    assert _swept_here(temp) == {theirs.name, target.name}
    assert target_link.is_symlink()


def test_an_old_unlocked_directory_with_a_mount_in_it_is_left_alone(temp: Path) -> None:
    why = quota.available()
    if why is not None:
        missing(f"cannot mount a sized tmpfs here: {why}")
    mounted = _private(temp, "mounted0")
    quota.mount(mounted / "home", 1 << 20, None)
    try:
        os.utime(mounted, (OLD, OLD))
        assert mounted.name not in _swept_here(temp)  # a mount comes only after the lock
        assert os.path.ismount(mounted / "home")
    finally:
        quota.unmount(mounted / "home")
    assert _swept_here(temp) == {mounted.name}  # control: unmounted, it goes
