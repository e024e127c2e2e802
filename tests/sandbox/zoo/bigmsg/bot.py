"""bigmsg: answers its first decision with an ActionReply of more than 1 MiB (a card
text of 2 MiB); the referee's gRPC server refuses it and the stream breaks."""

import asyncio
import os
import sys

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb

SIZE = 2 << 20


class BigMsg(Bot):
    name, version = "bigmsg", "1"

    def __init__(self) -> None:
        super().__init__()
        self.sent = False

    def _handle(self, message: pb.RefereeMessage, outbox: asyncio.Queue) -> bool:  # type: ignore[type-arg]
        if message.WhichOneof("message") == "decision_request" and not self.sent:
            self.sent = True
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
    print(f"bigmsg started pid={os.getpid()}", file=sys.stderr, flush=True)
    BigMsg().run()
