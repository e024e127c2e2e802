"""daemon: before connecting, double-forks a daemon in a session of its own (setsid), which
re-executes itself with the bot's directory in its command line and sleeps for ever,
keeping the bot's stdout and stderr open. Then it plays normally."""

import os
import sys

from arena.sdk import Bot

HERE = os.path.dirname(os.path.abspath(__file__))


class Daemon(Bot):
    name, version = "daemon", "1"


if __name__ == "__main__":
    first = os.fork()
    if first == 0:
        os.setsid()
        if os.fork() == 0:
            code = "import time\nwhile True: time.sleep(1)"
            os.execv(sys.executable, [sys.executable, "-c", code, "zoo-daemon", HERE])
        os._exit(0)
    os.waitpid(first, 0)
    print(f"daemon started pid={os.getpid()}", file=sys.stderr, flush=True)
    Daemon().run()
