"""persist: when it starts, looks for the file it leaves behind (``zoo-persist.txt``) in
every place it might write (its directory, HOME, TMPDIR, /tmp, /var/tmp, /dev/shm) and
writes ``ZOO-PERSIST found=...``; then tries to leave it in each and writes
``ZOO-PERSIST wrote=...``. A second game's process must find nothing."""

import os
import sys

from arena.sdk import Bot

NAME = "zoo-persist.txt"
HERE = os.path.dirname(os.path.abspath(__file__))


def places() -> list[str]:
    found = [HERE, os.environ.get("HOME", ""), os.environ.get("TMPDIR", "")]
    return [p for p in [*found, "/tmp", "/var/tmp", "/dev/shm"] if p]


class Persist(Bot):
    name, version = "persist", "1"


if __name__ == "__main__":
    print(f"persist started pid={os.getpid()}", file=sys.stderr, flush=True)
    found = [p for p in places() if os.path.exists(os.path.join(p, NAME))]
    print(f"ZOO-PERSIST found={','.join(found) or '-'}", file=sys.stderr, flush=True)
    wrote = []
    for place in places():
        try:
            with open(os.path.join(place, NAME), "w") as file:
                file.write("written in an earlier game\n")
            wrote.append(place)
        except OSError:
            pass
    print(f"ZOO-PERSIST wrote={','.join(wrote) or '-'}", file=sys.stderr, flush=True)
    Persist().run()
