"""The adversarial zoo: bots that attack the machine, the referee, the records and each
other, each played through real matches (tournament style: a fresh process per game)
under every sandbox profile this machine supports.

Every test checks that the attack is contained, that it is recorded as the right fault
(or as no fault where the sandbox merely blocks it, with the bot's own report proving it
was blocked), that no process of the bot outlives the match, that the private
directories are wiped, and that every game completes and replays. The controls run a few
attacks with the sandbox off, to prove the zoo would notice a breach.

Each zoo bot (tests/sandbox/zoo/<name>) writes what it tried and what happened on stderr
(``ZOO-...`` lines), which the referee keeps with each game record.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.game.policies import RandomPolicy
from arena.referee.match import MatchResult, PolicySeat, SeatSpec
from arena.referee.timecontrol import TimeControl
from arena.sandbox import cgroups
from arena.sandbox.config import Layer
from tests.referee.zoo_support import check_game
from tests.sandbox.sandbox_support import (
    FAST,
    LIMITS,
    NAMESPACES,
    OFF,
    PATIENT,
    PROFILES,
    ROOT,
    Profile,
    config,
    leftovers,
    random_bot,
    require,
    require_any,
    run,
    stderr_of,
    zoo_bot,
)

# Tests whose subject is the same under every profile run once, under the first.
_ONE_PROFILE = {
    "test_memory_cgroup_alone_stops_the_hog",
    "test_control_without_sandbox_the_snoop_reads_secrets",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every zoo test under each sandbox profile (once for the few in _ONE_PROFILE)."""
    if "profile" in metafunc.fixturenames:
        one = metafunc.definition.name in _ONE_PROFILE
        metafunc.parametrize("profile", PROFILES[:1] if one else PROFILES, ids=lambda p: p.name)


@pytest.fixture(autouse=True)
def _no_private_dir_left(private_dirs: list[Path]) -> None:
    """Every private directory a test's bots got is wiped by the end of the match."""


def seats_with(bad: SeatSpec, seat: int, tmp_path: Path) -> list[SeatSpec]:
    """*bad* at *seat*, a random bot process and a built-in random policy elsewhere."""
    others: list[SeatSpec] = [random_bot(tmp_path), PolicySeat(RandomPolicy(5))]
    others.insert(seat, bad)
    return others


def contained(result: MatchResult, tmp_path: Path, seat: int, games: int = 2) -> None:
    """Nothing left running, every game finished and replays, only *seat* faulted."""
    assert leftovers(tmp_path) == [], "a bot process survived the match"
    assert len(result.records) == games
    for record in result.records:
        check_game(record)
        assert [f for f in record["faults"] if f["seat"] != seat] == [], record["faults"]


def faults_of(result: MatchResult, seat: int) -> list[dict[str, Any]]:
    """Every fault of *seat* over the match."""
    return [f for r in result.records for f in r["faults"] if f["seat"] == seat]


# ---------------------------------------------------------------------------------------
# Resources: processes, memory, CPU
# ---------------------------------------------------------------------------------------


def test_fork_bomb_is_capped(profile: Profile, tmp_path: Path) -> None:
    """The bomb gets at most the process cap, the bot plays on, and the kill at the end
    of each game reaches every process of the bomb."""
    require_any(profile, Layer.UID, Layer.CGROUP)
    seat = 1
    result = run(seats_with(zoo_bot("forkbomb", tmp_path), seat, tmp_path), config(profile))
    contained(result, tmp_path, seat)
    # A bomber on a loaded machine may report after its game's record is cut: its line
    # then lands in the next game's log. Every report, wherever it landed, must show the cap.
    logs = "".join(stderr_of(record, seat) for record in result.records)
    found = re.findall(r"ZOO-FORKBOMB forks=(\d+) error=(\w+)", logs)
    assert found, logs[-500:]
    for forks, error in found:
        assert int(forks) < LIMITS.processes, "more processes than the cap"
        assert error == "EAGAIN"
    assert faults_of(result, seat) == [], "a capped fork bomb costs the bot nothing else"


