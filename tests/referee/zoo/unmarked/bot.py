"""unmarked: a bot that talks raw gRPC instead of using the SDK, as a bot in another
language does. It never writes the SDK's output mark, so the referee can only cut its logs
per game by waiting for its output to go quiet. It prints ``END <game_id>`` to stderr 30 ms
after each GameEnd (a summary that takes a moment), and plays greedy decisions."""

from __future__ import annotations

import asyncio
import os
import sys
import time

import grpc

from arena.game.policies import GreedyPolicy
from arena.protocol import convert
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc


async def main() -> None:
    policy = GreedyPolicy()
    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        call = arena_pb2_grpc.RefereeStub(channel).Play()
        hello = convert.hello_to_proto(os.environ["ARENA_TOKEN"], "unmarked", "1")
        await call.write(pb.BotMessage(hello=hello))
        while (message := await call.read()) is not grpc.aio.EOF:
            kind = message.WhichOneof("message")
            if kind == "decision_request":
                request = convert.request_from_proto(message.decision_request)
                decision = policy.act(request.observation)
                reply = convert.decision_to_proto(decision, request.request_id)
                await call.write(pb.BotMessage(action_reply=reply))
            elif kind == "game_end":
                time.sleep(0.03)
                print(f"END {message.game_end.game_id}", file=sys.stderr, flush=True)
            elif kind == "match_end":
                break


asyncio.run(main())
