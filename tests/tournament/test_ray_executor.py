"""The Ray executor on a real multi-node Ray cluster on this machine.

The cluster is started once for the module with Ray's own command line, as an operator
would (``tests/tournament/ray_support.py``): ``ray start --head`` and a second node with
``ray start --address``, each in a temporary directory of its own, on free ports, with token
authentication set up explicitly and health checks short enough that a killed node is
noticed in seconds. The runner joins it by its explicit address, so no
``/tmp/ray/ray_current_cluster`` left by another cluster is ever read. Every Ray process is
killed and every directory removed afterwards, whatever happened.

Each node has its own version cache (``ARENA_NODE_CACHE``), so a version found in a node's
cache shows that the node played. The bots are three copies of ``random_bot`` (seeded:
deterministic) whose program has a name no other test uses, so a scan of ``/proc`` finds any
bot process left behind on any node.

Without Ray the tests are skipped, or fail with ``CI=true`` (``make venv`` installs it).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import os
import secrets
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest

from arena import storage
from arena.cli import main
from arena.cli.executors import open_executor
from arena.protocol.grpc_env import LISTENER_EXPERIMENT
from arena.storage.database import open_database
from arena.tournament.executor import LocalProcessExecutor
from arena.tournament.ray_executor import (
    RayExecutor,
    RayUnavailableError,
    check_reachable,
    describe_ray,
)
from arena.tournament.runner import run_tournament
from tests.migrated_sqlite import migrated_sqlite_url
from tests.tournament.ray_support import (
    FAST_HEALTH_CHECKS,
    Cluster,
    Node,
    free_port,
    local_cluster,
)

ROOT = Path(__file__).resolve().parents[2]
BOT_PROGRAM = "ray_test_bot.py"
"""The copies' program: a name only this module's bots have."""
NAMES = ("ray_a", "ray_b", "ray_c")
CREATE = ["--bots", ",".join(NAMES), "--boards", "2", "--seed", "14",
          # Generous limits: a timeout under load would change a record legitimately.
          "--time-control", "decision=5000,bank=60000,grace=500,startup=30000"]  # fmt: skip
GAMES = 12  # 1 table x 2 boards x 6 seatings


def require_ray() -> None:
    """Skip without Ray; fail with ``CI=true``, where ``make venv`` installed it."""
    # Found, not imported: Ray reads its authentication settings from the environment when
    # it is first imported, so the runner imports it only once the module's token is set.
    if importlib.util.find_spec("ray") is None:
        message = "Ray is not installed (pip install -e '.[ray]')"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head and a second node (one CPU each), token authentication on; the runner's
    environment carries the token while the module runs."""
    require_ray()
    with local_cluster(FAST_HEALTH_CHECKS) as found:
        yield found


def _copies(source: Path) -> None:
    """Three differently named copies of random_bot, run as :data:`BOT_PROGRAM`."""
    for name in NAMES:
        target = source / name
        shutil.copytree(ROOT / "sample_bots" / "random_bot", target)
        (target / "bot.py").rename(target / BOT_PROGRAM)
        toml = (target / "bot.toml").read_text()
        toml = toml.replace('"random_bot"', f'"{name}"').replace("bot.py", BOT_PROGRAM)
        (target / "bot.toml").write_text(toml)


@dataclass
class Arena:
    """One database and data directory with the three bots submitted once: tournaments
    with equal settings must have equal records, but for their ids."""

    url: str
    data: Path

    def create(self, name: str) -> None:
        args = ["tournament", "create", name, *CREATE, "--db", self.url, "--data", str(self.data)]
        assert main(args) == 0

    def records(self, name: str) -> list[tuple[int, dict[str, Any]]]:
        """Every stored record of *name*, without what legitimately differs between runs
        (clocks and logs) and its ids, checked here: ``<tournament>-<schedule index>``,
        whoever played it."""
        engine = open_database(self.url)
        tournament = storage.get_tournament(engine, name)
        found = []
        for index, record in storage.tournament_records(engine, storage.row_id(tournament)):
            assert record["game_id"] == record["match_id"] == f"{name}-{index:06d}"
            drop = ("timings", "bot_logs", "game_id", "match_id")
            found.append((index, {k: v for k, v in record.items() if k not in drop}))
        return found


