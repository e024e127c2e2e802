"""wrong_message: answers its first decision request with a second Hello."""

import os
import sys

from arena.protocol import convert
from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb


def describe(req: pb.DecisionRequest) -> str:
    """``decision=<kind> hand=<n> request=<id>``, as the tests parse it from stderr."""
    kind = pb.DecisionKind.Name(req.observation.request.kind).removeprefix("DECISION_KIND_")
    return f"decision={kind.lower()} hand={req.observation.hand_number} request={req.request_id}"


class WrongMessage(Bot):
    name, version = "wrong_message", "1"

    def _handle(self, message: pb.RefereeMessage, outbox) -> bool:  # type: ignore[no-untyped-def]
        if message.WhichOneof("message") == "decision_request":
            print(
                f"ZOO-MISBEHAVES {describe(message.decision_request)}", file=sys.stderr, flush=True
            )
            hello = convert.hello_to_proto(os.environ["ARENA_TOKEN"], self.name, self.version)
            outbox.put_nowait(pb.BotMessage(hello=hello))
            return True
        return super()._handle(message, outbox)


if __name__ == "__main__":
    print(f"wrong_message started pid={os.getpid()}", file=sys.stderr, flush=True)
    WrongMessage().run()
