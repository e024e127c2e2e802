"""The JavaScript sample bot, built once for every test that plays it.

A fresh clone has no ``node_modules``; the bot's own build command (``npm ci``) makes it.
Tests in several modules (and several pytest-xdist workers) need it, so the build runs
under a file lock and only when ``node_modules`` is missing.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from arena.referee.manifest import BotManifest, load_manifest

JS_BOT = Path(__file__).resolve().parents[1] / "sample_bots" / "js_random_bot"
BUILD_TIMEOUT_S = 300


def require_node() -> None:
    """Skip (fail with ``CI=true``) when node or npm is missing."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if not missing:
        return
    reason = f"{' and '.join(missing)} not on PATH: the JavaScript sample bot cannot run"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def built_js_bot() -> BotManifest:
    """The JS bot's manifest, after its build command ran if ``node_modules`` is missing."""
    require_node()
    manifest = load_manifest(JS_BOT)
    lock_path = Path(tempfile.gettempdir()) / "arena952-js-bot-build.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one npm ci at a time, across xdist workers
        if not (JS_BOT / "node_modules").is_dir():
            assert manifest.build is not None
            proc = subprocess.run(
                manifest.build,
                cwd=JS_BOT,
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT_S,
                check=False,
            )
            assert proc.returncode == 0, (
                f"build {' '.join(manifest.build)} failed ({proc.returncode}):\n"
                f"{proc.stdout}\n{proc.stderr}"
            )
    return manifest
