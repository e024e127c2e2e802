"""quitter: exits (status 3) without answering at its 5th decision of each process."""

import os
import sys

from arena.game.actions import Decision
from arena.sdk import Bot, Observation

QUIT_AT = 5


class Quitter(Bot):
    name, version = "quitter", "1"

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    def decide(self, obs: Observation) -> Decision:
        self.decisions += 1
        if self.decisions == QUIT_AT:
            kind = obs.request.kind.value if obs.request else "?"
            print(
                f"ZOO-MISBEHAVES decision={kind} hand={obs.hand_number}",
                file=sys.stderr,
                flush=True,
            )
            os._exit(3)
        return super().decide(obs)


if __name__ == "__main__":
    print(f"quitter started pid={os.getpid()}", file=sys.stderr, flush=True)
    Quitter().run()
