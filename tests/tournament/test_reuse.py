"""Safe process reuse: a bot process never meets the same deal twice.

``memory_bot`` remembers every holding it has seen (its own dealt cards, what each
opponent played in hand 1) and prints ``KNOWN-DEAL`` when a game deals it one again. A real
round robin (three memory bots, two boards, worker processes, sandboxed bots over gRPC)
under the default scheme keeps processes across boards (some process plays two games)
and no bot ever recognises a deal; the naive scheme (processes kept for every game of the
table, whatever they have seen) as control lets them recognise it. A bot that faults gets
a fresh process; output written on GameEnd is charged to that game. On stand-in processes:
a worker's processes play on at another table (whose deals they cannot know) and all end,
their end awaited, before a deal they may know is played again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import shutil
from pathlib import Path
from typing import Any, ClassVar

import pytest

from arena import storage
from arena.cli import main
from arena.game.rules import PRESETS
from arena.referee import lobby as lobby_module
from arena.storage.database import open_database
from arena.tournament import player as player_module
from arena.tournament.executor import LocalProcessExecutor
from arena.tournament.jobs import GameJob
from arena.tournament.player import GamePlayer, Reuse
from arena.tournament.runner import run_tournament
from tests.migrated_sqlite import migrated_sqlite_url

MEMORY = Path(__file__).resolve().parent / "memory_bot"
CONTROL = "decision=30000,bank=120000,grace=500,startup=30000"
NAMES = ("mem_a", "mem_b", "mem_c")
PROCESS = re.compile(r"^PROCESS (\w+) GAME (\d+) (\S+)$", re.MULTILINE)


def _memory(tmp_path: Path, name: str, *args: str) -> Path:
    """A copy of memory_bot called *name*, run with *args*."""
    target = tmp_path / name
    shutil.copytree(MEMORY, target)
    toml = (target / "bot.toml").read_text()
    toml = toml.replace('name = "memory_bot"', f'name = "{name}"')
    (target / "bot.toml").write_text(
        toml.replace("python bot.py", " ".join(["python bot.py", *args]))
    )
    return target


def _stderr(record: dict[str, Any]) -> list[str]:
    return [str(logs["stderr"]) for logs in record["bot_logs"]]


@pytest.fixture(scope="module")
def arena_db(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A database with three memory bots submitted (shared: a submission plays a game)."""
    root = tmp_path_factory.mktemp("reuse")
    db = ["--db", migrated_sqlite_url(root / "arena.db"), "--data", str(root / "data")]
    for name in NAMES:
        assert main(["bot", "submit", str(_memory(root / "src", name)), *db]) == 0
    return db


def _tournament(db: list[str], reuse: Reuse) -> tuple[list[dict[str, Any]], int]:
    """The 12 records of a round robin of the three memory bots on two boards, played by
    one worker (two would each take one board of a seating: nothing to reuse), and how many
    bot processes its games started."""
    name = reuse.value
    assert main(["tournament", "create", name, "--bots", ",".join(NAMES), "--boards", "2",
                 "--time-control", CONTROL, *db]) == 0  # fmt: skip
    engine = open_database(db[1])
    try:
        executor = LocalProcessExecutor(1, reuse=reuse)
        asyncio.run(run_tournament(engine, name, executor))
        tid = storage.row_id(storage.get_tournament(engine, name))
        records = dict(storage.tournament_records(engine, tid))
    finally:
        engine.dispose()
    assert sorted(records) == list(range(12))  # exactly one record per game
    return [records[i] for i in range(12)], executor.started


def test_seating_reuse_keeps_processes_and_never_repeats_a_deal(arena_db: list[str]) -> None:
    records, started = _tournament(arena_db, Reuse.SAFE)
    assert started == 18  # three processes per seating, for both boards
    logs = [log for record in records for log in _stderr(record)]
    assert all(record["faults"] == [] for record in records)
    assert not [log for log in logs if "KNOWN-DEAL" in log]
    games_of_process = [int(m[1]) for log in logs for m in PROCESS.findall(log)]
    assert len(games_of_process) == 36  # every seat announced every game
    assert max(games_of_process) > 1, "no process played a second game: nothing was reused"
    for record in records:  # what a bot wrote on GameEnd is in that game's record
        for log in _stderr(record):
            assert re.findall(r"^END (\S+)$", log, re.MULTILINE) == [record["game_id"]]


