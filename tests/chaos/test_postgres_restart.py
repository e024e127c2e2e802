"""A real run (bot processes, two workers, the CLI) while its PostgreSQL server dies.

* The postmaster is killed with SIGKILL mid-run and started again 3 s later: the same
  runner waits, says so one line a retry, stores what it held and finishes, exit status 0,
  every game stored exactly once.
* The server stays down past ``--db-retry-for``: exit status 75 with one line, nothing
  chained; once the server is back, ``tournament run`` completes the tournament. With
  ``--db-retry-for 0`` the same happens at the first refusal: the control, the old death
  (which was exit 1 and nine chained tracebacks), shows the restart test can fail.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from sqlalchemy import text

from arena import storage
from arena.storage.database import open_database
from tests.chaos.conftest import ChaosArena

pytestmark = [pytest.mark.postgres, pytest.mark.processes]

GAMES = 6
WAIT_S = 240.0


def _runner(arena: ChaosArena, name: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "run", name, "--parallel", "2",
         *extra, *arena.common],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def _wait_for_games(
    arena: ChaosArena, name: str, count: int, runner: subprocess.Popen[str]
) -> None:
    engine = open_database(arena.url)
    try:
        tournament_id = storage.row_id(storage.get_tournament(engine, name))
        deadline = time.monotonic() + WAIT_S
        while len(storage.stored_indexes(engine, tournament_id)) < count:
            assert runner.poll() is None, runner.communicate()
            assert time.monotonic() < deadline, "the run stored too few games"
            time.sleep(0.05)
    finally:
        engine.dispose()


def _stored_once(arena: ChaosArena, name: str) -> tuple[list[int], int, str]:
    """The stored schedule indexes, the number of game rows, and the status."""
    engine = open_database(arena.url)
    try:
        tournament = storage.get_tournament(engine, name)
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT count(*) FROM game WHERE tournament_id = :t"), {"t": tournament.id}
            ).scalar_one()
        indexes = sorted(storage.stored_indexes(engine, storage.row_id(tournament)))
        return indexes, rows, tournament.status
    finally:
        engine.dispose()


def test_a_postmaster_killed_and_back_in_3_s_the_same_runner_finishes(
    chaos_arena: ChaosArena,
) -> None:
    chaos_arena.create("restart")
    runner = _runner(chaos_arena, "restart")
    _wait_for_games(chaos_arena, "restart", 2, runner)
    chaos_arena.server.kill()
    time.sleep(3)
    chaos_arena.server.start()
    _, err = runner.communicate(timeout=WAIT_S)
    assert runner.returncode == 0, err
    assert _stored_once(chaos_arena, "restart") == (list(range(GAMES)), GAMES, "finished")
    assert "database unreachable (" in err and "database reachable again" in err
    assert "Traceback" not in err and "arena: error" not in err


@pytest.mark.parametrize("retry_for", ["0", "3"])
def test_down_past_the_limit_exit_75_in_one_line_then_run_completes(
    chaos_arena: ChaosArena, retry_for: str
) -> None:
    """``--db-retry-for 0`` is the control of the test above: no wait, the run dies as it
    did before (now in one line, exit 75, rather than exit 1 and chained tracebacks)."""
    name = f"down-{retry_for}"
    chaos_arena.create(name)
    runner = _runner(chaos_arena, name, "--db-retry-for", retry_for)
    _wait_for_games(chaos_arena, name, 2, runner)
    chaos_arena.server.kill()
    try:
        _, err = runner.communicate(timeout=WAIT_S)
    finally:
        chaos_arena.server.start()
    assert runner.returncode == 75, err
    final = [line for line in err.splitlines() if line.startswith("arena:")]
    assert len(final) == 1 and final[0].startswith("arena: database unreachable ("), err
    assert "run again to resume" in final[0]
    assert "Traceback" not in err and "During handling" not in err
    waits = [line for line in err.splitlines() if line.startswith("database unreachable (")]
    assert bool(waits) == (retry_for != "0")

    again = _runner(chaos_arena, name)
    _, err = again.communicate(timeout=WAIT_S)
    assert again.returncode == 0, err
    assert _stored_once(chaos_arena, name) == (list(range(GAMES)), GAMES, "finished")
