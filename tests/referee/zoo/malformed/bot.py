"""malformed: answers its first play request with the card text "10S" (not a card)."""

import os
import sys

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb


def describe(req: pb.DecisionRequest) -> str:
    """``decision=<kind> hand=<n> request=<id>``, as the tests parse it from stderr."""
    kind = pb.DecisionKind.Name(req.observation.request.kind).removeprefix("DECISION_KIND_")
    return f"decision={kind.lower()} hand={req.observation.hand_number} request={req.request_id}"


class Malformed(Bot):
    name, version = "malformed", "1"

    def _handle(self, message: pb.RefereeMessage, outbox) -> bool:  # type: ignore[no-untyped-def]
        if message.WhichOneof("message") == "decision_request":
            req = message.decision_request
            if req.observation.request.kind == pb.DECISION_KIND_PLAY:
                print(f"ZOO-MISBEHAVES {describe(req)}", file=sys.stderr, flush=True)
                reply = pb.ActionReply(request_id=req.request_id)
                reply.play.card = "10S"
                outbox.put_nowait(pb.BotMessage(action_reply=reply))
                return True
        return super()._handle(message, outbox)


if __name__ == "__main__":
    print(f"malformed started pid={os.getpid()}", file=sys.stderr, flush=True)
    Malformed().run()
