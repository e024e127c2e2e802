"""sleeper: on its first play decision, sleeps far past decision_ms + bank + grace."""

import os
import sys
import time

from arena.sdk import Bot, Observation, Play


class Sleeper(Bot):
    name, version = "sleeper", "1"

    def __init__(self) -> None:
        super().__init__()
        self.slept = False

    def play(self, obs: Observation) -> Play:
        if not self.slept:
            self.slept = True
            print(
                f"ZOO-MISBEHAVES decision=play hand={obs.hand_number}", file=sys.stderr, flush=True
            )
            time.sleep(30)
        return super().play(obs)


if __name__ == "__main__":
    print(f"sleeper started pid={os.getpid()}", file=sys.stderr, flush=True)
    Sleeper().run()
