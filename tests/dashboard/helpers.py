"""Helpers for tests that start ``arena dashboard`` as a real server."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from dashboard import remember


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_url(process: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> str:
    """The URL ``arena dashboard`` prints (into *log*) once its server answers.

    The server's output goes to a file, not a pipe: a pipe nobody reads once the server is
    up would fill and block it.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("952 Arena dashboard: "):
                return line.split()[3]
        time.sleep(0.1)
    process.kill()
    process.wait()
    pytest.fail("the dashboard did not start:\n" + log.read_text(errors="replace"))


def login_cookie(page: Any, deadline_s: float = 30.0) -> dict[str, Any]:
    """The login cookie once the page's script has set it."""
    deadline = time.monotonic() + deadline_s
    while True:
        found = [c for c in page.context.cookies() if c["name"] == remember.COOKIE]
        if found:
            return dict(found[0])
        assert time.monotonic() < deadline, "the login cookie was never set"
        time.sleep(0.1)
