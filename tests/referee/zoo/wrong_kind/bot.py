"""wrong_kind: answers its first play request with a (well-formed) trump call."""

import os
import sys

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb


def describe(req: pb.DecisionRequest) -> str:
    """``decision=<kind> hand=<n> request=<id>``, as the tests parse it from stderr."""
    kind = pb.DecisionKind.Name(req.observation.request.kind).removeprefix("DECISION_KIND_")
    return f"decision={kind.lower()} hand={req.observation.hand_number} request={req.request_id}"


class WrongKind(Bot):
    name, version = "wrong_kind", "1"

    def _handle(self, message: pb.RefereeMessage, outbox) -> bool:  # type: ignore[no-untyped-def]
        if message.WhichOneof("message") == "decision_request":
            req = message.decision_request
            if req.observation.request.kind == pb.DECISION_KIND_PLAY:
                print(f"ZOO-MISBEHAVES {describe(req)}", file=sys.stderr, flush=True)
                reply = pb.ActionReply(request_id=req.request_id)
                reply.trump.trump = pb.TRUMP_S
                outbox.put_nowait(pb.BotMessage(action_reply=reply))
                return True
        return super()._handle(message, outbox)


if __name__ == "__main__":
    print(f"wrong_kind started pid={os.getpid()}", file=sys.stderr, flush=True)
    WrongKind().run()
