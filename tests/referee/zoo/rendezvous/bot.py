"""rendezvous: waits, before it connects, until every seat's process of its match runs.

Each process writes its pid into the directory given by ``--meet`` and connects only once
three files are there; until then it sends no Hello. Seats started one after another
never get there (the first waits for the second, which is started only after the first's
Hello), so the first exceeds its startup limit: the control of tests/referee/test_seat_start.py.
"""

import argparse
import os
import sys
import time
from pathlib import Path

from arena.sdk import Bot


class Rendezvous(Bot):
    name, version = "rendezvous", "1"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--meet", type=Path, required=True)
    parser.add_argument("--give-up-s", type=float, default=30.0)
    meet = parser.parse_args().meet
    (meet / str(os.getpid())).write_text("")
    deadline = time.monotonic() + parser.parse_args().give_up_s
    while len(list(meet.iterdir())) < 3:
        if time.monotonic() > deadline:
            print("rendezvous: the other seats never started", file=sys.stderr, flush=True)
            sys.exit(3)
        time.sleep(0.01)
    Rendezvous().run()