def test_memory_hog_crashes_at_the_cap(profile: Profile, tmp_path: Path) -> None:
    """The hog is stopped near the memory cap (MemoryError at RLIMIT_DATA, or the OOM
    killer of its cgroup) and recorded as a crash at the decision it was making."""
    require(profile)
    seat = 0
    match = config(profile, time_control=PATIENT)
    result = run(seats_with(zoo_bot("memhog", tmp_path), seat, tmp_path), match)
    contained(result, tmp_path, seat)
    cap_mb = LIMITS.memory_bytes >> 20
    for record in result.records:
        (fault,) = record["faults"]
        assert fault["kind"] == "crash", fault
        reached = [int(mb) for mb in re.findall(r"ZOO-MEM mb=(\d+)", stderr_of(record, seat))]
        assert reached, stderr_of(record, seat)[-500:]
        assert max(reached) <= cap_mb, f"allocated {max(reached)} MiB under a {cap_mb} MiB cap"


def test_memory_cgroup_alone_stops_the_hog(profile: Profile, tmp_path: Path) -> None:
    """Without rlimits, the cgroup's memory cap stops the hog (the OOM killer): a crash."""
    require(profile, Layer.CGROUP)
    seat = 0
    no_rlimits = Profile(
        "cgroup-only",
        replace(profile.config, disable=profile.config.disable | {Layer.RLIMITS}),
        profile.needs,
    )
    # Reclaim before the OOM kill can take a while: a long allowance keeps it a crash,
    # not a timeout.
    slow = TimeControl(decision_ms=10000, bank_ms=0, grace_ms=50, startup_ms=5000)
    match = config(no_rlimits, time_control=slow)
    result = run(seats_with(zoo_bot("memhog", tmp_path), seat, tmp_path), match)
    contained(result, tmp_path, seat)
    cap_mb = LIMITS.memory_bytes >> 20
    for record in result.records:
        (fault,) = record["faults"]
        assert fault["kind"] == "crash", fault
        log = stderr_of(record, seat)
        assert "MemoryError" not in log, "the cgroup, not RLIMIT_DATA, stopped it"
        reached = [int(mb) for mb in re.findall(r"ZOO-MEM mb=(\d+)", log)]
        assert reached and max(reached) <= cap_mb, log[-300:]


def test_cpu_spinner_is_killed_at_its_cpu_limit(profile: Profile, tmp_path: Path) -> None:
    """A child that spins while the bot waits for its turn dies of SIGXCPU at the CPU
    limit; the bot itself plays on without a fault. (The bot holds its first decision
    until the child has ended: a busy machine gives the child its second of CPU late.)"""
    require(profile)
    seat = 2
    limits = replace(LIMITS, cpu_seconds=1)
    match = config(profile, games=1, limits=limits, time_control=PATIENT)
    result = run(seats_with(zoo_bot("spinner", tmp_path), seat, tmp_path), match)
    contained(result, tmp_path, seat, games=1)
    log = stderr_of(result.records[0], seat)
    ended = re.findall(r"ZOO-SPIN ended signal=(\d+) cpu=([\d.]+)", log)
    assert ended, log[-500:]
    signal_number, cpu = int(ended[0][0]), float(ended[0][1])
    assert signal_number == 24, "SIGXCPU"  # the soft limit; SIGKILL would follow at 2 s
    assert cpu <= 1.5
    assert faults_of(result, seat) == []


# ---------------------------------------------------------------------------------------
# Outliving the game
# ---------------------------------------------------------------------------------------


def test_daemon_does_not_outlive_its_game(profile: Profile, tmp_path: Path) -> None:
    """A double-forked daemon in a session of its own dies with its game (pid namespace,
    cgroup kill or the uid sweep), and its open stdout/stderr do not stall the referee."""
    require_any(profile, Layer.BWRAP, Layer.CGROUP, Layer.UID)
    seat = 0
    result = run(seats_with(zoo_bot("daemon", tmp_path), seat, tmp_path), config(profile))
    contained(result, tmp_path, seat)
    assert faults_of(result, seat) == []


REFEREE = """
import asyncio, sys
from arena.referee.gameloop import GameLoop
from arena.referee.manifest import load_manifest
from tests.sandbox.sandbox_support import {profile}, config, run
from arena.referee.timecontrol import TimeControl
broadcast = GameLoop._broadcast
def started(*args):  # every bot has said Hello (the daemon bot forks before it does)
    print("ALL BOTS CONNECTED", flush=True)
    broadcast(*args)
GameLoop._broadcast = started
slow = TimeControl(decision_ms=60000, bank_ms=0, grace_ms=50, startup_ms=10000)
run([load_manifest(p) for p in sys.argv[1:]], config({profile}, games=1, time_control=slow))
"""


