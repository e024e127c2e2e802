"""Helpers for tests that start ``arena dashboard`` as a real server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dashboard import remember

ROOT = Path(__file__).resolve().parents[2]
BROWSER_TIMEOUT_MS = 120_000
"""How long a browser test waits for a page to reach a state. Generous: a test waits for
states, not for time, and a busy machine (two cores shared with other work) can take a
minute to draw a page whose script is cold; a failure only takes longer to report."""


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


UPLOAD_PATH = "/_stcore/upload_file/"


def settled(page: Any, timeout_ms: float = BROWSER_TIMEOUT_MS) -> None:
    """Wait until no script run is in flight (Streamlit marks the run's state on the app's
    root): a form filled while the login's rerun is still drawing the page can be drawn
    afresh, empty, before it is submitted."""
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(
        timeout=timeout_ms
    )


def upload_then_submit(page: Any, filename: str, content: bytes, timeout_ms: float) -> None:
    """Put *content* into the page's file uploader and click the form's Submit button.

    The caller settles the page first (it may have to open the uploader's expander); the
    click waits for the upload to have reached the server (its PUT answered), the button
    to be enabled and the page to be settled again. Without these waits, a participant's
    upload right after a login was once lost on the loaded CI machine, and in 1 of 10 runs
    under two busy cores: the screenshot showed the file in the uploader, nothing submitted
    and no message, so the test waited out its timeout. Which state swallowed the click is
    not pinned down (the organiser's form, filled mid-rerun, was redrawn empty: hence the
    caller's settling).
    """
    dropzone = page.locator("[data-testid='stFileUploaderDropzoneInput']")
    with page.expect_response(
        lambda r: UPLOAD_PATH in r.url and r.request.method == "PUT", timeout=timeout_ms
    ) as sent:
        dropzone.set_input_files(
            files=[{"name": filename, "mimeType": "application/zip", "buffer": content}]
        )
    assert sent.value.ok, f"the upload of {filename} was refused: HTTP {sent.value.status}"
    page.get_by_text(filename).first.wait_for()
    submit = page.get_by_role("button", name="Submit")
    page.wait_for_function(
        "button => !button.disabled", arg=submit.element_handle(), timeout=timeout_ms
    )
    settled(page, timeout_ms)
    submit.click()


@contextmanager
def served_dashboard(database: str, data: Path, log: Path) -> Iterator[str]:
    """``arena dashboard`` on *database* (its data folder *data*, its output in *log*) on a
    free port, as its own process; its URL. Stopped with Ctrl-C's signal on exit."""
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "arena.cli", "dashboard"),
                *("--db", database, "--data", str(data), "--port", str(free_port())),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env=dict(os.environ),
        )
    try:
        yield wait_for_url(process, log)
    finally:
        process.send_signal(2)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