@pytest.fixture(scope="module")
def arena_db(tmp_path_factory: pytest.TempPathFactory) -> Arena:
    work = tmp_path_factory.mktemp("ray-arena")
    _copies(work / "source")
    found = Arena(migrated_sqlite_url(work / "data" / "arena.db"), work / "data")
    for bot in NAMES:
        args = ["bot", "submit", str(work / "source" / bot), "--db", found.url]
        assert main([*args, "--data", str(found.data)]) == 0
    return found


@pytest.fixture(scope="module")
def local_records(arena_db: Arena) -> list[tuple[int, dict[str, Any]]]:
    """The tournament played by the local pool: what every Ray run must reproduce."""
    arena_db.create("local")
    asyncio.run(run_tournament(open_database(arena_db.url), "local", LocalProcessExecutor(2)))
    records = arena_db.records("local")
    assert [i for i, _ in records] == list(range(GAMES))
    return records


def _bot_processes() -> list[str]:
    """Live processes running this module's bot program, anywhere on this machine."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and any(arg.endswith(BOT_PROGRAM.encode()) for arg in argv):
            found.append(f"{entry}: {b' '.join(argv).decode(errors='replace')}")
    return found


def _actor_grpc_experiments() -> list[str]:
    """``GRPC_EXPERIMENTS`` in the environment of every live game-slot actor process
    playing a game of the tournament ``killed``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            # An actor's process title is the task it runs: ray::<tournament>-<game>.
            if not Path(f"/proc/{entry}/cmdline").read_bytes().startswith(b"ray::killed-"):
                continue
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        values = [v for v in environ if v.startswith(b"GRPC_EXPERIMENTS=")]
        found.append(values[0].decode().partition("=")[2] if values else "<unset>")
    return found


def _assert_no_bot_survives(wait_s: float = 15.0) -> None:
    deadline = time.monotonic() + wait_s
    while alive := _bot_processes():
        assert time.monotonic() < deadline, f"bot processes outlived their games: {alive}"
        time.sleep(0.1)


def _cached(node: Node) -> set[str]:
    """The versions a node made ready (its cache's folders)."""
    if not node.cache.is_dir():
        return set()
    return {p.name for p in node.cache.iterdir() if not p.name.startswith(".")}


