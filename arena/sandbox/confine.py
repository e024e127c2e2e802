"""The exec wrapper: confine this fresh process, then become the bot.

``python -I -S .../arena/sandbox/confine.py SPEC -- COMMAND...`` sets the rlimits (when
``prlimit`` is not installed), applies Landlock and the seccomp filter as *SPEC* (JSON)
says, and ``execvp``-s *COMMAND*. It runs in a process of its own, started by an ordinary
fork+exec from the referee, so no Python code ever runs between fork and exec in the
referee (whose gRPC threads make that unsafe).

Stdlib only, and run by path with ``-S``: start-up stays around 15 ms.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path
from typing import Any

EXIT_SETUP = 125
"""Exit status when the sandbox cannot be set up (as ``env``/``chroot`` do). A bot may
exit with it too: the referee tells the two apart by the chain's ready signal, which
comes after this wrapper (:func:`arena.sandbox.chain.ready_step`), never by the status."""

RLIMITS = {
    "cpu": resource.RLIMIT_CPU,
    "data": resource.RLIMIT_DATA,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
    "nproc": resource.RLIMIT_NPROC,
}


def apply(spec: dict[str, Any]) -> None:
    """Apply *spec* to this process: rlimits, then Landlock, then seccomp (last, so the
    Landlock calls are not filtered)."""
    for name, (soft, hard) in (spec.get("rlimits") or {}).items():
        resource.setrlimit(RLIMITS[name], (soft, hard))
    if spec.get("landlock") is not None:
        from arena.sandbox import landlock  # noqa: PLC0415 - only imported when used

        rules = spec["landlock"]
        landlock.restrict(
            [(path, rights) for path, rights in rules["rules"]],
            write=rules["write"],
            tcp_connect=rules["tcp"],
            filesystem=rules.get("fs", True),
        )
    if spec.get("seccomp") is not None:
        from arena.sandbox import seccomp  # noqa: PLC0415 - only imported when used

        bpf = seccomp.build(allow_inet=bool(spec["seccomp"]["allow_inet"]))
        bpf.load()
        bpf.close()


def main(argv: list[str]) -> int:
    """``SPEC -- COMMAND...``: confine, then exec COMMAND (returns only on failure)."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: confine.py SPEC -- COMMAND...", file=sys.stderr)
        return EXIT_SETUP
    spec = json.loads(argv[0])
    command = argv[2:]
    try:
        apply(spec)
    except (OSError, ValueError) as exc:
        print(f"arena sandbox: cannot confine the bot: {exc}", file=sys.stderr)
        return EXIT_SETUP
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"arena sandbox: cannot execute {command[0]!r}: {exc.strerror}", file=sys.stderr)
        return 127 if isinstance(exc, FileNotFoundError) else 126


if __name__ == "__main__":
    # Run by path with -S: make the arena package importable without site-packages.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.exit(main(sys.argv[1:]))
