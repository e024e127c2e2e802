"""A real ladder (bot processes, two workers) killed with SIGKILL mid-run and run again:
the matches chosen before the kill stay chosen, the games stored before it stay as they
were, and in the end every game of every match is stored exactly once, with the ratings
of a recomputation from scratch.

On SQLite only: the exactly-once machinery it exercises on a real kill is the same on
PostgreSQL, which ``test_ladder.py`` covers with a cut-off run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arena import storage
from arena.cli import main
from arena.storage.database import open_database
from arena.storage.ratings import recompute_ratings
from tests.migrated_sqlite import migrated_sqlite_url
from tests.tournament.test_tournaments import _assert_no_bot_survives, _comparable

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
GAMES = 18


def _ratings(url: str, tournament_id: int) -> list[tuple[int, float, float, int]]:
    return [
        (r.bot_version_id, round(r.mu, 9), round(r.sigma, 9), r.games)
        for r in storage.ratings(open_database(url), tournament_id)
    ]


def test_kill_minus_nine_then_run_again_loses_and_repeats_nothing(tmp_path: Path) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    data = tmp_path / "data"
    common = ["--db", url, "--data", str(data)]
    for bot in ("random_bot", "greedy_bot", "heuristic_bot"):
        assert main(["bot", "submit", str(SAMPLES / bot), *common]) == 0
    assert main(["tournament", "create", "lad", "--format", "ladder", "--games", str(GAMES),
                 "--bots", "random_bot,greedy_bot,heuristic_bot", "--seed", "9",
                 # Generous limits: a timeout under CI load would change a record legitimately.
                 "--time-control", "decision=5000,bank=60000,grace=500,startup=30000",
                 *common]) == 0  # fmt: skip
    engine = open_database(url)
    tournament_id = storage.row_id(storage.get_tournament(engine, "lad"))

    runner = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "run", "lad", "--parallel", "2",
         *common],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while len(storage.stored_indexes(engine, tournament_id)) < 4:
        assert runner.poll() is None, "the ladder finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    chosen = storage.ladder_matches(engine, tournament_id)
    before: dict[int, Any] = {
        i: _comparable(r) for i, r in storage.tournament_records(engine, tournament_id)
    }
    assert 4 <= len(before) < GAMES
    assert len(chosen) * 6 > len(before)  # a match was in play when it was killed
    _assert_no_bot_survives(data)

    assert main(["tournament", "run", "lad", "--parallel", "2", *common]) == 0
    after = storage.ladder_matches(engine, tournament_id)
    # (Three bots make every table the same three; the seating order is what is chosen.)
    assert [m.bot_version_ids for m in after[: len(chosen)]] == [m.bot_version_ids for m in chosen]
    assert len(after) == GAMES // 6 and all(m.complete for m in after)
    records = storage.tournament_records(engine, tournament_id)
    assert [i for i, _ in records] == list(range(GAMES))
    for index, record in records:
        if index in before:
            assert _comparable(record) == before[index], f"game {index} changed"
    for match in after:
        games = storage.game_page(engine, tournament_id, start=match.match_index * 6, limit=6)
        assert [g.schedule_index // 6 for g in games] == [match.match_index] * 6
        assert {frozenset(g.seats) for g in games} == {frozenset(match.bot_version_ids)}
    rated = _ratings(url, tournament_id)
    recompute_ratings(engine, tournament_id)
    assert _ratings(url, tournament_id) == rated
    assert sum(games for *_, games in rated) == GAMES * 3
    assert storage.get_tournament(engine, "lad").status == "finished"