def test_bots_die_with_a_killed_referee(profile: Profile, tmp_path: Path) -> None:
    """SIGKILL to the referee mid-game: the kernel takes every bot process with it
    (parent-death signal; with bubblewrap, die-with-parent and the pid namespace, which
    take daemons too). Without a pid namespace a daemon that left the session survives
    until the next referee starts and sweeps the dead referee's cgroups; under pytest-xdist
    that next referee may be another worker's, so the test accepts either sweeper."""
    active = require_any(profile, Layer.BWRAP, Layer.CGROUP)
    sleeper = tmp_path / "bots" / "sleeper"
    shutil.copytree(ROOT / "tests" / "referee" / "zoo" / "sleeper", sleeper)
    daemon = zoo_bot("daemon", tmp_path).directory
    bots = [str(sleeper), str(daemon), str(random_bot(tmp_path).directory)]
    code = REFEREE.format(profile=profile.name.upper())
    referee = subprocess.Popen(
        [sys.executable, "-c", code, *bots], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert referee.stdout is not None
        assert referee.stdout.readline() == "ALL BOTS CONNECTED\n"  # so the daemon is forked
        found = cgroups.hierarchy() if Layer.BWRAP not in active else None
        dead = [] if found is None else [p.parent / cgroups.referee_name(referee.pid)
                                         for p in found.bases.values()]  # fmt: skip
        assert all(path.is_dir() for path in dead), dead  # named so while it lives
        time.sleep(0.5)  # the sleeper is now thinking for 30 s
    finally:
        referee.kill()
        referee.wait()
    if Layer.BWRAP not in active:
        assert found is not None and dead
        time.sleep(0.2)  # the direct children die of their parent-death signal first
        # What is left in the dead referee's cgroups is its daemon (it may run from a
        # private copy of its directory, so it is found by cgroup, not by path). Another
        # test worker's referee may sweep it first; either way, the sweep takes it.
        survivors = _pids_in(dead)
        cgroups.sweep_stale(found)  # what the next referee does as it starts
        for _ in range(200):
            if not any(path.exists() for path in dead) and not _alive(survivors):
                break
            time.sleep(0.05)
        unswept = [str(path) for path in dead if path.exists()]
        assert not unswept and not _alive(survivors), (unswept, _alive(survivors))
    for _ in range(100):
        if not leftovers(tmp_path):
            break
        time.sleep(0.05)
    assert leftovers(tmp_path) == []


def _pids_in(cgroup_dirs: list[Path]) -> set[int]:
    """Every process in the bot cgroups under *cgroup_dirs* (gone ones are skipped)."""
    pids: set[int] = set()
    for directory in cgroup_dirs:
        for procs in directory.glob("bot-*/cgroup.procs"):
            with contextlib.suppress(OSError):
                pids.update(int(pid) for pid in procs.read_text().split())
    return pids


def _alive(pids: set[int]) -> list[int]:
    """Those of *pids* still running (not gone, not a zombie)."""
    alive = []
    for pid in pids:
        with contextlib.suppress(OSError):
            if "State:\tZ" not in Path(f"/proc/{pid}/status").read_text():
                alive.append(pid)
    return alive


# ---------------------------------------------------------------------------------------
# The network
# ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def listeners() -> Iterator[tuple[socket.socket, socket.socket, socket.socket | None]]:
    """A TCP and a UDP socket on 127.0.0.1 and a TCP one on [::1] (if there is IPv6)."""
    tcp = socket.create_server(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    tcp6 = None
    with contextlib.suppress(OSError):
        tcp6 = socket.create_server(("::1", 0), family=socket.AF_INET6)
    for sock in (tcp, udp, tcp6):
        if sock is not None:
            sock.setblocking(False)
    try:
        yield tcp, udp, tcp6
    finally:
        for sock in (tcp, udp, tcp6):
            if sock is not None:
                sock.close()


def reached(tcp: socket.socket, udp: socket.socket, tcp6: socket.socket | None) -> list[str]:
    """Which listener a bot reached."""
    hits = []
    for name, sock in (("tcp4", tcp), ("tcp6", tcp6)):
        with contextlib.suppress(BlockingIOError):
            if sock is not None:
                sock.accept()[0].close()
                hits.append(name)
    with contextlib.suppress(BlockingIOError):
        udp.recv(100)
        hits.append("udp")
    return hits


def play_netcat(profile: Profile, tmp_path: Path, listen: str | None = None) -> list[str]:
    """Play two games with netcat at seat 1; what it reached, per the listeners."""
    seat = 1
    with listeners() as (tcp, udp, tcp6):
        bot = zoo_bot("netcat", tmp_path)
        targets = {"tcp": [tcp.getsockname()[1]], "udp": [udp.getsockname()[1]]}
        if tcp6 is not None:
            targets["tcp6"] = [tcp6.getsockname()[1]]
        (bot.directory / "targets.json").write_text(repr(targets).replace("'", '"'))
        result = run(seats_with(bot, seat, tmp_path), config(profile, listen=listen))
        contained(result, tmp_path, seat)
        assert faults_of(result, seat) == []
        hits = reached(tcp, udp, tcp6)
    for record in result.records:
        lines = dict(re.findall(r"ZOO-NET (\S+)=(\S+)", stderr_of(record, seat)))
        assert "netlink" in lines, stderr_of(record, seat)[-500:]
        if profile is not OFF:
            assert [k for k, v in lines.items() if v == "ok"] == [], lines
    return hits


def test_network_is_unreachable(profile: Profile, tmp_path: Path) -> None:
    """No TCP, UDP or netlink: only the referee's unix socket."""
    require(profile)
    assert play_netcat(profile, tmp_path) == []


def test_referee_on_tcp_is_the_only_reachable_port(profile: Profile, tmp_path: Path) -> None:
    """With the referee listening on TCP the bot reaches it, and nothing else on loopback
    (Landlock's TCP rule; bubblewrap must share the network then)."""
    active = require(profile, Layer.LANDLOCK)
    assert Layer.LANDLOCK in active or profile is NAMESPACES
    assert play_netcat(profile, tmp_path, listen="127.0.0.1:0") == []


# ---------------------------------------------------------------------------------------
# Files and other processes
# ---------------------------------------------------------------------------------------


@pytest.fixture
def secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """World-readable secrets outside the bot's directory (so only the sandbox, not file
    permissions, keeps them), a secret in the referee's environment and one in another
    process's command line (as a database URL would be)."""
    base = Path(tempfile.mkdtemp(prefix="zoo-secrets-"))
    base.chmod(0o755)
    (base / "records").mkdir(mode=0o755)
    files = {
        base / "arena.db": "SECRET-DATABASE-4d1f",
        base / "records" / "7.json": "SECRET-RECORD-91c2",
    }
    other = random_bot(tmp_path, "other_bot")
    files[other.directory / "secret.txt"] = "SECRET-OTHER-BOT-0b7e"
    for path, text in files.items():
        path.write_text(text)
        path.chmod(0o644)
    monkeypatch.setenv("ARENA_TEST_SECRET", "SECRET-REFEREE-ENV-5a3d")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "postgresql://u:SECRET-URL-77e0@db"]
    )
    try:
        yield {
            "files": [*map(str, files), "/etc/shadow", f"/proc/{os.getpid()}/environ"],
            "dirs": [str(base / "records"), str(other.directory), "/root"],
            "sentinels": [*files.values(), "SECRET-REFEREE-ENV-5a3d", "SECRET-URL-77e0"],
            "other": other,
        }
    finally:
        holder.kill()
        holder.wait()
        for path in files:
            path.unlink(missing_ok=True)
        (base / "records").rmdir()
        base.rmdir()


