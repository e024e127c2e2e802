"""spawner: starts a long-lived child (same process group), then exits at its 3rd decision.
The referee must stop the child too."""

import os
import subprocess
import sys

from arena.game.actions import Decision
from arena.sdk import Bot, Observation


class Spawner(Bot):
    name, version = "spawner", "1"

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    def decide(self, obs: Observation) -> Decision:
        self.decisions += 1
        if self.decisions == 3:
            kind = obs.request.kind.value if obs.request else "?"
            print(
                f"ZOO-MISBEHAVES decision={kind} hand={obs.hand_number}",
                file=sys.stderr,
                flush=True,
            )
            os._exit(4)
        return super().decide(obs)


if __name__ == "__main__":
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", "spawner-child"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    print(f"spawner started pid={os.getpid()} child={child.pid}", file=sys.stderr, flush=True)
    Spawner().run()
