"""A full disk under a SQLite database (a real run: bot processes, the CLI): storing a game
meets ENOSPC, and the runner stops with one line naming the full filesystem and exit status
75; ``PRAGMA integrity_check`` finds the file intact; once space is freed, ``tournament
run`` completes the tournament, every game once.

The filesystem is a small tmpfs mounted for the test (root only: CI runs as root in its
container; elsewhere the test is skipped, and under CI=true it fails instead).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from tests.chaos.conftest import BOTS, SAMPLES, TIME_CONTROL
from tests.migrated_sqlite import migrated_sqlite_url

pytestmark = pytest.mark.processes

GAMES = 6
LEFT_FREE = 96 * 1024
"""Room for the run to start (its status, the WAL's first pages) but not for 6 games."""


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs, unmounted afterwards."""
    if os.geteuid() != 0:
        message = "mounting a tmpfs needs root"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(mount: Path, leave: int) -> Path:
    """A file taking all of *mount*'s free space but *leave* bytes."""
    stats = os.statvfs(mount)
    filler = mount / "filler"
    filler.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize - leave))
    return filler


def _run(url: str, data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", "run", "cup", "--parallel", "2",
         "--db", url, "--data", str(data)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _check(database: Path) -> tuple[str, int, int]:
    """integrity_check's answer, game rows and distinct schedule indexes."""
    with contextlib.closing(sqlite3.connect(database)) as connection:
        (verdict,) = connection.execute("PRAGMA integrity_check").fetchone()
        rows, distinct = connection.execute(
            "SELECT count(*), count(DISTINCT schedule_index) FROM game"
        ).fetchone()
    return verdict, rows, distinct


def test_a_full_disk_stops_the_run_in_one_line_and_it_resumes(
    small_disk: Path, tmp_path: Path
) -> None:
    database = small_disk / "arena.db"
    url = migrated_sqlite_url(database)
    data = tmp_path / "data"  # the bots live on the big disk: only the database is squeezed
    for bot in BOTS:
        assert main(["bot", "submit", str(SAMPLES / bot), "--db", url, "--data", str(data)]) == 0
    assert main(["tournament", "create", "cup", "--bots", ",".join(BOTS), "--boards", "1",
                 "--seed", "3", "--time-control", TIME_CONTROL, "--db", url,
                 "--data", str(data)]) == 0  # fmt: skip
    filler = _fill(small_disk, LEFT_FREE)

    full = _run(url, data)
    assert full.returncode == 75, full.stderr
    said = [line for line in full.stderr.splitlines() if line.startswith("arena:")]
    assert len(said) == 1, full.stderr
    assert f"the filesystem {small_disk} holding {database} is full" in said[0]
    assert "run again to resume" in said[0] and "Traceback" not in full.stderr
    verdict, rows, distinct = _check(database)
    assert verdict == "ok" and rows == distinct < GAMES

    filler.unlink()  # space is freed
    again = _run(url, data)
    assert again.returncode == 0, again.stderr
    assert _check(database) == ("ok", GAMES, GAMES)


def test_control_with_room_to_spare_the_run_finishes_at_once(
    small_disk: Path, tmp_path: Path
) -> None:
    """The same squeeze with four times the room: the first run finishes, so the stop
    above came from the full disk, not from the tmpfs or the filler."""
    database = small_disk / "arena.db"
    url = migrated_sqlite_url(database)
    data = tmp_path / "data"
    for bot in BOTS:
        assert main(["bot", "submit", str(SAMPLES / bot), "--db", url, "--data", str(data)]) == 0
    assert main(["tournament", "create", "cup", "--bots", ",".join(BOTS), "--boards", "1",
                 "--seed", "3", "--time-control", TIME_CONTROL, "--db", url,
                 "--data", str(data)]) == 0  # fmt: skip
    _fill(small_disk, 2 * 1024 * 1024)
    run = _run(url, data)
    assert run.returncode == 0, run.stderr
    assert _check(database) == ("ok", GAMES, GAMES)
