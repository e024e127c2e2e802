"""duplicate: answers every decision request twice (the same, legal, answer)."""

import asyncio
import os
import sys

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb


def describe(req: pb.DecisionRequest) -> str:
    """``decision=<kind> hand=<n> request=<id>``, as the tests parse it from stderr."""
    kind = pb.DecisionKind.Name(req.observation.request.kind).removeprefix("DECISION_KIND_")
    return f"decision={kind.lower()} hand={req.observation.hand_number} request={req.request_id}"


class Duplicate(Bot):
    name, version = "duplicate", "1"

    def _handle(self, message: pb.RefereeMessage, outbox) -> bool:  # type: ignore[no-untyped-def]
        if message.WhichOneof("message") != "decision_request":
            return super()._handle(message, outbox)
        mine: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
        result = super()._handle(message, mine)
        reply = mine.get_nowait()
        assert reply is not None
        outbox.put_nowait(reply)
        outbox.put_nowait(reply)
        print(f"ZOO-REQUEST {describe(message.decision_request)}", file=sys.stderr, flush=True)
        return result


if __name__ == "__main__":
    print(f"duplicate started pid={os.getpid()}", file=sys.stderr, flush=True)
    Duplicate().run()
