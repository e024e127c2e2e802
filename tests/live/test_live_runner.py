"""The runner keeps the live table: rows while games are played, none once the run ends;
a killed run's rows go at the next start. Real worker processes and sample bots.

Each claim has its control: with ``ARENA_LIVE=0`` no row is ever written (so the rows seen
are the feed's), and right after the kill a row is there (so the next start had one to
clear)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from arena.cli import main
from arena.storage import live, open_database
from arena.storage.models import LiveGame
from arena.tournament import runner
from arena.tournament.executor import LocalProcessExecutor
from tests.live.privacy import cards_named
from tests.live.slow_bots import slow_bot
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
BOTS = ("random_bot", "greedy_bot", "heuristic_bot")


SLOW_BOTS = ("slow_bot", "greedy_bot", "heuristic_bot")
SLOW_PLAY_S = 0.05
SLOW_PLAYS = 20
"""The slow bot pauses :data:`SLOW_PLAY_S` before each of the first :data:`SLOW_PLAYS`
cards its process plays (a fresh process for each of the six seatings): every game then
lasts at least 1 s, twice the feed's interval, so the run shows a dozen views mid-play
however fast the machine (the sample bots alone finish a game in about the interval, and
a game that short may show only its start). The rest of its cards come at the sample
bots' speed: pausing through the whole game, about 550 cards a run, only waited."""


def tournament(
    url: str, data: Path, name: str = "lv", boards: int = 1, slow: Path | None = None
) -> None:
    """A round robin of the sample Python bots (*boards* boards of 6 games), or with the
    *slow* bot in random_bot's place."""
    folders = [ROOT / "sample_bots" / bot for bot in BOTS]
    if slow is not None:
        folders[0] = slow
    for folder in folders:
        assert main(["bot", "submit", str(folder), "--db", url, "--data", str(data)]) == 0
    bots = SLOW_BOTS if slow is not None else BOTS
    create = ["tournament", "create", name, "--bots", ",".join(bots), "--boards", str(boards),
              "--seed", "3", "--db", url, "--data", str(data)]  # fmt: skip
    assert main(create) == 0


def stored_rows(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(LiveGame)).scalar_one())


async def _run_watching(engine: Engine, name: str) -> list[live.LiveRow]:
    """Run *name* with two workers, reading the live table every 50 ms meanwhile."""
    seen: list[live.LiveRow] = []
    done = False

    async def watch() -> None:
        while not done:
            seen.extend(live.live_rows(engine, name))
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    try:
        await runner.run_tournament(engine, name, LocalProcessExecutor(2))
    finally:
        done = True
        await watcher
    return seen


def _views_are_public(rows: list[live.LiveRow]) -> None:
    for row in rows:
        assert row.state["format"] == "arena952.public/1"
        played = {c for t in row.state["tricks"] for c in t["cards"]}
        if row.state["current_trick"]:
            played |= set(row.state["current_trick"]["cards"])
        assert cards_named(row.state) == played  # no card but the played ones


@pytest.mark.parametrize("enabled", [True, False])
def test_rows_while_playing_and_none_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    tournament(url, tmp_path / "data", slow=slow_bot(tmp_path, SLOW_PLAY_S, SLOW_PLAYS))
    if not enabled:
        monkeypatch.setenv("ARENA_LIVE", "0")
    engine = open_database(url)
    seen = asyncio.run(_run_watching(engine, "lv"))
    assert stored_rows(engine) == 0
    if not enabled:
        assert seen == []  # control: the rows seen otherwise are the feed's
        return
    assert seen, "no live row was seen while the games were played"
    assert all(sorted(p.split("@")[0] for p in r.players) == sorted(SLOW_BOTS) for r in seen)
    assert {r.tournament for r in seen} == {"lv"}
    assert any(r.state["tricks"] or r.state["current_trick"] for r in seen)
    assert all(r.table_index == 0 for r in seen)
    _views_are_public(seen)


def test_a_killed_runs_rows_go_at_the_next_start(tmp_path: Path) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    data = tmp_path / "data"
    tournament(url, data)
    engine = open_database(url)
    args = [sys.executable, "-m", "arena.cli", "tournament", "run", "lv", "--parallel", "2",
            "--db", url, "--data", str(data)]  # fmt: skip
    env: dict[str, Any] = {**os.environ, "ARENA_LIVE": "1"}
    process = subprocess.Popen(
        args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while stored_rows(engine) == 0:
            assert process.poll() is None, "the run ended before a live row was seen"
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert stored_rows(engine) > 0  # control: the killed run left its rows
    seen = asyncio.run(_run_watching(engine, "lv"))
    assert stored_rows(engine) == 0
    assert seen
