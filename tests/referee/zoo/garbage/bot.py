"""garbage: a proper Hello, then raw bytes that are not a BotMessage as its first answer.

Uses the plain grpc API with a request serializer that passes bytes through unchanged.
"""

import os
import queue
import sys

import grpc

from arena.v1 import arena_pb2 as pb


def describe(req: pb.DecisionRequest) -> str:
    """``decision=<kind> hand=<n> request=<id>``, as the tests parse it from stderr."""
    kind = pb.DecisionKind.Name(req.observation.request.kind).removeprefix("DECISION_KIND_")
    return f"decision={kind.lower()} hand={req.observation.hand_number} request={req.request_id}"


# A field-1 (hello) length-delimited header announcing far more bytes than follow:
# protobuf cannot decode it.
GARBAGE = b"\x0a\xff\xff\xff\x0f" + b"\xde\xad\xbe\xef" * 4


def main() -> None:
    outbox: queue.Queue[bytes | None] = queue.Queue()
    hello = pb.Hello(
        token=os.environ["ARENA_TOKEN"], bot_name="garbage", bot_version="1", protocol_version=1
    )
    outbox.put(pb.BotMessage(hello=hello).SerializeToString())

    def outgoing():  # type: ignore[no-untyped-def]
        while (data := outbox.get()) is not None:
            yield data

    with grpc.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        play = channel.stream_stream(
            "/arena.v1.Referee/Play",
            request_serializer=lambda data: data,
            response_deserializer=pb.RefereeMessage.FromString,
        )
        try:
            for message in play(outgoing(), wait_for_ready=True):
                kind = message.WhichOneof("message")
                if kind == "decision_request":
                    print(
                        f"ZOO-MISBEHAVES {describe(message.decision_request)}",
                        file=sys.stderr,
                        flush=True,
                    )
                    outbox.put(GARBAGE)
                elif kind == "match_end":
                    break
        except grpc.RpcError as exc:
            print(f"garbage: stream ended: {exc.code()}", file=sys.stderr, flush=True)
        finally:
            outbox.put(None)


if __name__ == "__main__":
    print(f"garbage started pid={os.getpid()}", file=sys.stderr, flush=True)
    main()
