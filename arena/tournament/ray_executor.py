"""Playing a tournament's games on a Ray cluster (``arena tournament run --executor ray``).

:class:`RayExecutor` is a :class:`arena.tournament.executor.PoolExecutor` whose slots are Ray
actors (:class:`arena.tournament.ray_slot.GameSlot`), placed by Ray on any live node. The
pool gives it every promise a local run has (deals never played at once, each finished game
reported once, arena faults replayed a bounded number of times); this module adds only what
a cluster needs:

* **Versions by content.** The runner packs each stored version a job needs once per run
  (:func:`arena.tournament.version_cache.pack_version`) and ``ray.put``s it; an actor fetches
  it only when its node's cache lacks that checksum.
* **Lost nodes.** An actor whose node died (or that no node would start) raises
  :class:`WorkerLost`: its game goes back to the queue and a new actor takes the slot on a
  live node. Ray itself retries nothing (``max_restarts=0``, ``max_task_retries=0``), so
  a game is never played twice behind the runner's back, and a bot's fault is a record,
  never a retry.
* **One writer.** Actors only reply; the runner on the driver stores each game, exactly
  once, under its schedule index. Each play is a Ray task named by the game's id
  (``<tournament>-<index>``), so the same game has the same name in every run.

Ray is an optional extra (``pip install 'arena952[ray]'``), imported only here, when a Ray
executor connects.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.metadata
import logging
import math
import os
import socket
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import arena
from arena.protocol.grpc_env import grpc_settings
from arena.submission import ChecksumError
from arena.tournament.executor import (
    MAX_ARENA_FAULTS,
    ArenaFaultCallback,
    ExecutorError,
    MoreJobs,
    PoolExecutor,
    ResultCallback,
    Slot,
    WorkerLost,
)
from arena.tournament.jobs import GameJob
from arena.tournament.player import Reuse, reuse_scheme
from arena.tournament.ray_slot import GameSlot
from arena.tournament.replies import MalformedReply, WorkerReply, parse_reply
from arena.tournament.version_cache import default_cache_root, pack_version

LOGGER = logging.getLogger(__name__)

NAMESPACE: Final = "arena952"
"""The Ray namespace of the runner's actors."""
CONNECT_TIMEOUT_S: Final = 10.0
"""How long the head's port may take to accept a connection before the run is refused:
Ray itself retries an unreachable address for minutes."""
SLOT_START_S: Final = 120.0
"""How long a new actor may take to start on some node (a fresh worker process imports
the arena) before the slot counts as lost."""
SLOT_STOP_S: Final = 15.0
"""How long an actor may take to stop its bots when its slot closes, before it is killed."""
INSTALL_HINT: Final = "pip install 'arena952[ray]'"


class RayUnavailableError(ExecutorError):
    """Ray cannot be used from here: not installed, no address, or the cluster cannot be
    reached or refuses this runner. The message is one line."""


