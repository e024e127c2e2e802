"""early_exit: exits before connecting, with the code given as its first argument.

A bot that would like its own failure to pass for the arena's: 125 is what the sandbox's
chain exits with when it cannot set up, 1 what bubblewrap exits with. With ``--forge`` it
first hunts for the referee's ready pipe: it writes to every descriptor it holds and
reports each one (``ZOO-FORGE fd=N target=... wrote=...``), so the test can see whether
any pipe other than its stdout and stderr reached it. Its last line names its
environment variables, which must be the documented ones (no ``PWD`` from the chain).
"""

import os
import sys


def forge() -> None:
    for name in sorted(os.listdir("/proc/self/fd"), key=int):
        fd = int(name)
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the directory listing's own descriptor, already closed
        try:
            wrote = os.write(fd, b"R" * 8)
        except OSError as exc:
            wrote = f"error:{exc.errno}"
        print(f"ZOO-FORGE fd={fd} target={target} wrote={wrote}", file=sys.stderr, flush=True)


code = int(sys.argv[1])
if "--forge" in sys.argv:
    forge()
names = ",".join(sorted(os.environ))
print(f"ZOO-EARLY-EXIT code={code} env={names}", file=sys.stderr, flush=True)
sys.exit(code)
