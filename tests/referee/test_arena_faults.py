"""Connection floods, the referee's descriptors, arena faults and records that survive
a fault of the arena's own, and the line of a fault for a 100 MiB message.

Real bot processes over real gRPC throughout. The matches that must hit a descriptor
limit or be killed run ``arena match`` in a process of its own (``prlimit`` lowers its
limit only), with a few lines of Python run first where a control turns a protection off
or a fault of the arena is injected.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.game import PRESETS
from arena.referee.errors import ArenaFault
from arena.referee.manifest import load_manifest
from arena.referee.match import MatchConfig, SeatSpec, play_match
from arena.referee.timecontrol import TimeControl
from arena.referee.wire import descriptors_needed
from arena.sandbox import uids
from arena.sandbox.config import Layer, SandboxConfig, SandboxMode
from arena.sandbox.probe import probe
from tests.referee.zoo_support import (
    FAST,
    RANDOM_BOT,
    ROOT,
    check_game,
    config,
    live_processes,
    run,
    zoo_bot,
)
from tests.sandbox.sandbox_support import missing

TIME_CONTROL = "decision=300,bank=1000,grace=50,startup=5000"
NOFILE = 1024
"""The referee's descriptor limit in the flood tests: the flood is about four times that."""
UNPROTECTED = (
    "import arena.referee.wire.doors as doors, arena.referee.gameloop as gameloop\n"
    "import arena.referee.match as match\n"
    "match.reserve_descriptors = gameloop.check_descriptors = lambda needed: None\n"
    "doors.DOOR_CONNECTIONS = 1 << 30\n"
)
"""The control's patch: the old unlimited path (no cap at the door, no descriptor check)."""
FD_LIMIT_HIT = ("File descriptor limit reached", "Too many open files")
"""What gRPC's listener or the referee print when the referee runs out of descriptors."""


def prlimit() -> str:
    """util-linux ``prlimit`` (fails on CI, skips elsewhere, when missing)."""
    found = shutil.which("prlimit")
    if found is None:
        missing("prlimit (util-linux) is not installed")
    assert found is not None
    return found


