"""The referee server: the standard gRPC health service and token admission."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.referee.wire import SERVICE_NAME, RefereeServer
from arena.v1 import arena_pb2, arena_pb2_grpc


def test_health_service_reports_serving(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int]:
        server = RefereeServer()
        address = await server.start(f"unix:{tmp_path}/referee.sock")
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                named = await stub.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
                overall = await stub.Check(health_pb2.HealthCheckRequest(service=""))
                return named.status, overall.status
        finally:
            await server.stop(0)

    serving = health_pb2.HealthCheckResponse.SERVING
    assert asyncio.run(scenario()) == (serving, serving)


def test_unknown_and_reused_tokens_are_refused(tmp_path: Path) -> None:
    async def scenario() -> list[grpc.StatusCode]:
        server = RefereeServer()
        address = await server.start(f"unix:{tmp_path}/referee.sock")
        session = server.service.open_session(0, arena_pb2.Welcome(seat=0, protocol_version=1))
        codes = []
        try:
            for token in ("not-a-token", session.token, session.token):
                async with grpc.aio.insecure_channel(address) as channel:
                    call = arena_pb2_grpc.RefereeStub(channel).Play()
                    hello = arena_pb2.Hello(token=token, bot_name="t", bot_version="1",
                                            protocol_version=1)  # fmt: skip
                    await call.write(arena_pb2.BotMessage(hello=hello))
                    try:
                        first = await call.read()
                        codes.append(grpc.StatusCode.OK if first.HasField("welcome") else None)
                        session.close()
                    except grpc.aio.AioRpcError as exc:
                        codes.append(exc.code())
            return codes
        finally:
            await server.stop(0)

    assert asyncio.run(scenario()) == [
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.OK,
        grpc.StatusCode.UNAUTHENTICATED,
    ]