def test_a_tournament_across_two_nodes_then_with_one_killed_mid_run(
    cluster: Cluster, arena_db: Arena, local_records: list[tuple[int, dict[str, Any]]]
) -> None:
    """One test, so that the suite's workers (pytest-xdist hands out tests one by one)
    start one cluster, not one each.

    1. Through the command line, as an operator runs it: every game stored once, each
       record equal to the local pool's, both nodes played (each made the versions ready
       in its own cache), no bot process left on either node.
    2. Again, and the second node is SIGKILLed (its raylet and agents) once it has played a
       game, so it is playing the next: its game is played again on the head, every game
       is still stored exactly once with the local pool's record, and no bot process
       survives anywhere, the killed node's included.
    """
    head, second = cluster.nodes
    arena_db.create("ray")
    run = ["tournament", "run", "ray", "--executor", "ray", "--ray-address", cluster.address,
           "--parallel", "2", "--db", arena_db.url, "--data", str(arena_db.data)]  # fmt: skip
    assert main(run) == 0
    cluster.remember_processes()
    assert arena_db.records("ray") == local_records
    engine = open_database(arena_db.url)
    versions = {
        v.checksum.removeprefix("v2:")
        for v in storage.entries(engine, storage.row_id(storage.get_tournament(engine, "ray")))
    }
    assert len(versions) == 3
    for node in (head, second):
        assert _cached(node) == versions, f"{node.log.stem} never played a game"
    _assert_no_bot_survives()

    arena_db.create("killed")
    tournament_id = storage.row_id(storage.get_tournament(engine, "killed"))
    executor = RayExecutor(cluster.address, 2)
    # Bot processes alive when the node is killed: the control that the scan for
    # survivors sees this module's bots at all.
    playing: list[str] = []
    actor_experiments: list[str] = []

    async def kill_once_it_played() -> str:
        """SIGKILL the second node once it finished a game (so it is playing the next)."""
        while True:
            mine = [n for n, info in executor.nodes.items() if info["cache"] == str(second.cache)]
            if mine and mine[0] in executor.played_on.values():
                cluster.remember_processes()
                playing.extend(_bot_processes())
                actor_experiments.extend(_actor_grpc_experiments())
                second.kill()
                return mine[0]
            await asyncio.sleep(0.02)

    async def play() -> str:
        killer = asyncio.create_task(kill_once_it_played())
        try:
            await run_tournament(engine, "killed", executor)
        finally:
            killer.cancel()
        return await killer

    try:
        killed = asyncio.run(asyncio.wait_for(play(), 180))
    finally:
        executor.close()
    assert arena_db.records("killed") == local_records
    assert sorted(storage.stored_indexes(engine, tournament_id)) == list(range(GAMES))
    assert storage.get_tournament(engine, "killed").arena_faults >= 1, "no game lost in flight"
    survivors = [i for i, node in executor.played_on.items() if node != killed]
    assert len(survivors) >= GAMES // 2, "the head did not take over"
    assert playing, "the scan for bot processes found none while games were played"
    _assert_no_bot_survives()
    # The actors' referees run with the referee's gRPC settings (Ray imports grpc first).
    assert actor_experiments, "the scan found no game-slot actor"
    assert all(f"-{LISTENER_EXPERIMENT}" in value for value in actor_experiments)


# ---------------------------------------------------------------------------------------
# One-line refusals, before anything runs (no cluster needed)
# ---------------------------------------------------------------------------------------


def test_the_ray_executor_needs_an_address() -> None:
    with (
        pytest.raises(click.BadParameter, match="--ray-address HOST:PORT"),
        open_executor("ray", None, 2),
    ):
        pass


def test_an_unreachable_head_is_one_line_at_once() -> None:
    require_ray()
    port = free_port()  # nothing listens there
    start = time.monotonic()
    with (
        pytest.raises(click.ClickException) as caught,
        open_executor("ray", f"127.0.0.1:{port}", 2),
    ):
        pass
    assert caught.value.message == (
        f"no Ray cluster at 127.0.0.1:{port}: Connection refused "
        "(is `ray start --head` running there?)"
    )
    assert time.monotonic() - start < 5  # Ray itself would retry for minutes
    for malformed in ("ray://somewhere", "auto", "no-port"):  # auto: a stale file's cluster
        with pytest.raises(RayUnavailableError, match="give the head's HOST:PORT"):
            check_reachable(malformed)


def test_without_ray_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets without Ray
    with pytest.raises(click.ClickException) as caught, open_executor("ray", "127.0.0.1:6379", 2):
        pass
    assert caught.value.message == "Ray is not installed here (pip install 'arena952[ray]')"


def test_doctor_says_which_cluster_this_machine_would_join(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_ray()
    token = secrets.token_hex(32)
    monkeypatch.setenv("ARENA_RAY_ADDRESS", "ray-head:6379")
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", token)
    monkeypatch.setenv("ARENA_NODE_CACHE", "/var/cache/arena952/versions")
    line = describe_ray()
    assert line.startswith("ray: 2.60.")
    assert "cluster: ray-head:6379 ($ARENA_RAY_ADDRESS)" in line
    assert "RAY_AUTH_MODE=token, token from RAY_AUTH_TOKEN" in line
    assert "cached in /var/cache/arena952/versions" in line
    assert token not in line  # the secret itself is never printed

    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert describe_ray() == (
        "ray: not installed (for --executor ray and Ray nodes: pip install 'arena952[ray]')"
    )
