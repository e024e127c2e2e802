"""Pre-starting the next game's bot processes keeps the fair-play rules.

With pre-start, a worker starts the processes the job it will likely take next needs and
no kept process provides, during the current game, when no live process of the worker may
know that job's deal (:mod:`arena.tournament.player`). Real sandboxed ``memory_bot``
processes (``PROCESS <id>`` at each game, ``KNOWN-DEAL`` when a process meets a deal again)
show that:

* through the real executor and worker processes, a bot joining the worker's generation
  (another table) plays on a pre-started process, which is fresh, the bots the tables
  share play on, no process meets a deal twice, and no bot process outlives the run, with
  reuse and with fresh processes per game;
* a deal the generation may know is played by new processes (control: with no deal
  counted as known, the old processes play it again and recognise it);
* a process pre-started for a job the slot does not take next is stopped at once
  (control: it was running before).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.tournament.executor import LocalProcessExecutor
from arena.tournament.jobs import GameJob
from arena.tournament.player import GamePlayer, Reuse
from tests.tournament.test_reuse import PROCESS, _job, _memory, _stderr

Seating = tuple[str, str, str]


def _bots(tmp_path: Path) -> tuple[Seating, Seating]:
    """Two seatings of three memory bots."""
    a, b, c = (str(_memory(tmp_path, name)) for name in ("mem_a", "mem_b", "mem_c"))
    return (a, b, c), (b, a, c)


def _processes(record: dict[str, Any]) -> set[str]:
    """The ids of the processes that played *record* (memory_bot draws one at start)."""
    return {match[0] for log in _stderr(record) for match in PROCESS.findall(log)}


def _running(marker: str) -> list[int]:
    """Pids of this machine's processes whose command line names *marker* (the sandbox's
    launchers name the bot's directory)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in command:
            found.append(int(entry))
    return found


def _wait(condition: Callable[[], bool], seconds: float = 20.0) -> bool:
    """Whether *condition* holds within *seconds*."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _run(jobs: list[GameJob], reuse: Reuse) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Play *jobs* on one worker process with pre-start; the records in job order and the
    executor's pre-start counts."""
    pool = LocalProcessExecutor(1, reuse=reuse, prestart=True)
    records: dict[int, dict[str, Any]] = {}

    def keep(job: GameJob, record: dict[str, Any]) -> None:
        records[job.schedule_index] = record

    asyncio.run(pool.run(jobs, keep))
    assert sorted(records) == [job.schedule_index for job in jobs]
    return [records[job.schedule_index] for job in jobs], pool.prestarts


def _joining_plan(tmp_path: Path) -> list[GameJob]:
    """Table one plays deal 11; table two (a bot joins) then plays 13 and 14, deals no live
    process knows (the joining bot's process is pre-started during deal 11), then table
    one's other seating plays 11 again (a deal the whole generation may know)."""
    (a, b, c), _ = _bots(tmp_path)
    d = str(_memory(tmp_path, "mem_d"))
    plan = [(11, (a, b, c)), (13, (a, b, d)), (14, (a, b, d)), (11, (b, a, c))]
    return [_job(i, seed, seats) for i, (seed, seats) in enumerate(plan)]


def _check(records: list[dict[str, Any]], tmp_path: Path) -> list[set[str]]:
    """Per game, its processes, once every game is checked: no fault, no deal met twice,
    no bot process left."""
    for record in records:
        assert record["faults"] == []
        assert not [log for log in _stderr(record) if "KNOWN-DEAL" in log]
    assert not _running(str(tmp_path)), "a bot process outlived the run"
    return [_processes(record) for record in records]


def test_a_prestarted_process_is_fresh_and_plays_on_without_meeting_a_deal_twice(
    tmp_path: Path,
) -> None:
    records, counts = _run(_joining_plan(tmp_path), Reuse.SAFE)
    assert counts == {"started": 1, "used": 1}
    first, joined, again, fresh = _check(records, tmp_path)
    assert len(joined - first) == 1  # the pre-started process of the joining bot: new
    assert len(joined & first) == 2  # the two bots both tables share play on
    assert again == joined  # ... all three for the next deal of table two
    assert not fresh & (first | joined)  # deal 11 again: a generation that never heard it


def test_control_counting_no_deal_lets_the_generation_play_one_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same plan on a player in this process (a worker process would not see the
    patch), told each next job as the executor tells it, with nothing counted as known:
    the processes of deal 11 play it again, and recognise it."""
    monkeypatch.setattr(GamePlayer, "_mingle", lambda self, live, deal: None)
    jobs = _joining_plan(tmp_path)
    player = GamePlayer(Reuse.SAFE)

    async def play() -> list[dict[str, Any]]:
        try:
            upcoming: list[GameJob | None] = [*jobs[1:], None]
            return [await player.play(job, then) for job, then in zip(jobs, upcoming, strict=True)]
        finally:
            await player.aclose()

    replies = asyncio.run(play())
    assert [bool(reply.get("warm")) for reply in replies] == [False, True, False, False]
    last = replies[-1]["record"]
    assert [log for log in _stderr(last) if "KNOWN-DEAL" in log]
    assert _processes(last) <= _processes(replies[0]["record"]) | _processes(replies[1]["record"])


def test_fresh_processes_per_game_are_prestarted_and_play_one_game_each(tmp_path: Path) -> None:
    one, two = _bots(tmp_path)
    plan = [(11, one), (12, one), (11, two)]
    jobs = [_job(i, seed, seats) for i, (seed, seats) in enumerate(plan)]
    records, counts = _run(jobs, Reuse.NONE)
    # Deal 12's set is pre-started during deal 11; deal 11 again is not pre-started beside
    # the set that heard it.
    assert counts == {"started": 1, "used": 1}
    _check(records, tmp_path)
    games = [m for record in records for log in _stderr(record) for m in PROCESS.findall(log)]
    assert len(games) == 9 and {number for _, number, _ in games} == {"1"}
    assert len({process for process, _, _ in games}) == 9  # every set was fresh


def test_a_process_prestarted_for_a_job_that_does_not_come_is_stopped(tmp_path: Path) -> None:
    one, _ = _bots(tmp_path)
    probe = str(_memory(tmp_path, "probe"))
    player = GamePlayer(Reuse.SAFE)

    async def scenario() -> tuple[dict[str, Any], bool, dict[str, Any], bool]:
        try:
            first = await player.play(_job(0, 11, one), _job(1, 12, (probe, one[1], one[2])))
            started = await asyncio.to_thread(_wait, lambda: bool(_running(probe)))
            second = await player.play(_job(2, 13, one))  # not the job it was started for
            stopped = await asyncio.to_thread(_wait, lambda: not _running(probe))
        finally:
            await player.aclose()
        return first, started, second, stopped

    first, started, second, stopped = asyncio.run(scenario())
    assert first.get("prestarted") is True
    assert started  # the control: the check sees the pre-started processes
    assert "record" in second and not second.get("warm")
    assert stopped, "the unused pre-started process is still running"
    assert not _running(str(tmp_path))