def test_control_one_process_set_per_table_meets_the_same_deal_again(
    arena_db: list[str],
) -> None:
    records, started = _tournament(arena_db, Reuse.ANY_DEAL)
    assert started == 3  # one process per bot for the whole table
    logs = [log for record in records for log in _stderr(record)]
    assert [log for log in logs if "KNOWN-DEAL" in log]


def _job(index: int, seed: int, paths: tuple[str, str, str]) -> GameJob:
    return GameJob(
        schedule_index=index,
        seed=seed,
        first_dealer=0,
        rules=PRESETS["classic"].to_json(),
        ruleset="classic",
        time_control=CONTROL,
        bot_paths=paths,
        game_id=f"g{index}",
        log_cap=64 * 1024,
    )


def _pids(record: dict[str, Any]) -> list[str]:
    """Per seat, the id of the bot's process (memory_bot draws one when it starts)."""
    return [PROCESS.findall(log)[0][0] for log in _stderr(record)]


def test_a_bot_that_faults_gets_a_fresh_process(tmp_path: Path) -> None:
    """Its seating's next board starts a new process for its seat, while the two bots
    that played without a fault play on in theirs (their processes are the control)."""
    plain = str(_memory(tmp_path, "plain"))
    faulty = str(_memory(tmp_path, "faulty", "--illegal"))

    async def two_boards() -> list[dict[str, Any]]:
        player = GamePlayer(Reuse.SAFE)
        try:
            paths = (faulty, plain, plain)
            replies = [await player.play(_job(i, seed, paths)) for i, seed in enumerate((11, 12))]
        finally:
            await player.aclose()
        return [reply["record"] for reply in replies]

    first, second = asyncio.run(two_boards())
    assert [f["seat"] for f in first["faults"]] == [0]
    assert [f["seat"] for f in second["faults"]] == [0]  # a fresh process: it faults again
    assert _pids(first)[0] != _pids(second)[0]
    assert sorted(_pids(first)[1:]) == sorted(_pids(second)[1:])


class _FakeProcess:
    exited = False


class _FakeSession:
    def send(self, message: object) -> None:
        return None


class _FakeRunner:
    """Stands in for a seat's bot process: started by its first game, stopped slowly."""

    everyone: ClassVar[list[_FakeRunner]] = []

    def __init__(self, seat: int, spec: Any, config: Any, door: int | None = None) -> None:
        self.seat, self.spec, self.door = seat, spec, door
        self.number = len(_FakeRunner.everyone)
        self.process: _FakeProcess | None = None
        self.session: _FakeSession | None = None
        self.healthy = False
        self.is_bot = True
        self.label = f"fake{self.number}"
        self.games_ended = 0
        _FakeRunner.everyone.append(self)

    def start(self) -> None:
        self.process, self.session, self.healthy = _FakeProcess(), _FakeSession(), True

    async def stop(self, *, kill: bool = False) -> None:
        await asyncio.sleep(0.01)  # stopping takes a while: the player must wait for it
        self.process, self.session, self.healthy = None, None, False


class _FakeMatch:
    """Stands in for a lent match: notes which processes play, and which others live."""

    log: ClassVar[list[tuple[frozenset[int], frozenset[int]]]] = []

    def __init__(self, runners: list[_FakeRunner]) -> None:
        self.runners = runners

    async def open(self) -> None:
        return None

    async def play(self, _index: int, setup: Any) -> dict[str, Any]:
        for runner in self.runners:
            if runner.process is None:
                runner.start()
        mine = frozenset(r.number for r in self.runners)
        alive = frozenset(r.number for r in _FakeRunner.everyone if r.process) - mine
        _FakeMatch.log.append((mine, alive))
        return {"faults": []}


