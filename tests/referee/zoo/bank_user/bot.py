"""bank_user: prints every clock it sees; once per game it answers in 350 ms, i.e. past
decision_ms (the tests use 200) but well within the bank (the tests use 300)."""

import os
import sys
import time

from arena.sdk import Bot
from arena.v1 import arena_pb2 as pb

SLOW_S = 0.35


class BankUser(Bot):
    name, version = "bank_user", "1"

    def __init__(self) -> None:
        super().__init__()
        self.game = 0
        self.slow_done = False

    def _handle(self, message: pb.RefereeMessage, outbox) -> bool:  # type: ignore[no-untyped-def]
        kind = message.WhichOneof("message")
        if kind == "game_start":
            self.game = message.game_start.game_number
            self.slow_done = False
        elif kind == "decision_request":
            req = message.decision_request
            slow = not self.slow_done and req.observation.request.kind == pb.DECISION_KIND_PLAY
            print(
                f"clock game={self.game} request={req.request_id} "
                f"decision_ms_left={req.clock.decision_ms_left} "
                f"bank_ms_left={req.clock.bank_ms_left} slow={int(slow)}",
                file=sys.stderr,
                flush=True,
            )
            if slow:
                self.slow_done = True
                time.sleep(SLOW_S)
        return super()._handle(message, outbox)


if __name__ == "__main__":
    print(f"bank_user started pid={os.getpid()}", file=sys.stderr, flush=True)
    BankUser().run()
