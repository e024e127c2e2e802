"""The directories of door sockets that referees killed before their stop leave behind go
at the next referee's start, and nothing else does: not a live referee's, not one whose
pid was reused, not another pid namespace's, not another user's, not one without a
regular marker file."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.referee.wire import door_dirs
from arena.sandbox import process_identity

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A parent with a short path: a unix socket's whole path must fit in 107 bytes."""
    folder = Path(tempfile.mkdtemp(prefix="dd-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _gone_identity() -> str:
    """This process's identity with another start time: what a dead referee whose pid
    this process has since been given leaves in its marker."""
    pid, start, namespace = process_identity.identity().split("-")
    return f"{pid}-{int(start) + 1}-{namespace}"


def _door_dir(parent: Path, name: str, made_by: str | None) -> Path:
    folder = parent / name
    folder.mkdir()
    (folder / "seat0-0123456789abcdef.sock").touch()
    if made_by is not None:
        (folder / door_dirs.MARKER).write_text(made_by)
    return folder


def test_a_gone_referees_directory_is_removed_and_every_other_kept(tmp_path: Path) -> None:
    pid, start, namespace = process_identity.identity().split("-")
    gone = _door_dir(tmp_path, "arena-gone0000", _gone_identity())
    kept = [
        _door_dir(tmp_path, "arena-live0000", process_identity.identity()),
        _door_dir(tmp_path, "arena-elsewher", f"{pid}-{int(start) + 1}-{int(namespace) + 1}"),
        _door_dir(tmp_path, "arena-barepid0", str(2**22 + 1)),  # a pid alone proves nothing
        _door_dir(tmp_path, "arena-nomarker", None),  # another arena directory, or one being made
        _door_dir(tmp_path, "other-gone0000", _gone_identity()),  # not named by the arena
    ]
    linked = _door_dir(tmp_path, "arena-linked00", None)
    (linked / door_dirs.MARKER).symlink_to(gone / door_dirs.MARKER)
    fifo = _door_dir(tmp_path, "arena-fifo0000", None)
    os.mkfifo(fifo / door_dirs.MARKER)  # read, it would hang the sweep
    target = _door_dir(tmp_path, "precious", _gone_identity())
    link = tmp_path / "arena-symlink0"
    link.symlink_to(target, target_is_directory=True)

    assert gone.exists()  # control: the sweep below is what removes it
    removed = door_dirs.sweep_gone_referees(str(tmp_path))

    assert removed == [gone.name]
    assert not gone.exists()
    for folder in (*kept, linked, fifo, target, link):
        assert folder.exists(), folder.name


def test_another_users_directories_are_never_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = _door_dir(tmp_path, "arena-gone0000", _gone_identity())
    someone_else = os.getuid() + 1
    monkeypatch.setattr(door_dirs.os, "getuid", lambda: someone_else)
    assert door_dirs.sweep_gone_referees(str(tmp_path)) == []
    assert gone.exists()
    monkeypatch.undo()  # control: as its owner, the same sweep removes it
    assert door_dirs.sweep_gone_referees(str(tmp_path)) == [gone.name]


def test_a_new_directory_names_its_referee_and_sweeps_once_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(door_dirs, "_swept", False)
    first_gone = _door_dir(tmp_path, "arena-first000", _gone_identity())
    mine = door_dirs.make_door_directory(str(tmp_path))
    assert mine.name.startswith(door_dirs.PREFIX)
    assert mine.stat().st_mode & 0o777 == 0o700
    assert (mine / door_dirs.MARKER).read_text() == process_identity.identity()
    assert not first_gone.exists()

    later_gone = _door_dir(tmp_path, "arena-later000", _gone_identity())
    door_dirs.make_door_directory(str(tmp_path))
    assert later_gone.exists()  # swept at this process's first directory only
    assert mine.exists()


_KILLED_REFEREE = textwrap.dedent(
    """
    import asyncio, time
    from arena.referee.wire import RefereeServer

    async def main():
        server = RefereeServer()
        print(await server.door(0), flush=True)
        time.sleep(120)  # killed here, before any stop

    asyncio.run(main())
    """
)


def test_a_referee_killed_before_its_stop_leaves_a_directory_the_next_one_removes(
    short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**os.environ, "TMPDIR": str(short_tmp), "PYTHONPATH": str(ROOT)}
    referee = subprocess.Popen(
        [sys.executable, "-c", _KILLED_REFEREE], stdout=subprocess.PIPE, text=True, env=env
    )
    assert referee.stdout is not None
    door = Path(referee.stdout.readline().strip().removeprefix("unix://"))
    referee.send_signal(signal.SIGKILL)
    referee.wait(timeout=30)
    referee.stdout.close()
    left = door.parent
    assert left.parent == short_tmp and door.exists()  # control: kill -9 left it behind

    monkeypatch.setattr(door_dirs, "_swept", False)
    mine = door_dirs.make_door_directory(str(short_tmp))
    assert not left.exists()
    assert [p.name for p in short_tmp.iterdir()] == [mine.name]
