"""never_connects: starts, says so on stderr, and sleeps without ever connecting."""

import os
import sys
import time

print(f"never_connects started pid={os.getpid()}", file=sys.stderr, flush=True)
time.sleep(3600)