def play_snoop(profile: Profile, tmp_path: Path, targets: dict[str, Any]) -> str:
    """Two games of snoop (seat 2) against the other bot; everything snoop wrote."""
    seat = 2
    bot = zoo_bot("snoop", tmp_path)
    plan = {"files": targets["files"], "dirs": targets["dirs"]}
    (bot.directory / "targets.json").write_text(repr(plan).replace("'", '"'))
    seats: list[SeatSpec] = [targets["other"], PolicySeat(RandomPolicy(5)), bot]
    result = run(seats, config(profile))
    contained(result, tmp_path, seat)
    assert faults_of(result, seat) == []
    logs = "".join(stderr_of(r, seat) for r in result.records)
    tried = re.findall(r"ZOO-READ path=(\S+) result=(\S+)", logs)
    assert {p for p, _ in tried} >= set(targets["files"]) | set(targets["dirs"]), logs[-800:]
    return logs


def test_no_file_or_secret_outside_the_bot_is_readable(
    profile: Profile, tmp_path: Path, secrets: dict[str, Any]
) -> None:
    """The database, the records, another bot's files, the referee's environment and
    other processes' command lines stay out of reach (no fault: the reads just fail)."""
    require_any(profile, Layer.BWRAP, Layer.LANDLOCK)
    logs = play_snoop(profile, tmp_path, secrets)
    for sentinel in secrets["sentinels"]:
        assert sentinel not in logs, f"the bot read {sentinel}"
    assert "ARENA_TOKEN" not in logs, "the bot saw a token in another process"