def arena(
    args: list[str], *, nofile: tuple[int, int] | None = None, prelude: str = ""
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in a process of its own, under a descriptor limit ``(soft, hard)``,
    after running *prelude*."""
    code = f"{prelude}\nfrom arena.cli import main\nraise SystemExit(main())\n"
    command = [sys.executable, "-c", code, *args]
    if nofile is not None:
        command = [prlimit(), f"--nofile={nofile[0]}:{nofile[1]}", "--", *command]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )


def copy_bot(source: Path, tmp_path: Path, name: str) -> str:
    """A private copy of a bot directory (so the process check sees only this test's)."""
    target = tmp_path / "bots" / name
    shutil.copytree(source, target)
    return str(target)


def records(directory: Path) -> list[dict[str, Any]]:
    """The game records written in *directory*, in game order."""
    found = [json.loads(p.read_text()) for p in directory.glob("*.json")]
    return sorted(found, key=lambda r: int(str(r["game_id"]).rsplit("-", 1)[1]))


def flood_match(tmp_path: Path, prelude: str = "") -> tuple[subprocess.CompletedProcess[str], Path]:
    """``arena match`` of the connection flooder (seat 0) and two random bots, 3 games."""
    flooder = copy_bot(Path(__file__).parent / "zoo" / "connflood", tmp_path, "connflood")
    honest = [copy_bot(RANDOM_BOT, tmp_path, f"random_{n}") for n in (1, 2)]
    out = tmp_path / "records"
    args = ["match", flooder, *honest, "--games", "3", "--out", str(out),
            "--time-control", TIME_CONTROL]  # fmt: skip
    done = arena(args, nofile=(NOFILE, NOFILE), prelude=prelude)
    return done, out


def test_a_connection_flood_stays_at_the_flooders_door(tmp_path: Path) -> None:
    """A bot whose children open thousands of connections to the referee's socket (four
    times the referee's whole descriptor limit): the referee survives, every game is
    played and recorded, nothing is charged to the honest bots, and the streams it tried
    are counted against the flooder alone."""
    done, out = flood_match(tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    games = records(out)
    assert len(games) == 3
    for record in games:
        check_game(record)
        assert record["faults"] == [], record["faults"]  # its own stream was never at risk
        assert all(record["timings"]["decision_ms"][seat] for seat in range(3))
        assert record["refused_streams"][1:] == [0, 0]
    assert sum(record["refused_streams"][0] for record in games) == 3
    flooder_log = "".join(record["bot_logs"][0]["stderr"] for record in games)
    assert re.findall(r"ZOO-CONNFLOOD stream=(\w+)", flooder_log) == ["UNAUTHENTICATED"] * 3
    connected = [int(n) for n in re.findall(r"ZOO-CONNFLOOD connected=(\d+)", flooder_log)]
    assert connected and connected[0] > 2 * NOFILE, flooder_log[-500:]
    assert not any(text in done.stderr for text in FD_LIMIT_HIT), done.stderr[-2000:]
    assert "seat 0: 3 extra stream(s) refused at its door" in done.stdout
    assert live_processes(tmp_path) == []


def test_control_without_the_cap_the_flood_exhausts_the_referee(tmp_path: Path) -> None:
    """Control: the same match on the old unlimited path runs the referee out of
    descriptors (gRPC's listener says so), and the match does not end with every game
    recorded."""
    done, out = flood_match(tmp_path, prelude=UNPROTECTED)
    assert any(text in done.stderr for text in FD_LIMIT_HIT), done.stderr[-2000:]
    assert done.returncode != 0 or len(records(out)) < 3
    assert live_processes(tmp_path) == []


@pytest.mark.parametrize(("soft", "hard", "plays"), [(128, 4096, True), (128, 128, False)])
def test_the_referee_raises_its_descriptor_limit_or_says_why_not(
    tmp_path: Path, soft: int, hard: int, plays: bool
) -> None:
    """A soft limit too low for a match is raised to the hard limit; a hard limit too low
    is one clear line (exit status 1), charged to no bot, and nothing stored."""
    assert descriptors_needed(3) > 128  # both cases start below what a match needs
    out = tmp_path / "records"
    bots = [copy_bot(RANDOM_BOT, tmp_path, f"random_{n}") for n in range(3)]
    done = arena(["match", *bots, "--games", "1", "--out", str(out)], nofile=(soft, hard))
    if plays:
        assert done.returncode == 0, done.stderr[-2000:]
        assert len(records(out)) == 1
        return
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("arena: error:")]
    assert len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "charged to no bot" in errors[0] and "RLIMIT_NOFILE" in errors[0], errors[0]
    assert "after 0 finished game(s)" in errors[0]
    assert not out.exists() or records(out) == []


EXHAUST_AFTER_FIRST_RECORD = """
import os
import arena.cli.match as cli
_write = cli.write_record
HELD = []
def write_then_exhaust(directory, record, **options):
    path = _write(directory, record, **options)
    if not HELD:  # the referee's own descriptors run out after game 1
        try:
            while True:
                HELD.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
        for fd in HELD[:4]:
            os.close(fd)
    return path
cli.write_record = write_then_exhaust
"""


def test_an_arena_fault_mid_match_stops_it_with_one_line_and_keeps_the_records(
    tmp_path: Path,
) -> None:
    """Injected: the referee's own descriptors run out after game 1. Game 2 is an arena
    fault (no bot is charged, no record is made of it), the match stops with one line,
    and game 1's record is kept."""
    out = tmp_path / "records"
    bots = [copy_bot(RANDOM_BOT, tmp_path, f"random_{n}") for n in range(3)]
    args = ["match", *bots, "--games", "3", "--out", str(out), "--time-control", TIME_CONTROL]
    done = arena(args, prelude=EXHAUST_AFTER_FIRST_RECORD)
    assert done.returncode == 1, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("arena: error:")]
    assert len(errors) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert errors[0].startswith("arena: error: arena fault in game 2, charged to no bot:")
    assert f"after 1 finished game(s); their records are in {out}" in errors[0]
    (game,) = records(out)
    check_game(game)
    assert game["faults"] == []
    assert live_processes(tmp_path) == []


def _uid_layer() -> None:
    if not probe().layers[Layer.UID].available:
        missing("uid: no bot uids here (the referee is not root)")


def test_no_free_bot_uid_is_an_arena_fault_charged_to_no_bot(tmp_path: Path) -> None:
    """The referee's own spawn fails for the arena's reasons (every bot uid of its range
    is taken): play_match raises ArenaFault, no game is recorded and
    no bot gets a fault. Control: with the uid free, the same match plays."""
    _uid_layer()
    # The one uid of the match's range is leased here first (any free uid outside the
    # default range, so that other matches on the machine are untouched).
    lease = uids.acquire(62900, 63000)
    sandbox = SandboxConfig(SandboxMode.BEST_EFFORT, uid_range=(lease.uid, lease.uid + 1))
    match = MatchConfig(PRESETS["classic"], games=1, seed=5, time_control=FAST, sandbox=sandbox)
    seats: list[SeatSpec] = [zoo_bot("recorder", tmp_path)]
    seats += [load_manifest(copy_bot(RANDOM_BOT, tmp_path, f"random_{n}")) for n in (1, 2)]
    seen: list[dict[str, Any]] = []
    try:
        with pytest.raises(ArenaFault, match=r"could not start recorder@.*bot uids"):
            asyncio.run(play_match(seats, match, seen.append))
    finally:
        lease.close()
    assert seen == []
    assert live_processes(tmp_path) == []
    # Control: with the default range (free uids for all three bots) the match plays.
    default = SandboxConfig(SandboxMode.BEST_EFFORT)
    result = run(seats, MatchConfig(PRESETS["classic"], 1, 5, FAST, sandbox=default))
    assert [record["faults"] for record in result.records] == [[]]


@pytest.mark.parametrize("mode", [SandboxMode.BEST_EFFORT, SandboxMode.OFF])
def test_a_missing_bot_binary_is_still_the_bots_startup_fault(
    tmp_path: Path, mode: SandboxMode
) -> None:
    """A bot whose own command does not exist is charged a startup fault (not an arena
    fault): the match goes on with the autopilot in its seat."""
    broken = tmp_path / "bots" / "nobinary"
    broken.mkdir(parents=True)
    (broken / "bot.toml").write_text(
        "name = 'nobinary'\nversion = '1'\nlanguage = 'c'\nrun = './no-such-binary'\n"
    )
    seats: list[SeatSpec] = [load_manifest(copy_bot(RANDOM_BOT, tmp_path, "random_0"))]
    seats += [load_manifest(broken), load_manifest(copy_bot(RANDOM_BOT, tmp_path, "random_2"))]
    match = MatchConfig(
        PRESETS["classic"], games=2, seed=7, time_control=FAST, sandbox=SandboxConfig(mode)
    )
    result = run(seats, match)
    for record in result.records:
        check_game(record)
        (fault,) = record["faults"]
        assert (fault["seat"], fault["kind"], fault["decision"]) == (1, "startup", "startup")
        assert "no-such-binary" in fault["detail"] or "exited with code" in fault["detail"]
    assert live_processes(tmp_path) == []


def test_finished_games_survive_a_kill_of_the_referee_mid_match(tmp_path: Path) -> None:
    """``arena match`` killed with SIGKILL mid-match: every game finished before the kill
    is on disk, whole, and replays; no bot outlives the referee."""
    out = tmp_path / "records"
    bots = [copy_bot(RANDOM_BOT, tmp_path, f"random_{n}") for n in range(3)]
    code = "from arena.cli import main\nraise SystemExit(main())\n"
    command = [sys.executable, "-c", code, "match", *bots, "--games", "50", "--out", str(out)]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(out.glob("*.json"))) < 2 and time.monotonic() < deadline:
            assert process.poll() is None, "the match ended before it was killed"
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=30)
    games = records(out)
    assert 2 <= len(games) < 50
    assert [int(g["game_id"].rsplit("-", 1)[1]) for g in games] == list(range(1, len(games) + 1))
    for record in games:
        check_game(record)
    deadline = time.monotonic() + 10
    while live_processes(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.1)  # the kernel kills the bots with their parent (pdeathsig)
    assert live_processes(tmp_path) == []


