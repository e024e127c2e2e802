"""Inside the build sandbox: unpack the bot, run its build command, pack the result.

``python -I -S .../arena/sandbox/build/runner.py SECCOMP -- COMMAND...`` runs as the build's uid
in its working directory, an in-memory filesystem of bounded size at the bot's own path.
It reads the bot's files as a tar stream on standard input (written by the arena, so the
sandbox needs no view of the host directory), runs *COMMAND* with standard input closed
and its standard output sent to standard error, and, if it succeeded, writes the
directory as a tar stream to standard output, which the arena reads with a byte cap and
unpacks with tarfile's ``data`` filter. The stream is treated as untrusted all the same
(the command may reach the runner's descriptors through ``/proc``). Between unpacking and
running, it loads the build's seccomp filter (:func:`arena.sandbox.seccomp.build_step`)
when *SECCOMP* is ``offline`` or ``network`` (``none``: no filter).

Stdlib only, and run by path with ``-S``, like :mod:`arena.sandbox.confine`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

EXIT_SETUP = 125
"""The bot's files could not be unpacked or the result packed."""


def unpack() -> None:
    """The bot's files, from the arena's tar stream on standard input, into ``.``."""
    with tarfile.open(fileobj=sys.stdin.buffer, mode="r|") as tar:
        tar.extractall(".", filter="data")


def pack() -> None:
    """The directory, build outputs included, as a tar stream on standard output."""
    with tarfile.open(fileobj=sys.stdout.buffer, mode="w|") as tar:
        for name in sorted(os.listdir(".")):
            tar.add(name)


def confine(mode: str) -> None:
    """Load the build's seccomp filter (``offline`` or ``network``; ``none``: none)."""
    if mode == "none":
        return
    from arena.sandbox import seccomp  # noqa: PLC0415 - only imported when used

    bpf = seccomp.build_step(network=mode == "network")
    bpf.load()
    bpf.close()


def main(argv: list[str]) -> int:
    """``SECCOMP -- COMMAND...``: unpack, confine, run, pack; the command's exit status."""
    if len(argv) < 3 or argv[1] != "--" or argv[0] not in ("none", "offline", "network"):
        print("usage: runner.py none|offline|network -- COMMAND...", file=sys.stderr)
        return EXIT_SETUP
    command = argv[2:]
    try:
        unpack()
        confine(argv[0])
    except (OSError, tarfile.TarError) as exc:
        print(f"arena build: cannot set up the build: {exc}", file=sys.stderr)
        return EXIT_SETUP
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=2, check=False)
    except OSError as exc:  # 127 as a shell says "not found", 126 "cannot execute"
        print(f"arena build: command not found: {command[0]}: {exc.strerror}", file=sys.stderr)
        return 127 if isinstance(exc, FileNotFoundError) else 126
    if done.returncode != 0:
        return done.returncode if done.returncode > 0 else 128 - done.returncode
    try:
        pack()
        sys.stdout.flush()
    except (OSError, tarfile.TarError) as exc:
        print(f"arena build: cannot pack the result: {exc}", file=sys.stderr)
        return EXIT_SETUP
    return 0


if __name__ == "__main__":
    # Run by path with -S: make the arena package importable without site-packages.
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    sys.exit(main(sys.argv[1:]))
