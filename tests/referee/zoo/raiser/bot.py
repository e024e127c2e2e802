"""raiser: raises an exception in its first play() (the SDK lets it escape: the bot dies)."""

import os
import sys

from arena.sdk import Bot, Observation, Play


class Raiser(Bot):
    name, version = "raiser", "1"

    def play(self, obs: Observation) -> Play:
        print(f"ZOO-MISBEHAVES decision=play hand={obs.hand_number}", file=sys.stderr, flush=True)
        raise RuntimeError(f"raiser-boom-7f3a in hand {obs.hand_number}")


if __name__ == "__main__":
    print(f"raiser started pid={os.getpid()}", file=sys.stderr, flush=True)
    Raiser().run()
