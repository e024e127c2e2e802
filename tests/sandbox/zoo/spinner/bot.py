"""spinner: before connecting, forks a child that burns CPU for ever (so it spins while
the bot is not on turn, as well as while it is); a thread of the bot reports how the
child ended (``ZOO-SPIN ended signal=N cpu=S``). The bot plays on, thinking
``SPINNER_THINK_S`` at its first decision so the child has time to hit the CPU limit."""

import os
import resource
import sys
import threading
import time

from arena.game.actions import Decision
from arena.sdk import Bot, Observation

THINK_S = 2.5


def spin() -> None:
    os.write(2, b"ZOO-SPIN spinning\n")
    while True:
        pass


def watch(pid: int) -> None:
    _, status = os.waitpid(pid, 0)
    signal = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    os.write(2, f"ZOO-SPIN ended signal={signal} cpu={cpu:.2f}\n".encode())


class Spinner(Bot):
    name, version = "spinner", "1"

    def __init__(self) -> None:
        super().__init__()
        self.thought = False

    def decide(self, obs: Observation) -> Decision:
        if not self.thought:
            self.thought = True
            time.sleep(THINK_S)
        return super().decide(obs)


if __name__ == "__main__":
    print(f"spinner started pid={os.getpid()}", file=sys.stderr, flush=True)
    child = os.fork()  # before gRPC starts any thread
    if child == 0:
        spin()
    threading.Thread(target=watch, args=(child,), daemon=True).start()
    Spinner().run()
