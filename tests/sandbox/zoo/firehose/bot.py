"""firehose: from start to exit, two threads write to stdout and stderr as fast as the
pipes take it, while the bot plays normally."""

import os
import sys
import threading

from arena.sdk import Bot

PIECE = b"f" * 65535 + b"\n"


def flood(fd: int) -> None:
    while True:
        try:
            os.write(fd, PIECE)
        except OSError:
            return


class FireHose(Bot):
    name, version = "firehose", "1"


if __name__ == "__main__":
    print(f"firehose started pid={os.getpid()}", file=sys.stderr, flush=True)
    for fd in (1, 2):
        threading.Thread(target=flood, args=(fd,), daemon=True).start()
    FireHose().run()