def load_ray() -> ModuleType:
    """The ``ray`` module.

    :raises RayUnavailableError: if Ray is not installed.
    """
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise RayUnavailableError(f"Ray is not installed here ({INSTALL_HINT})") from None


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Fail fast if the head at ``HOST:PORT`` *address* does not accept connections
    (``local``, a private Ray started on this machine, is left to Ray).

    Ray's own ``auto`` is refused: it reads ``/tmp/ray/ray_current_cluster``, which a dead
    cluster leaves behind, and would join whatever that names.

    :raises RayUnavailableError: naming the address, if it is malformed or unreachable.
    """
    if address == "local":
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or "://" in address:
        raise RayUnavailableError(
            f"--ray-address {address!r}: give the head's HOST:PORT (its GCS port, 6379 by "
            "default), or 'local'"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RayUnavailableError(
            f"no Ray cluster at {address}: {reason} (is `ray start --head` running there?)"
        ) from None


def describe_ray() -> str:
    """One line for ``arena doctor``: whether Ray is installed here (found, not imported),
    which cluster ``--executor ray`` would join, how it would authenticate, and where this
    node keeps bot versions."""
    try:
        version = importlib.metadata.version("ray")
    except importlib.metadata.PackageNotFoundError:
        return f"ray: not installed (for --executor ray and Ray nodes: {INSTALL_HINT})"
    address = next(
        (
            f"{os.environ[n]} (${n})"
            for n in ("ARENA_RAY_ADDRESS", "RAY_ADDRESS")
            if os.environ.get(n)
        ),
        "none set (--ray-address)",
    )
    mode = os.environ.get("RAY_AUTH_MODE", "unset")
    token = next((n for n in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH") if os.environ.get(n)), None)
    if token is None and (Path.home() / ".ray" / "auth_token").is_file():
        token = "~/.ray/auth_token"
    return (
        f"ray: {version}; cluster: {address}; RAY_AUTH_MODE={mode}, token from "
        f"{token or 'nowhere'}; bot versions cached in {default_cache_root()}"
    )


class RayExecutor(PoolExecutor):
    """``parallel`` slots (default: the cluster's CPUs), each a Ray actor on any live node.

    Each slot reserves ``min(1, CPUs / parallel)`` CPUs where they are free, so games
    spread over nodes in proportion to their CPUs; a slot opened after a node was lost,
    when no CPU is free, takes none rather than waiting for a node that may never return.
    """

    def __init__(
        self,
        address: str,
        parallel: int | None = None,
        *,
        separate_deals: bool = True,
        max_arena_faults: int = MAX_ARENA_FAULTS,
        reuse: bool | Reuse = True,
        slot_start_s: float = SLOT_START_S,
    ) -> None:
        super().__init__(parallel or 1, separate_deals=separate_deals,
                         max_arena_faults=max_arena_faults)  # fmt: skip
        self.address = address
        self.requested = parallel
        self.reuse = reuse_scheme(reuse)
        """Which games share bot processes in a slot, as in a local worker process."""
        self.slot_start_s = slot_start_s
        self.slot_cpus = 1.0
        self.played_on: dict[int, str] = {}
        """Schedule index -> the Ray node id that played the game (its last try)."""
        self.nodes: dict[str, dict[str, Any]] = {}
        """Ray node id -> what its slots said about themselves (host, arena version, cache)."""
        self._ray: ModuleType | None = None
        self._actor_class: Any = None
        self._connected_here = False
        self._packed: dict[str, Any] = {}
        self._packing = asyncio.Lock()

    @property
    def ray(self) -> ModuleType:
        """The connected ``ray`` module.

        :raises ExecutorError: before :meth:`connect`.
        """
        if self._ray is None:
            raise ExecutorError("the Ray executor is not connected")
        return self._ray

    def connect(self) -> None:
        """Join the cluster (once) and size the pool from its CPUs.

        :raises RayUnavailableError: if Ray is missing, or the cluster cannot be reached or
            refuses this runner (token authentication).
        """
        if self._ray is not None:
            return
        ray = load_ray()
        if not ray.is_initialized():
            check_reachable(self.address)
            try:
                ray.init(
                    address=self.address,
                    namespace=NAMESPACE,
                    log_to_driver=False,  # bots' output is in their records; Ray's in its logs
                    configure_logging=False,
                )
            except ray.exceptions.AuthenticationError as exc:
                raise RayUnavailableError(
                    f"the Ray cluster at {self.address} refused this runner: "
                    f"{_one_line(exc)} (set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN to the "
                    "cluster's token)"
                ) from None
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise RayUnavailableError(
                    f"cannot join the Ray cluster at {self.address}: {_one_line(exc)} (a "
                    "cluster with token authentication needs RAY_AUTH_MODE=token and its "
                    "RAY_AUTH_TOKEN here too)"
                ) from None
            self._connected_here = True
        self._ray = ray
        self._actor_class = ray.remote(GameSlot)
        self._size()

    def _size(self) -> None:
        """Size the pool from the cluster's CPUs now (nodes come and go between runs)."""
        cpus = float(self.ray.cluster_resources().get("CPU", 0.0))
        self.parallel = max(1, self.requested or int(cpus) or 1)
        # Ray counts resources in units of 1/10,000: round down so that every slot fits.
        self.slot_cpus = min(1.0, math.floor(cpus / self.parallel * 10_000) / 10_000)
        LOGGER.info(
            "Ray cluster at %s: %d live node(s), %g CPUs; %d slots of %g CPU",
            self.address,
            len([n for n in self.ray.nodes() if n.get("Alive")]),
            cpus,
            self.parallel,
            self.slot_cpus,
        )

    def close(self) -> None:
        """Leave the cluster, if :meth:`connect` joined it (the actors die with the driver)."""
        self._packed.clear()
        if self._ray is not None and self._connected_here:
            self._ray.shutdown()
        self._ray = None
        self._connected_here = False

    async def run(
        self,
        jobs: Sequence[GameJob],
        on_result: ResultCallback,
        on_arena_fault: ArenaFaultCallback | None = None,
        more: MoreJobs | None = None,
    ) -> None:
        """Connect, then play as :meth:`PoolExecutor.run` does; the packed versions are
        released at the end."""
        if self._ray is None:
            self.connect()
        else:
            self._size()
        try:
            await super().run(jobs, on_result, on_arena_fault, more)
        finally:
            self._packed.clear()

    async def open_slot(self) -> Slot:
        """A new actor somewhere in the cluster (it starts in the background: the slot's
        first play waits for it)."""
        cpus = self.slot_cpus
        free = float(self.ray.available_resources().get("CPU", 0.0))
        if free < cpus:
            LOGGER.warning("no free CPU for a new game slot: it shares a node's CPUs")
            cpus = 0.0
        actor = self._actor_class.options(
            num_cpus=cpus,
            scheduling_strategy="SPREAD",
            max_restarts=0,
            max_task_retries=0,
            # Ray's worker imports grpc before the referee can set it up: give the actor's
            # process the referee's gRPC settings from its start (arena.protocol.grpc_env).
            runtime_env={"env_vars": grpc_settings(os.environ)},
        ).remote(self.reuse.value)
        return _RaySlot(self, actor)

    async def versions(self, job: GameJob) -> dict[str, Any]:
        """Each seat's checksum -> its packed files in the object store, put once per run.

        :raises ChecksumError: if a stored version's files changed.
        """
        if job.checksums is None:
            raise ChecksumError(f"game {job.schedule_index}: its versions have no checksums")
        async with self._packing:
            for path, checksum in zip(job.bot_paths, job.checksums, strict=True):
                if checksum not in self._packed:
                    data = await asyncio.to_thread(pack_version, Path(path), checksum)
                    self._packed[checksum] = self.ray.put(data)
        return {checksum: self._packed[checksum] for checksum in job.checksums}


class _RaySlot:
    """One Ray actor as a :class:`Slot`."""

    def __init__(self, executor: RayExecutor, actor: Any) -> None:
        self.executor = executor
        self.actor = actor
        self.node: str | None = None
        self.lost = False

    async def play(self, job: GameJob) -> WorkerReply:
        ray = self.executor.ray
        index = job.schedule_index
        try:
            versions = await self.executor.versions(job)
        except ChecksumError as exc:
            return {"schedule_index": index, "error": f"bot version: {_one_line(exc)}"}
        try:
            if self.node is None:
                await self._start()
            call = self.actor.play.options(name=job.game_id)
            returned: object = await call.remote(job.to_json(), versions)
        except (ray.exceptions.RayActorError, ray.exceptions.ActorUnschedulableError) as exc:
            self.lost = True
            where = f" on node {self.node[:12]}" if self.node else ""
            raise WorkerLost(f"Ray actor{where} lost in game {index}: {_one_line(exc)}") from None
        except ray.exceptions.RayError as exc:
            return {"schedule_index": index, "error": f"Ray: {_one_line(exc)}"}
        assert self.node is not None
        self.executor.played_on[index] = self.node
        try:
            return parse_reply(returned)
        except MalformedReply as exc:
            raise ExecutorError(f"Ray node {self.node[:12]}: {exc}") from None

    async def _start(self) -> None:
        """Wait for the actor to run somewhere; check that its node runs this arena.

        :raises WorkerLost: if no node started it in time.
        :raises ExecutorError: if its node runs another version of the arena.
        """
        try:
            info: dict[str, Any] = await asyncio.wait_for(
                _awaited(self.actor.describe.remote()), self.executor.slot_start_s
            )
        except TimeoutError:
            self.lost = True
            raise WorkerLost(
                f"no Ray node started a game slot within {self.executor.slot_start_s:g} s"
            ) from None
        if info["arena"] != arena.__version__:
            raise ExecutorError(
                f"Ray node {info['node_id'][:12]} ({info['host']}) runs arena "
                f"{info['arena']}, this runner {arena.__version__}: install the same "
                "version on every node"
            )
        self.node = str(info["node_id"])
        self.executor.nodes.setdefault(self.node, info)

    async def close(self) -> None:
        ray = self.executor.ray
        if not self.lost and self.node is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(_awaited(self.actor.aclose.remote()), SLOT_STOP_S)
        with contextlib.suppress(Exception):
            ray.kill(self.actor, no_restart=True)


async def _awaited(ref: Any) -> Any:
    """An object reference's value (a coroutine, so ``asyncio.wait_for`` can cancel it)."""
    return await ref


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
