"""forkbomb: at its first decision, starts a bomber (a fresh interpreter: forking the
bot itself, with gRPC's threads running, could deadlock) that forks until fork fails,
keeping every process alive, and writes ``ZOO-FORKBOMB forks=N error=E``. The bot plays
on."""

import os
import subprocess
import sys

from arena.game.actions import Decision
from arena.sdk import Bot, Observation

BOMB = """
import errno, os, time
forks, error = 0, "none"
while forks < 5000:  # far above any sandbox's cap: never reached when the sandbox works
    try:
        pid = os.fork()
    except OSError as exc:
        error = errno.errorcode.get(exc.errno or 0, str(exc.errno))
        break
    if pid == 0:
        while True:  # every child stays, holding its slot
            time.sleep(60)
    forks += 1
os.write(2, f"ZOO-FORKBOMB forks={forks} error={error}\\n".encode())
while True:
    time.sleep(60)
"""


class ForkBomb(Bot):
    name, version = "forkbomb", "1"

    def __init__(self) -> None:
        super().__init__()
        self.done = False

    def decide(self, obs: Observation) -> Decision:
        if not self.done:
            self.done = True
            kind = obs.request.kind.value if obs.request else "?"
            os.write(2, f"ZOO-MISBEHAVES decision={kind} hand={obs.hand_number}\n".encode())
            subprocess.Popen([sys.executable, "-c", BOMB])
        return super().decide(obs)


if __name__ == "__main__":
    print(f"forkbomb started pid={os.getpid()}", file=sys.stderr, flush=True)
    ForkBomb().run()
