"""flooder: plays legally (SDK defaults) and writes 1.25 MiB to stdout and to stderr in
each game, in 64 KiB pieces spread over its first decisions."""

import os
import sys

from arena.game.actions import Decision
from arena.sdk import Bot, GameStart, Observation

PIECE = 64 * 1024
PIECES = 20  # 20 x 64 KiB = 1.25 MiB per stream per game


class Flooder(Bot):
    name, version = "flooder", "1"

    def __init__(self) -> None:
        super().__init__()
        self.left = 0

    def on_game_start(self, start: GameStart) -> None:
        self.left = PIECES

    def decide(self, obs: Observation) -> Decision:
        # Half of the flood on the first decision, the rest one piece per decision after.
        burst = PIECES // 2 if self.left == PIECES else 1
        for _ in range(min(burst, self.left)):
            sys.stdout.write("o" * (PIECE - 1) + "\n")
            sys.stdout.flush()
            sys.stderr.write("e" * (PIECE - 1) + "\n")
            sys.stderr.flush()
            self.left -= 1
        return super().decide(obs)

    def on_game_end(self, end: object) -> None:
        # Whatever is left of the flood goes out now, so each game writes all of it.
        while self.left > 0:
            sys.stdout.write("o" * (PIECE - 1) + "\n")
            sys.stderr.write("e" * (PIECE - 1) + "\n")
            self.left -= 1
        sys.stdout.flush()
        sys.stderr.flush()


if __name__ == "__main__":
    print(f"flooder started pid={os.getpid()}", file=sys.stderr, flush=True)
    Flooder().run()