def test_control_without_sandbox_the_snoop_reads_secrets(
    profile: Profile, tmp_path: Path, secrets: dict[str, Any]
) -> None:
    """Control: with the sandbox off the same bot reads them, so the test above would
    notice a breach."""
    del profile  # a control needs no sandbox profile; it runs once
    logs = play_snoop(OFF, tmp_path, secrets)
    assert "SECRET-DATABASE-4d1f" in logs and "SECRET-OTHER-BOT-0b7e" in logs


def test_nothing_persists_from_one_game_to_the_next(profile: Profile, tmp_path: Path) -> None:
    """A file left in one game (its directory is read-only; HOME, TMPDIR and /tmp are
    private to the process) is not there in the next."""
    require_any(profile, Layer.BWRAP, Layer.LANDLOCK)
    seat = 1
    result = run(seats_with(zoo_bot("persist", tmp_path), seat, tmp_path), config(profile))
    contained(result, tmp_path, seat)
    assert faults_of(result, seat) == []
    bot_dir = str(tmp_path / "bots" / "persist")
    for record in result.records:
        log = stderr_of(record, seat)
        found = re.findall(r"ZOO-PERSIST found=(\S+)", log)
        wrote = re.findall(r"ZOO-PERSIST wrote=(\S+)", log)
        assert found == ["-"], log[-500:]
        assert wrote and bot_dir not in wrote[0].split(","), "its directory must be read-only"
    for place in ("/tmp", "/var/tmp", "/dev/shm", bot_dir):
        assert not os.path.exists(os.path.join(place, "zoo-persist.txt")), place


def play_diskfill(
    profile: Profile, tmp_path: Path, target_mib: int
) -> list[tuple[str, int, str, int]]:
    """One game of diskfill at seat 0; ``(place, bytes written, errno, filesystem size)``."""
    seat = 0
    bot = zoo_bot("diskfill", tmp_path)
    (bot.directory / "target.json").write_text(f'{{"target_mib": {target_mib}}}')
    slow_start = replace(FAST, startup_ms=20000)  # the control writes to the host's disk
    match = config(profile, games=1, time_control=slow_start)
    result = run(seats_with(bot, seat, tmp_path), match)
    contained(result, tmp_path, seat, games=1)
    assert faults_of(result, seat) == []
    log = stderr_of(result.records[0], seat)
    found = re.findall(r"ZOO-DISK place=(\S+) wrote=(\d+) error=(\S+) fs_bytes=(-?\d+)", log)
    assert found, log[-500:]
    return [(place, int(wrote), error, int(size)) for place, wrote, error, size in found]


def test_every_writable_place_has_a_size_limit(profile: Profile, tmp_path: Path) -> None:
    """HOME, TMPDIR and /tmp each take at most their size (``home_bytes``, ``tmp_bytes``):
    the write past it fails with ENOSPC, on a filesystem no larger than the limit (so the
    host's disk does not grow); other places are not writable at all."""
    require(profile)
    limit = max(LIMITS.home_bytes, LIMITS.tmp_bytes)
    target_mib = 3 * limit >> 20
    places = play_diskfill(profile, tmp_path, target_mib)
    assert {p for p, _, _, _ in places} >= {"/tmp"}, places
    for place, wrote, error, size in places:
        assert wrote <= limit, f"{place}: wrote {wrote} bytes past the {limit}-byte limit"
        if wrote > 0:
            assert error in ("ENOSPC", "EFBIG"), (place, error)
            assert 0 < size <= limit, f"{place} is on a {size}-byte filesystem"
        else:
            assert error in ("EACCES", "EROFS", "ENOENT", "EPERM"), (place, error)


