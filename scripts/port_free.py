"""Exit 0 if the demo's dashboard port is free on 127.0.0.1, else one line and exit 1.

``make demo`` runs this first, with the system's python (before the virtual environment
exists), so that a busy port is named, with the way to choose another, before anything is
installed or played; the dashboard itself would only find out after the whole demo
tournament. The probe binds as the dashboard's server does (``SO_REUSEADDR``), so a
connection still in TIME_WAIT does not count as in use. Standard library only.

Usage: ``python scripts/port_free.py PORT``
"""

from __future__ import annotations

import errno
import socket
import sys

HOST = "127.0.0.1"
"""Where ``arena dashboard`` listens by default."""


def problem(port_text: str) -> str | None:
    """Why the demo cannot serve on *port_text*, or ``None`` if it can."""
    try:
        port = int(port_text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        return (
            f"PORT={port_text!r} is not a port number (1-65535); for example: make demo PORT=8502"
        )
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                other = port + 1 if port < 65535 else port - 1
                return (
                    f"port {port} on {HOST} is in use (another dashboard?); "
                    f"choose another: make demo PORT={other}"
                )
            return f"cannot listen on {HOST} port {port}: {exc.strerror or exc}"
    return None


def main(argv: list[str]) -> int:
    """Check ``argv[1]``; print the problem on stderr."""
    if len(argv) != 2:
        print("usage: python scripts/port_free.py PORT", file=sys.stderr)
        return 2
    found = problem(argv[1])
    if found is None:
        return 0
    print(f"error: {found}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
