"""A real ``arena tournament run LADDER --follow`` (its own process, real bot processes
from sample_bots/ over gRPC) on an open ladder while participants submit and withdraw
from another shell, as they would on a hosted arena:

* with 2 entrants it waits; the third submitted bot enters by itself and is played
  without a restart;
* a withdrawn bot is scheduled no more (matches chosen before stay, and are played); with
  only 2 active entrants left it waits again, and a fourth submitted bot brings it back;
* the withdrawn bot keeps its games and rating, and the standings show it as left.

On SQLite only: the storage functions it relies on are tested on PostgreSQL in
tests/storage/test_withdraw.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena import storage
from arena.cli import main
from arena.storage.database import open_database
from tests.migrated_sqlite import migrated_sqlite_url
from tests.tournament.support_open_ladders import make_bot, participants
from tests.tournament.test_tournaments import _assert_no_bot_survives

WAIT_S = 180.0
"""How long a step may take before the test gives up (a guard, not an assertion)."""


def _until(condition: Callable[[], bool], runner: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert runner.poll() is None, f"the runner exited while waiting for {what}"
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.1)


@pytest.fixture
def runner_slot() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Where the test puts the runner it starts: stopped at the end, whatever happened."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_a_following_ladder_takes_new_entrants_and_drops_withdrawn_ones(
    tmp_path: Path, runner_slot: list[subprocess.Popen[bytes]]
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    data = tmp_path / "data"
    common = ["--db", url, "--data", str(data)]
    sources = tmp_path / "sources"
    engine = open_database(url)
    participants(engine, "alice", "bob")

    def submit(name: str, user: str, sample: str) -> None:
        folder = make_bot(sources, name, sample=sample)
        assert main(["bot", "submit", str(folder), "--user", user, *common]) == 0

    assert main(["tournament", "create", "live", "--format", "ladder", "--open",
                 "--time-control", "decision=5000,bank=60000,grace=500,startup=30000",
                 *common]) == 0  # fmt: skip
    tournament_id = storage.row_id(storage.get_tournament(engine, "live"))
    submit("alice_bot", "alice", "random_bot")
    submit("bob_bot", "bob", "greedy_bot")

    def matches() -> list[storage.ScheduledMatch]:
        return storage.ladder_matches(engine, tournament_id)

    runner = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "run", "live", "--follow",
         "--parallel", "1", *common],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    runner_slot.append(runner)
    _until(lambda: storage.get_tournament(engine, "live").status == "running", runner, "start")
    assert matches() == []  # two entrants: it waits

    submit("house_bot", "local", "heuristic_bot")
    _until(lambda: any(m.complete for m in matches()), runner, "a match with the third bot")
    assert set(matches()[0].labels) == {"alice_bot@1", "bob_bot@1", "house_bot@1"}

    assert main(["bot", "withdraw", "bob_bot", "--ladder", "live", "--user", "bob",
                 *common]) == 0  # fmt: skip
    after_withdrawal = len(matches())
    submit("late_bot", "alice", "random_bot")
    _until(
        lambda: any(m.complete for m in matches()[after_withdrawal:]),
        runner,
        "a match with the fourth bot",
    )
    runner.send_signal(signal.SIGINT)  # Ctrl-C
    runner.wait(timeout=WAIT_S)
    _assert_no_bot_survives(data)

    chosen = matches()
    later = chosen[after_withdrawal:]
    assert later, "no match was chosen after the withdrawal"
    # Nothing was scheduled with two active entrants: every later match waited for the
    # fourth bot, and none seats the withdrawn one.
    assert all(set(m.labels) == {"alice_bot@1", "house_bot@1", "late_bot@1"} for m in later)
    # Its games and rating stay; the standings show it, as left.
    rows = {row.bot: row for row in storage.standings(engine, tournament_id)}
    assert rows["bob_bot@1"].games >= 6 and rows["bob_bot@1"].left == "withdrawn"
    assert rows["late_bot@1"].games >= 6 and rows["late_bot@1"].left is None
    assert {r.bot_version_id for r in storage.ratings(engine, tournament_id)} >= {
        rows["bob_bot@1"].bot_version_id
    }