def test_control_without_sandbox_the_disk_fills(tmp_path: Path) -> None:
    """Control: with the sandbox off the same bot writes past every limit."""
    limit = max(LIMITS.home_bytes, LIMITS.tmp_bytes)
    places = play_diskfill(OFF, tmp_path, 2 * limit >> 20)
    assert any(wrote == 2 * limit and error == "none" for _, wrote, error, _ in places), places


# ---------------------------------------------------------------------------------------
# The protocol: huge messages, floods, second connections and stolen tokens
# ---------------------------------------------------------------------------------------


def test_huge_message_is_a_crash(profile: Profile, tmp_path: Path) -> None:
    """A reply over 1 MiB ends the stream (RESOURCE_EXHAUSTED): a crash at that decision."""
    require(profile)
    seat = 1
    result = run(seats_with(zoo_bot("bigmsg", tmp_path), seat, tmp_path), config(profile))
    contained(result, tmp_path, seat)
    for record in result.records:
        (fault,) = record["faults"]
        assert fault["kind"] == "crash", fault
        assert fault["hand"] == 1
        assert "RESOURCE_EXHAUSTED" in fault["stderr_tail"], fault
        assert "ZOO-MISBEHAVES decision=play hand=1" in stderr_of(record, seat)
        assert record["timings"]["decision_ms"][seat] == []


def test_firehose_is_capped_and_plays_on(profile: Profile, tmp_path: Path) -> None:
    """Unbounded stdout and stderr: the logs stay at the cap, the match completes in
    time, and the flood costs the bot no fault."""
    require(profile)
    seat, cap = 0, 16 * 1024
    match = config(profile, log_cap=cap)
    result = run(seats_with(zoo_bot("firehose", tmp_path), seat, tmp_path), match)
    contained(result, tmp_path, seat)
    kept = 0
    for record in result.records:
        logs = record["bot_logs"][seat]
        kept += len(logs["stdout"].encode()) + len(logs["stderr"].encode())
        assert record["timings"]["decision_ms"][seat], "the firehose played"
    assert kept <= cap
    assert result.records[-1]["bot_logs"][seat]["dropped_bytes"] > 1 << 20
    assert faults_of(result, seat) == []


def test_second_connection_and_stolen_tokens_are_refused(profile: Profile, tmp_path: Path) -> None:
    """Connecting again with its own token is refused (UNAUTHENTICATED, and no fault: the
    first stream goes on), and no other seat's token is ever visible to it."""
    require_any(profile, Layer.BWRAP, Layer.UID, Layer.LANDLOCK)
    seat = 2
    seats: list[SeatSpec] = [random_bot(tmp_path), random_bot(tmp_path, "random_bot_2")]
    seats.append(zoo_bot("thief", tmp_path))
    result = run(seats, config(profile, games=3))
    contained(result, tmp_path, seat, games=3)
    for record in result.records:
        log = stderr_of(record, seat)
        assert re.findall(r"ZOO-THIEF second=(\w+)", log) == ["UNAUTHENTICATED"], log[-500:]
        assert "token-seen" not in log and "stole" not in log
        assert record["faults"] == []
        assert all(record["timings"]["decision_ms"][s] for s in range(3)), "every bot played"


def test_timing_of_a_sandboxed_start_fits_the_startup_limit(
    profile: Profile, tmp_path: Path
) -> None:
    """Sanity: a well-behaved bot under the profile connects well inside FAST's startup
    limit, in every game (the sandbox's start-up cost is small)."""
    require(profile)
    seat = 0
    result = run(seats_with(random_bot(tmp_path, "plain"), seat, tmp_path), config(profile))
    contained(result, tmp_path, seat)
    assert faults_of(result, seat) == []
    assert FAST.startup_ms >= 1000
