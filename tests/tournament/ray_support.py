"""A throwaway multi-node Ray cluster on this machine, for the Ray tests and
``benchmarks/tournament.py`` (which imports this file by path).

Started with Ray's own command line, as an operator would: ``ray start --head`` and more
nodes with ``ray start --address``, each in a temporary directory of its own
(``--temp-dir``), on free ports, with token authentication set up explicitly
(``RAY_AUTH_MODE=token`` and a fresh ``RAY_AUTH_TOKEN``, given to the nodes and, while the
cluster runs, to this process). Its address is always given explicitly, so no
``/tmp/ray/ray_current_cluster`` left by another cluster is ever read. Every Ray process and
directory is removed afterwards, whatever happened. Each node has its own version cache
(``ARENA_NODE_CACHE``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.protocol.grpc_env import VARIABLES as GRPC_VARIABLES

NODE_START_S = 60.0
"""How long one ``ray start`` may take on a loaded machine."""
FAST_HEALTH_CHECKS = {
    # A node whose raylet is gone is declared dead after ~2 missed 500 ms checks.
    "RAY_health_check_initial_delay_ms": "0",
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_timeout_ms": "500",
    "RAY_health_check_failure_threshold": "2",
}


class ClusterError(RuntimeError):
    """A node did not start; the message carries the end of its log."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Node:
    """One ``ray start --block`` process (the node's Ray daemons are in its process group;
    its workers run in sessions of their own, under its raylet)."""

    process: subprocess.Popen[bytes]
    cache: Path
    log: Path

    def kill(self) -> None:
        """SIGKILL the node's Ray daemons (raylet, agents): the node is gone."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


@dataclass
class Cluster:
    """A local Ray cluster: its head's address, its token, its nodes."""

    address: str
    work: Path
    env: dict[str, str]
    nodes: list[Node] = field(default_factory=list)
    seen: dict[int, Any] = field(default_factory=dict)
    """Every Ray process seen under a node, by pid (``psutil.Process``, which remembers its
    start time), to kill the leftovers at the end."""

    def start_node(self, name: str, *args: str) -> Node:
        """``ray start ... --block`` with its own temp dir and cache; once it is up."""
        cache = self.work / f"{name}-cache"
        log = self.work / f"{name}.log"
        env = {**self.env, "ARENA_NODE_CACHE": str(cache)}
        argv = [str(Path(sys.executable).parent / "ray"), "start", *args, "--num-cpus=1",
                f"--temp-dir={self.work / name}", "--dashboard-agent-listen-port=0",
                "--disable-usage-stats", "--block"]  # fmt: skip
        with log.open("wb") as out:
            process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                       start_new_session=True)  # fmt: skip
        node = Node(process, cache, log)
        self.nodes.append(node)
        deadline = time.monotonic() + NODE_START_S
        while b"Ray runtime started" not in log.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                raise ClusterError(f"ray node {name} did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        return node

    def remember_processes(self) -> None:
        """Note every process under each node, so teardown can kill them all."""
        import psutil  # noqa: PLC0415 - a dev dependency, as in the other process tests

        for node in self.nodes:
            with contextlib.suppress(psutil.Error):
                parent = psutil.Process(node.process.pid)
                for child in parent.children(recursive=True):
                    self.seen.setdefault(child.pid, child)

    def stop(self) -> None:
        """Kill every node and every Ray process seen under one that still runs; remove the
        directories.

        Each is killed through the ``psutil.Process`` noted when it was seen, which checks
        that its pid still names that process (start time): many were bots and workers that
        ended long ago, and the whole suite allocates about 29,000 pids in 7 minutes against
        a pid_max of 32,768 here, so their pids come round again. Killing by bare pid could
        SIGKILL whatever has the pid by then, such as another test worker's server.
        """
        import psutil  # noqa: PLC0415

        self.remember_processes()
        for node in self.nodes:
            node.kill()
        alive = []
        for process in self.seen.values():
            with contextlib.suppress(psutil.Error):  # gone, or its pid now someone else's
                process.kill()
                alive.append(process)
        psutil.wait_procs(alive, timeout=10)
        shutil.rmtree(self.work, ignore_errors=True)


@contextlib.contextmanager
def local_cluster(extra_env: Mapping[str, str] | None = None, nodes: int = 2) -> Iterator[Cluster]:
    """A head and ``nodes - 1`` more nodes of one CPU each, token authentication on; this
    process's environment carries the token (and no ``RAY_ADDRESS``) while it runs.
    Import Ray only inside the block: Ray reads its authentication settings when first
    imported."""
    work = Path(tempfile.mkdtemp(prefix="arena-ray-"))
    port = free_port()
    token = secrets.token_hex(32)
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}
    env = {**os.environ, **auth, "RAY_USAGE_STATS_ENABLED": "0", **(extra_env or {})}
    env.pop("RAY_ADDRESS", None)
    for name in GRPC_VARIABLES:  # as from an operator's shell: the referee's gRPC settings
        env.pop(name, None)  # reach the actors through their runtime environment only
    saved = {name: os.environ.get(name) for name in (*auth, "RAY_ADDRESS")}
    found = Cluster(f"127.0.0.1:{port}", work, env)
    os.environ.update(auth)
    os.environ.pop("RAY_ADDRESS", None)
    # The nodes run in sessions of their own: a SIGTERM (`timeout`, a CI limit) must still
    # reach the clean-up below, so it becomes SystemExit while the cluster lives.
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        found.start_node("head", "--head", f"--port={port}", "--include-dashboard=false",
                         f"--ray-client-server-port={free_port()}",
                         f"--dashboard-port={free_port()}")  # fmt: skip
        for number in range(1, nodes):
            found.start_node(f"node{number}", f"--address={found.address}")
        yield found
    finally:
        found.stop()
        signal.signal(signal.SIGTERM, previous)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)
