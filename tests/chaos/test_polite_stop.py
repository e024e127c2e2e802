"""A polite stop of a real run (bot processes, two workers, the CLI, on SQLite): SIGTERM,
SIGINT or ``arena tournament stop`` abandon the games in play, stop every bot process,
set the status to "interrupted", let the runner lock go and print one line; the next run
plays what is missing, every game once.

Control: a runner without the polite stop (the run loop called directly, as before) dies
on SIGTERM at once, leaving the status at "running": what the issue saw.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena import storage
from arena.cli import main
from arena.storage.database import open_database
from arena.storage.runner_lock import Holder, lock_holder
from tests.chaos.conftest import BOTS, SAMPLES, TIME_CONTROL
from tests.migrated_sqlite import migrated_sqlite_url
from tests.tournament.test_tournaments import _assert_no_bot_survives

pytestmark = pytest.mark.processes

GAMES = 6
WAIT_S = 240.0


@dataclass
class Arena:
    url: str
    data: Path
    bots: Path
    """Where the bots run (the template's copies: the stored paths point there)."""

    @property
    def common(self) -> list[str]:
        return ["--db", self.url, "--data", str(self.data)]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite arena with the three bots submitted, copied by each test."""
    folder = tmp_path_factory.mktemp("template")
    url = migrated_sqlite_url(folder / "arena.db")
    for bot in BOTS:
        assert main(["bot", "submit", str(SAMPLES / bot), "--db", url,
                     "--data", str(folder / "data")]) == 0  # fmt: skip
    return folder


@pytest.fixture
def arena(template: Path, tmp_path: Path) -> Iterator[Arena]:
    shutil.copytree(template, tmp_path / "arena")
    found = Arena(
        f"sqlite:///{tmp_path / 'arena' / 'arena.db'}", tmp_path / "arena" / "data", template
    )
    assert main(["tournament", "create", "cup", "--bots", ",".join(BOTS), "--boards", "1",
                 "--seed", "3", "--time-control", TIME_CONTROL, *found.common]) == 0  # fmt: skip
    yield found


def _start(arena: Arena, command: list[str]) -> subprocess.Popen[str]:
    runner = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    engine = open_database(arena.url)
    try:
        tournament_id = storage.row_id(storage.get_tournament(engine, "cup"))
        deadline = time.monotonic() + WAIT_S
        while not storage.stored_indexes(engine, tournament_id):
            assert runner.poll() is None, runner.communicate()
            assert time.monotonic() < deadline, "no game was stored"
            time.sleep(0.05)
    finally:
        engine.dispose()
    return runner


def _cli_runner(arena: Arena) -> list[str]:
    return [sys.executable, "-m", "arena.cli", "tournament", "run", "cup", "--parallel", "2",
            *arena.common]  # fmt: skip


def _state(arena: Arena) -> tuple[str, list[int], bool]:
    """Status, stored indexes, and whether anyone holds the runner lock."""
    engine = open_database(arena.url)
    try:
        tournament = storage.get_tournament(engine, "cup")
        tournament_id = storage.row_id(tournament)
        held = lock_holder(engine, tournament_id) is not None
        return tournament.status, sorted(storage.stored_indexes(engine, tournament_id)), held
    finally:
        engine.dispose()


def _resumes(arena: Arena) -> None:
    assert main(["tournament", "run", "cup", "--parallel", "2", *arena.common]) == 0
    assert _state(arena) == ("finished", list(range(GAMES)), False)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_run_politely(arena: Arena, signum: signal.Signals) -> None:
    runner = _start(arena, _cli_runner(arena))
    runner.send_signal(signum)
    _, err = runner.communicate(timeout=WAIT_S)
    assert runner.returncode == 128 + signum, err
    said = [line for line in err.splitlines() if f"stopped by {signum.name}" in line]
    assert len(said) == 1 and "status interrupted" in said[0], err
    assert "Traceback" not in err
    status, stored, held = _state(arena)
    assert status == "interrupted" and not held and len(stored) < GAMES
    _assert_no_bot_survives(arena.bots)
    _resumes(arena)


def test_tournament_stop_asks_the_runner_to_stop(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    # Control first: with no runner there is nothing to stop, and nothing changes.
    assert main(["tournament", "stop", "cup", *arena.common]) == 0
    assert "no runner is playing it" in capsys.readouterr().out
    runner = _start(arena, _cli_runner(arena))
    assert main(["tournament", "stop", "cup", *arena.common]) == 0
    assert "cup: stopped (process" in capsys.readouterr().out
    _, err = runner.communicate(timeout=WAIT_S)
    assert runner.returncode == 128 + signal.SIGTERM, err
    assert _state(arena)[0] == "interrupted"
    _resumes(arena)


BARE_RUNNER = """
import asyncio, sys
from arena.storage.database import open_database
from arena.tournament import runner
from arena.tournament.executor import LocalProcessExecutor
asyncio.run(runner.run(open_database(sys.argv[1]), "cup", LocalProcessExecutor(2)))
"""


def test_control_without_the_polite_stop_sigterm_leaves_running(arena: Arena) -> None:
    runner = _start(arena, [sys.executable, "-c", BARE_RUNNER, arena.url])
    runner.send_signal(signal.SIGTERM)
    runner.communicate(timeout=WAIT_S)
    assert runner.returncode == -signal.SIGTERM
    assert _state(arena)[0] == "running"  # what `tournament status` used to show
    _assert_no_bot_survives(arena.bots, wait_s=120)  # orphans end on their own timeouts


def test_stop_signals_no_process_that_is_not_an_arena_runner(
    arena: Arena, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock names its holder by what the holder wrote, which anyone able to write to
    the database can forge: a holder that is not an arena process is not signalled. The
    control: the same forged holder pointing at a real runner stops it."""
    bystander = subprocess.Popen(["sleep", "120"])
    try:
        forged = Holder(bystander.pid, socket.gethostname())
        monkeypatch.setattr("arena.cli.tournament_stop.lock_holder", lambda *_: forged)
        assert main(["tournament", "stop", "cup", "--no-wait", *arena.common]) == 1
        err = capsys.readouterr().err
        assert "is not an arena runner: not signalled" in err and len(err.splitlines()) == 1
        assert bystander.poll() is None  # alive: never signalled
        runner = _start(arena, _cli_runner(arena))
        real = Holder(runner.pid, socket.gethostname())
        monkeypatch.setattr("arena.cli.tournament_stop.lock_holder", lambda *_: real)
        assert main(["tournament", "stop", "cup", "--no-wait", *arena.common]) == 0
        assert runner.wait(timeout=WAIT_S) != 0  # stopped by the signal
    finally:
        bystander.kill()
        bystander.wait()
