"""One game slot on a node of a Ray cluster: the class behind each Ray actor.

:class:`arena.tournament.ray_executor.RayExecutor` makes one actor of :class:`GameSlot` per
slot, anywhere in the cluster. The actor plays with the same :class:`GamePlayer` as a local
worker process, so the referee, the sandbox and process reuse are the same on every node;
only the bot versions' paths differ: each job's versions arrive by checksum and are made
ready in this node's cache (:mod:`arena.tournament.version_cache`), and the job is played
with those paths.

Ray runs an actor whose methods are coroutines in one event loop, in a thread that lives as
long as the actor: the player's bot processes, whose parent-death signal is tied to the
thread that started them, are started from it and so die with the actor (a lost node's
included), never before.

Ray is imported only where an actor needs it (the node's id), so this module is importable,
and testable, without Ray.
"""

from __future__ import annotations

import asyncio
import os
import platform
from collections.abc import Awaitable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import arena
from arena.protocol.grpc_env import configure_grpc

configure_grpc(
    os.environ
)  # an actor's entry point; Ray passes the same settings in its runtime env

from arena.tournament.jobs import GameJob  # noqa: E402
from arena.tournament.player import GamePlayer, Reuse  # noqa: E402
from arena.tournament.replies import WorkerReply  # noqa: E402
from arena.tournament.version_cache import NodeCache, NodeVersionError  # noqa: E402

Packed = Awaitable[bytes]
"""A version's packed files as the actor receives them: a Ray object reference, awaited only
when this node does not have the version yet."""


class GameSlot:
    """Plays jobs one at a time on this node, with its versions from the node's cache."""

    def __init__(self, reuse: str = Reuse.SAFE.value, cache_root: str | None = None) -> None:
        self.player = GamePlayer(Reuse(reuse))
        self.cache = NodeCache(Path(cache_root) if cache_root else None)

    def describe(self) -> dict[str, Any]:
        """Where this slot runs: the Ray node's id, the host, the process, the arena's
        version (the runner refuses a node whose arena differs from its own)."""
        import ray  # noqa: PLC0415 - an actor runs inside Ray, the rest of arena need not

        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "host": platform.node(),
            "pid": os.getpid(),
            "arena": arena.__version__,
            "cache": str(self.cache.root),
        }

    async def play(self, job: dict[str, Any], versions: Mapping[str, Packed]) -> WorkerReply:
        """Play the job (``GameJob.to_json()``); *versions* maps each seat's checksum to its
        packed files. The reply of :meth:`GamePlayer.play` (the runner checks it as it
        arrives); a version that cannot be made ready here is an arena fault (played again,
        elsewhere if this node keeps failing)."""
        game = GameJob.from_json(job)
        if game.checksums is None:
            return {
                "schedule_index": game.schedule_index,
                "error": "a job without checksums cannot be played on a Ray node",
            }
        try:
            paths = [
                str(await self._local(checksum, label, versions[checksum]))
                for checksum, label in zip(game.checksums, game.labels, strict=True)
            ]
        except NodeVersionError as exc:
            return {"schedule_index": game.schedule_index, "arena_fault": str(exc)}
        local = replace(game, bot_paths=(paths[0], paths[1], paths[2]))
        return await self.player.play(local)

    async def aclose(self) -> None:
        """Stop every bot process the slot holds."""
        await self.player.aclose()

    async def _local(self, checksum: str, label: str, packed: Packed) -> Path:
        """The version's folder on this node, installed from *packed* if it is not there."""
        ready = self.cache.ready(checksum)
        if ready is not None:
            return ready
        data = await packed
        return await asyncio.to_thread(self.cache.install, checksum, label, data)
