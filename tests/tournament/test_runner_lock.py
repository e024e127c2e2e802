"""One runner per tournament: a second runner is refused in one line before it plays, on
SQLite and PostgreSQL, and a runner killed with SIGKILL never blocks the next one.

Without the lock, two runners each played the games not yet stored: both then failed with
"game N of tournament T is already stored", and games of one deal ran at the same time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import storage
from arena.cli import main
from arena.storage.database import make_engine, open_database
from arena.storage.runner_lock import RunnerBusy, runner_lock
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
PYTHON_BOTS = ("random_bot", "heuristic_bot", "greedy_bot")


def test_a_second_holder_is_refused_until_the_first_lets_go(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        with runner_lock(engine, 7, "cup"):
            busy = pytest.raises(RunnerBusy, match="'cup' is being played by another runner")
            with busy, runner_lock(engine, 7, "cup"):
                pass
            with runner_lock(engine, 8, "other"):  # another tournament is free
                pass
        # Control: released, it is taken again (the refusal above was the lock, not a fault).
        with runner_lock(engine, 7, "cup"):
            pass
    finally:
        engine.dispose()


HOLDER = """
import sys, time
from arena.storage.database import make_engine
from arena.storage.runner_lock import runner_lock
engine = make_engine(sys.argv[1])
with runner_lock(engine, 7, "cup"):
    print("held", flush=True)
    time.sleep(600)
"""


def test_a_runner_killed_with_sigkill_releases_the_lock(database_url: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, database_url],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    engine = make_engine(database_url)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        # Control: the other process really holds it.
        with pytest.raises(RunnerBusy), runner_lock(engine, 7, "cup"):
            pass
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        # The server notices a dead client's connection at once or within moments.
        deadline = time.monotonic() + 30
        while True:
            try:
                with runner_lock(engine, 7, "cup"):
                    break
            except RunnerBusy:
                assert time.monotonic() < deadline, "a dead runner still holds the lock"
                time.sleep(0.1)
    finally:
        holder.kill()
        holder.wait()
        engine.dispose()


def test_tournament_run_is_refused_while_another_runner_plays_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    where = ["--db", url, "--data", str(tmp_path / "data")]
    for bot in PYTHON_BOTS:
        assert main(["bot", "submit", str(SAMPLES / bot), *where]) == 0
    assert (
        main(
            [
                "tournament",
                "create",
                "cup",
                "--bots",
                ",".join(PYTHON_BOTS),
                "--boards",
                "1",
                *where,
            ]
        )
        == 0
    )
    engine = open_database(url)
    tournament = storage.get_tournament(engine, "cup")
    capsys.readouterr()
    try:
        with runner_lock(engine, storage.row_id(tournament), "cup"):  # another runner
            assert main(["tournament", "run", "cup", "--parallel", "1", *where]) == 1
            err = capsys.readouterr().err  # after the progress bar's first line
            assert "Traceback" not in err
            last = err.splitlines()[-1]
            assert last.startswith("arena: error: ") and "played by another runner" in last
            assert storage.stored_indexes(engine, storage.row_id(tournament)) == set()
            assert storage.get_tournament(engine, "cup").status == "created"
        # Control: with the other runner gone, the same command plays every game.
        assert main(["tournament", "run", "cup", "--parallel", "1", *where]) == 0
        assert len(storage.stored_indexes(engine, storage.row_id(tournament))) == 6
    finally:
        engine.dispose()
