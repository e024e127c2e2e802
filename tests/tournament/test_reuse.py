"""Safe process reuse (issue 14, item 1): a bot process never meets the same deal twice.

``memory_bot`` remembers every holding its process has seen (its own dealt cards, what each
opponent played in hand 1) and prints ``KNOWN-DEAL`` when a game deals it one again. A real
round robin (three memory bots, two boards, worker processes, sandboxed bots over gRPC)
under the default scheme keeps processes across boards (some process plays two games)
and no bot ever recognises a deal; the naive scheme (one process set per table, for every
seating) as control lets them recognise it. A bot that faults gets a fresh process; output
written on GameEnd is charged to that game.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path
from typing import Any, ClassVar

import pytest

from arena import storage
from arena.cli import main
from arena.game.rules import PRESETS
from arena.storage.database import open_database
from arena.tournament import player as player_module
from arena.tournament.executor import LocalProcessExecutor
from arena.tournament.jobs import GameJob
from arena.tournament.player import GamePlayer, Reuse
from arena.tournament.runner import run_tournament

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
    db = ["--db", f"sqlite:///{root / 'arena.db'}", "--data", str(root / "data")]
    for name in NAMES:
        assert main(["bot", "submit", str(_memory(root / "src", name)), *db]) == 0
    return db


def _tournament(db: list[str], reuse: Reuse) -> tuple[list[dict[str, Any]], int]:
    """The 12 records of a round robin of the three memory bots on two boards, played by
    one worker (two would each take one board of a seating: nothing to reuse), and how many
    process sets were started for a game."""
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
    return [records[i] for i in range(12)], executor.opened


def test_seating_reuse_keeps_processes_and_never_repeats_a_deal(arena_db: list[str]) -> None:
    records, opened = _tournament(arena_db, Reuse.SEATING)
    assert opened == 6  # one set per seating, for both boards
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
    records, opened = _tournament(arena_db, Reuse.BOARD)
    assert opened == 1  # one set for the whole table
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
    """Its seating's next board starts new processes (the control, a seating without a
    fault keeping its processes, is the tournament test above)."""
    plain = str(_memory(tmp_path, "plain"))
    faulty = str(_memory(tmp_path, "faulty", "--illegal"))

    async def two_boards() -> list[dict[str, Any]]:
        player = GamePlayer(Reuse.SEATING)
        try:
            paths = (faulty, plain, plain)
            replies = [await player.play(_job(i, seed, paths)) for i, seed in enumerate((11, 12))]
        finally:
            await player.aclose()
        return [reply["record"] for reply in replies]

    first, second = asyncio.run(two_boards())
    assert [f["seat"] for f in first["faults"]] == [0]
    assert [f["seat"] for f in second["faults"]] == [0]  # a fresh process: it faults again
    assert not set(_pids(first)) & set(_pids(second))


class _FakeMatch:
    """Stands in for a set's open match: notes what runs while it plays, and its end."""

    def __init__(self, log: list[tuple[str, int, frozenset[int]]], number: int) -> None:
        self.log, self.number, self.live = log, number, True

    async def play(self, _index: int, setup: Any) -> dict[str, Any]:
        alive = frozenset(m.number for m in _FakeMatch.everyone if m.live and m is not self)
        self.log.append(("play", self.number, alive))
        return {"faults": []}

    async def close(self) -> None:
        await asyncio.sleep(0.01)  # stopping takes a while: the player must wait for it
        self.live = False

    everyone: ClassVar[list[_FakeMatch]] = []


def _fake_player(monkeypatch: pytest.MonkeyPatch) -> tuple[GamePlayer, list[Any]]:
    log: list[tuple[str, int, frozenset[int]]] = []
    _FakeMatch.everyone = []

    async def fake_open(self: GamePlayer, job: GameJob) -> Any:
        match = _FakeMatch(log, len(_FakeMatch.everyone))
        _FakeMatch.everyone.append(match)
        return player_module._Set(match, job.bot_paths)  # type: ignore[arg-type]

    monkeypatch.setattr(GamePlayer, "_open", fake_open)
    monkeypatch.setattr(player_module, "verify_versions", lambda job: None)
    return GamePlayer(Reuse.SEATING), log


def _play_seatings(player: GamePlayer) -> None:
    """Seating 1 plays boards 1 and 2, then seating 2 plays board 1 (a deal seating 1's kept
    processes know)."""
    one, two = ("a", "b", "c"), ("b", "a", "c")

    async def go() -> None:
        for index, (seed, paths) in enumerate([(1, one), (2, one), (1, two)]):
            reply = await player.play(_job(index, seed, paths))
            assert "record" in reply, reply
        await player.aclose()

    asyncio.run(go())


def test_no_process_that_knows_a_deal_lives_while_it_is_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An idle set that played a deal is stopped, and its end awaited, before another
    set plays that deal: it could otherwise signal what it saw through the machine."""
    player, log = _fake_player(monkeypatch)
    _play_seatings(player)
    assert [entry[1] for entry in log] == [0, 0, 1]  # seating 1's set played both its boards
    assert log[-1] == ("play", 1, frozenset())  # and was gone when board 1 was played again


def test_control_without_forgetting_the_knowing_set_is_alive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    player, log = _fake_player(monkeypatch)

    async def keep_everything(self: GamePlayer, deal: Any, keep: Any) -> None:
        return None

    monkeypatch.setattr(GamePlayer, "_forget", keep_everything)
    _play_seatings(player)
    assert log[-1] == ("play", 1, frozenset({0}))
