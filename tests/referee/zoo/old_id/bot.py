"""old_id: answers its first request correctly, then answers the second one (correctly
decided) under the first request's id."""

import os
import sys

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb


def describe(req: pb.DecisionRequest) -> str:
    """``decision=<kind> hand=<n> request=<id>``, as the tests parse it from stderr."""
    kind = pb.DecisionKind.Name(req.observation.request.kind).removeprefix("DECISION_KIND_")
    return f"decision={kind.lower()} hand={req.observation.hand_number} request={req.request_id}"


class OldId(Bot):
    name, version = "old_id", "1"

    def __init__(self) -> None:
        super().__init__()
        self.first_id: int | None = None

    def _handle(self, message: pb.RefereeMessage, outbox) -> bool:  # type: ignore[no-untyped-def]
        if message.WhichOneof("message") != "decision_request":
            return super()._handle(message, outbox)
        req = message.decision_request
        print(f"ZOO-REQUEST {describe(req)}", file=sys.stderr, flush=True)
        if self.first_id is None:
            self.first_id = req.request_id
            return super()._handle(message, outbox)
        stale = pb.RefereeMessage()
        stale.CopyFrom(message)
        stale.decision_request.request_id = self.first_id
        return super()._handle(stale, outbox)


if __name__ == "__main__":
    print(f"old_id started pid={os.getpid()}", file=sys.stderr, flush=True)
    OldId().run()
