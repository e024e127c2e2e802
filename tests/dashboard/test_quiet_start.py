"""``arena dashboard`` starts without Streamlit's "No runtime found, using
MemoryCacheStorageManager" lines: the server entry (dashboard/server.py) imports the pages'
modules before Streamlit's runtime exists, and each ``@st.cache_data`` of dashboard/data.py
used to log that line when it was decorated (fourteen lines on every start)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.dashboard.helpers import free_port, wait_for_url
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
NOISE = "No runtime found"


def test_the_dashboard_starts_without_cache_warnings(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "dashboard.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "dashboard", "--db",
             migrated_sqlite_url(tmp_path / "a.db"), "--data", str(tmp_path / "data"),
             "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        wait_for_url(process, log)  # the server module has been imported by now
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    printed = log.read_text(errors="replace")
    assert "952 Arena dashboard: http://127.0.0.1:" in printed
    assert NOISE not in printed
    assert "WARNING" not in printed


def test_control_the_pages_data_module_alone_still_says_it() -> None:
    """Without the server entry's guard the same import logs the line once per cached
    function: what the test above would see if the guard went away."""
    done = subprocess.run(
        [sys.executable, "-c", "import dashboard.data"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stderr.count(NOISE) >= 10