def _fake_player(monkeypatch: pytest.MonkeyPatch) -> tuple[GamePlayer, list[Any]]:
    _FakeRunner.everyone, _FakeMatch.log = [], []
    monkeypatch.setattr(lobby_module, "SeatRunner", _FakeRunner)
    monkeypatch.setattr(
        lobby_module.Match,
        "lent",
        staticmethod(lambda server, runners, config: _FakeMatch(runners)),
    )
    monkeypatch.setattr(player_module, "load_manifest", lambda path: path)
    monkeypatch.setattr(player_module, "verify_versions", lambda job: None)
    return GamePlayer(Reuse.SAFE), _FakeMatch.log


def _play(player: GamePlayer, plan: list[tuple[int, tuple[str, str, str]]]) -> None:
    async def go() -> None:
        for index, (seed, paths) in enumerate(plan):
            reply = await player.play(_job(index, seed, paths))
            assert "record" in reply, reply
        await player.aclose()

    asyncio.run(go())


SEATINGS = [(1, ("a", "b", "c")), (2, ("a", "b", "c")), (1, ("b", "a", "c"))]
"""Seating 1 plays boards 1 and 2, then seating 2 plays board 1 (a deal seating 1's kept
processes know)."""


def test_no_process_that_knows_a_deal_lives_while_it_is_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Idle processes that played a deal are stopped, and their end awaited, before new
    ones play that deal: they could otherwise signal what they saw through the machine."""
    player, log = _fake_player(monkeypatch)
    _play(player, SEATINGS)
    first, second, third = log
    assert first == second == (frozenset({0, 1, 2}), frozenset())  # seating 1 played on
    assert third == (frozenset({3, 4, 5}), frozenset())  # new processes, the old ones gone


def test_control_without_forgetting_the_knowing_processes_play_the_deal_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    player, log = _fake_player(monkeypatch)

    async def keep_everything(self: GamePlayer, deal: Any) -> None:
        return None

    monkeypatch.setattr(GamePlayer, "_forget", keep_everything)
    _play(player, SEATINGS)
    assert log[-1][0] == frozenset({0, 1, 2})


def test_processes_play_on_at_another_table_whose_deals_they_cannot_know(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Boards of two tables (deals 1, 2 at the first, 3, 4 at the second), seating by
    seating: the bots both tables share keep their processes across tables, and a
    generation ends only when a deal comes round again."""
    player, log = _fake_player(monkeypatch)
    one, two = ("a", "b", "c"), ("a", "b", "d")
    _play(player, [(1, one), (2, one), (3, two), (4, two), (1, one[::-1]), (3, two[::-1])])
    assert [sorted(mine) for mine, _ in log] == [
        [0, 1, 2], [0, 1, 2], [0, 1, 3], [0, 1, 3], [4, 5, 6], [5, 6, 7],
    ]  # fmt: skip
    assert log[4][1] == frozenset()  # the first generation was gone before deal 1 again


def test_a_deal_overheard_from_a_lost_worker_is_played_by_new_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A job the queue marks overheard (its deal was freed by a lost worker while this
    worker's processes lived) ends the generation, whose processes are gone before it is
    played, though the player itself never saw that deal. Control: the same job unmarked
    plays on the kept processes."""
    player, log = _fake_player(monkeypatch)
    one = ("a", "b", "c")
    overheard = dataclasses.replace(_job(1, 2, one), overheard=True)

    async def go(second: GameJob) -> None:
        for job in (_job(0, 1, one), second):
            assert "record" in await player.play(job)
        await player.aclose()

    asyncio.run(go(overheard))
    assert log == [(frozenset({0, 1, 2}), frozenset()), (frozenset({3, 4, 5}), frozenset())]

    player, log = _fake_player(monkeypatch)
    asyncio.run(go(_job(1, 2, one)))
    assert [mine for mine, _ in log] == [frozenset({0, 1, 2})] * 2
