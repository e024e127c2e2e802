"""halfclose: at its first decision, closes its side of the stream (a half-close: no more
messages from the bot) instead of answering, and keeps reading until the referee ends
the call."""

import asyncio
import os
import sys

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb


class HalfClose(Bot):
    name, version = "halfclose", "1"

    def _handle(self, message: pb.RefereeMessage, outbox: asyncio.Queue) -> bool:  # type: ignore[type-arg]
        if message.WhichOneof("message") == "decision_request":
            hand = message.decision_request.observation.hand_number
            os.write(2, f"ZOO-MISBEHAVES decision=play hand={hand}\n".encode())
            outbox.put_nowait(None)  # ends the request stream: a half-close
            return True
        return super()._handle(message, outbox)


if __name__ == "__main__":
    print(f"halfclose started pid={os.getpid()}", file=sys.stderr, flush=True)
    HalfClose().run()
