"""The referee's gRPC servers: a door per bot, a shared listener for remote bots, and the
caps on the connections each may hold.

Every bot process dials its own **door**: a unix socket of its seat, served by a gRPC
server of its own that keeps at most :data:`DOOR_CONNECTIONS` connections open (gRPC's
``grpc.max_allowed_incoming_connections``: more are closed as they are accepted). Only
that bot's sandbox has the door's path, so a flood of connections reaches nobody else's
door, is bounded in the referee's descriptors (:mod:`arena.referee.wire.descriptors`), and
every stream refused at a door is counted against that seat. The shared listener
(:meth:`RefereeServer.start`) serves only remote bots, under a cap of its own. Who may
come in through a door is :mod:`arena.referee.wire.admission`'s job, not this module's.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.referee.wire.admission import HELLO_TIMEOUT_S, Handler, RefereeService
from arena.referee.wire.door_dirs import make_door_directory
from arena.referee.wire.session import MAX_MESSAGE_BYTES, deserialize
from arena.v1 import arena_pb2

SERVICE_NAME = "arena.v1.Referee"
DOOR_CONNECTIONS = 4
"""Connections a seat's door keeps open at once: the bot's stream, room for a health check
on a second channel and for a restarted process while the old connection closes."""
DOOR_STREAMS = 4
"""Concurrent streams (calls) one connection to a door may carry."""
SHARED_CONNECTIONS = 32
"""Connections the shared listener (remote bots) keeps open at once."""


class RefereeServer:
    """The referee's gRPC servers: a shared listener (remote bots, callers that dial one
    address) and a door per seat for bot processes, each with the standard health service.
    """

    def __init__(self, hello_timeout_s: float = HELLO_TIMEOUT_S) -> None:
        self.service = RefereeService(hello_timeout_s)
        self._server: grpc.aio.Server | None = None
        self._doors: dict[int, tuple[grpc.aio.Server, str]] = {}
        self._directory: Path | None = None
        self.address = ""

    @property
    def directory(self) -> Path:
        """A private directory for the unix sockets (made on first use, removed by stop;
        one left by a referee killed before its stop goes at a later referee's start:
        :mod:`arena.referee.wire.door_dirs`)."""
        if self._directory is None:
            self._directory = make_door_directory()
        return self._directory

    def _grpc_server(self, connections: int, play: Handler) -> grpc.aio.Server:
        handshake_ms = max(1000, int(self.service.hello_timeout_s * 1000))
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.so_reuseport", 0),
                ("grpc.max_allowed_incoming_connections", connections),
                ("grpc.max_concurrent_streams", DOOR_STREAMS),
                ("grpc.server_handshake_timeout_ms", handshake_ms),
            ]
        )
        handler = grpc.method_handlers_generic_handler(
            SERVICE_NAME,
            {
                "Play": grpc.stream_stream_rpc_method_handler(
                    play,
                    request_deserializer=deserialize,
                    response_serializer=arena_pb2.RefereeMessage.SerializeToString,
                )
            },
        )
        server.add_generic_rpc_handlers((handler,))
        return server

    @staticmethod
    async def _serve(server: grpc.aio.Server) -> None:
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        await server.start()
        await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)

    async def start(self, bind: str) -> str:
        """Listen on *bind* (``unix:/path`` or ``host:port``, port 0 = any); the address
        bots should dial.
        """
        server = self._grpc_server(SHARED_CONNECTIONS, self.service.Play)
        port = server.add_insecure_port(bind)
        if not bind.startswith("unix:") and port == 0:
            raise OSError(f"cannot listen on {bind}")
        await self._serve(server)
        self._server = server
        if bind.startswith("unix:"):
            path = bind.removeprefix("unix:").removeprefix("//")
            self.address = f"unix://{path}" if path.startswith("/") else bind
        else:
            host = bind.rsplit(":", 1)[0]
            self.address = f"{host}:{port}"
        return self.address

    async def door(self, seat: int) -> str:
        """The address of *seat*'s own door (opened on first use): a unix socket with an
        unguessable name, at most :data:`DOOR_CONNECTIONS` connections at once."""
        if seat not in self._doors:
            path = self.directory / f"seat{seat}-{secrets.token_hex(8)}.sock"
            server = self._grpc_server(DOOR_CONNECTIONS, self.service.door_handler(seat))
            server.add_insecure_port(f"unix:{path}")
            await self._serve(server)
            self._doors[seat] = (server, f"unix://{path}")
        return self._doors[seat][1]

    async def close_door(self, door: int, grace_s: float = 0.5) -> None:
        """Stop *door*'s server (its bot is gone; a later bot gets a door of its own), so a
        server whose bots come and go holds no more doors than it has live bots."""
        entry = self._doors.pop(door, None)
        if entry is not None:
            await entry[0].stop(grace_s)

    def refused(self, seat: int) -> int:
        """Streams refused so far at *seat*'s door."""
        return self.service.refused_at[seat]

    async def stop(self, grace_s: float = 1.0) -> None:
        """Stop accepting bots and end every stream after *grace_s*."""
        servers = [door for door, _ in self._doors.values()]
        if self._server is not None:
            servers.append(self._server)
        self._server = None
        self._doors.clear()
        await asyncio.gather(*(server.stop(grace_s) for server in servers))
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
