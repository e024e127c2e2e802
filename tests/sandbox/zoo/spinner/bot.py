"""spinner: before connecting, forks a child that burns CPU for ever (so it spins while
the bot is not on turn, as well as while it is); a thread of the bot reports how the
child ended (``ZOO-SPIN ended signal=N cpu=S``). The bot plays on, holding its first
decision until the child has ended (at most ``WAIT_S``): the child hits the CPU limit
however long a busy machine takes to give it that much CPU."""

import os
import resource
import sys
import threading

from arena.game.actions import Decision
from arena.sdk import Bot, Observation

WAIT_S = 50.0
"""Far more than the child needs; the test's time control allows a minute a decision."""
ENDED = threading.Event()


def spin() -> None:
    os.write(2, b"ZOO-SPIN spinning\n")
    while True:
        pass


def watch(pid: int) -> None:
    _, status = os.waitpid(pid, 0)
    signal = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    os.write(2, f"ZOO-SPIN ended signal={signal} cpu={cpu:.2f}\n".encode())
    ENDED.set()


class Spinner(Bot):
    name, version = "spinner", "1"

    def __init__(self) -> None:
        super().__init__()
        self.thought = False

    def decide(self, obs: Observation) -> Decision:
        if not self.thought:
            self.thought = True
            ENDED.wait(WAIT_S)
        return super().decide(obs)


if __name__ == "__main__":
    print(f"spinner started pid={os.getpid()}", file=sys.stderr, flush=True)
    child = os.fork()  # before gRPC starts any thread
    if child == 0:
        spin()
    threading.Thread(target=watch, args=(child,), daemon=True).start()
    Spinner().run()