def test_a_100_mib_message_is_named_too_large(tmp_path: Path) -> None:
    """A 100 MiB answer is refused by gRPC: the fault says the message was over the 1 MiB
    limit, with its size, instead of "closed its stream"."""
    seats: list[SeatSpec] = [zoo_bot("hugemsg", tmp_path)]
    seats += [load_manifest(copy_bot(RANDOM_BOT, tmp_path, f"random_{n}")) for n in (1, 2)]
    # Time to send 100 MiB (seconds on a busy machine): the cut, not the clock, must end it.
    patient = TimeControl(decision_ms=60_000, bank_ms=0, grace_ms=50, startup_ms=5000)
    result = run(seats, config(games=1, time_control=patient))
    (record,) = result.records
    check_game(record)
    (fault,) = record["faults"]
    assert (fault["seat"], fault["kind"]) == (0, "crash")
    named = re.fullmatch(
        r"a message of (\d+) bytes, over the 1 MiB limit \(1048576 bytes\): "
        r"gRPC refused it and cut the stream",
        fault["detail"],
    )
    assert named and int(named[1]) > 100 << 20, fault["detail"]
    assert live_processes(tmp_path) == []


def test_control_a_half_close_is_still_a_closed_stream(tmp_path: Path) -> None:
    """Control: a bot that closes its side of the stream instead of answering gets the
    closed-stream line, not the size line (the wording follows what happened)."""
    seats: list[SeatSpec] = [zoo_bot("halfclose", tmp_path)]
    seats += [load_manifest(copy_bot(RANDOM_BOT, tmp_path, f"random_{n}")) for n in (1, 2)]
    result = run(seats, config(games=1))
    (record,) = result.records
    (fault,) = record["faults"]
    assert (fault["seat"], fault["kind"]) == (0, "crash")
    assert fault["detail"] == "the bot closed its stream instead of answering", fault["detail"]
    assert live_processes(tmp_path) == []


def test_a_second_stream_is_refused_and_counted_at_the_door(tmp_path: Path) -> None:
    """A bot that opens more streams (here: the flooder's three made-up tokens, in the
    first game) has each refused and counted for its seat alone, and its own stream plays
    on (in process: the counts reach the match's totals)."""
    seats: list[SeatSpec] = [zoo_bot("connflood", tmp_path)]
    seats += [load_manifest(copy_bot(RANDOM_BOT, tmp_path, f"random_{n}")) for n in (1, 2)]
    # The three refusals and the flood it starts take seconds on a busy machine, and the
    # flood slows the others' turns: a timeout would be a fault this test is not about.
    patient = TimeControl(decision_ms=60_000, bank_ms=0, grace_ms=50, startup_ms=60_000)
    result = run(seats, config(games=2, time_control=patient))
    assert [r["refused_streams"] for r in result.records] == [[3, 0, 0], [0, 0, 0]]
    assert [stats.refused for stats in result.stats] == [3, 0, 0]
    assert all(record["faults"] == [] for record in result.records)
