"""bad_version: a Hello with protocol_version 2 (docs/protocol.md 2.3: a startup fault)."""

import os
import sys

from arena.protocol import convert
from arena.sdk import Bot, BotRunError
from arena.v1 import arena_pb2 as pb


class BadVersion(Bot):
    name, version = "bad_version", "1"


_original = convert.hello_to_proto


def _hello_v2(token: str, bot_name: str, bot_version: str) -> pb.Hello:
    hello = _original(token, bot_name, bot_version)
    hello.protocol_version = 2
    return hello


if __name__ == "__main__":
    print(f"bad_version started pid={os.getpid()}", file=sys.stderr, flush=True)
    convert.hello_to_proto = _hello_v2
    try:
        BadVersion().run()
    except BotRunError as exc:
        print(f"bad_version: refused: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)
