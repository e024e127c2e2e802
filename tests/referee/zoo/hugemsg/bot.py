"""hugemsg: answers its first decision with an ActionReply of 100 MiB (a card text of
100 MiB); the referee's gRPC server refuses it for its size and cuts the stream. The
SDK then exits with gRPC's RESOURCE_EXHAUSTED error on stderr."""

import asyncio
import os
import sys

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb

SIZE = 100 << 20


class HugeMsg(Bot):
    name, version = "hugemsg", "1"

    def _handle(self, message: pb.RefereeMessage, outbox: asyncio.Queue) -> bool:  # type: ignore[type-arg]
        if message.WhichOneof("message") == "decision_request":
            request = message.decision_request
            hand = request.observation.hand_number
            os.write(2, f"ZOO-MISBEHAVES decision=play hand={hand} bytes={SIZE}\n".encode())
            reply = pb.ActionReply(
                request_id=request.request_id, play=pb.PlayAction(card="X" * SIZE)
            )
            outbox.put_nowait(pb.BotMessage(action_reply=reply))
            return True
        return super()._handle(message, outbox)


if __name__ == "__main__":
    print(f"hugemsg started pid={os.getpid()}", file=sys.stderr, flush=True)
    HugeMsg().run()
