"""recorder: plays the SDK defaults (greedy) and appends every RefereeMessage it receives,
as received, to the file given by ``--log`` (one line per message: base64 of the wire
bytes), flushed at once. Without ``--log`` it records nothing."""

import argparse
import base64
import os
import sys

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb


class Recorder(Bot):
    name, version = "recorder", "1"

    def __init__(self, log_path: str | None) -> None:
        super().__init__()
        self.log = open(log_path, "ab") if log_path else None  # noqa: SIM115

    def _handle(self, message: pb.RefereeMessage, outbox) -> bool:  # type: ignore[no-untyped-def]
        if self.log is not None:
            self.log.write(base64.b64encode(message.SerializeToString()) + b"\n")
            self.log.flush()
        return super()._handle(message, outbox)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--log")
    print(f"recorder started pid={os.getpid()}", file=sys.stderr, flush=True)
    Recorder(parser.parse_args().log).run()
