"""``arena dashboard --check`` and ``arena doctor`` report how the dashboard is exposed, and a
malformed web setting is one line before anything starts (the real CLI, in a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _arena(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True, text=True, check=False, timeout=120, cwd=ROOT,
        env={**clean, **env},
    )  # fmt: skip


def test_check_on_this_machine_only_is_quiet() -> None:
    done = _arena("dashboard", "--check")
    assert done.returncode == 0, done.stderr
    assert "this machine only" in done.stdout
    assert (
        "belong to http://127.0.0.1:8501, http://[::1]:8501, http://localhost:8501 only"
        in done.stdout
    )
    assert "/_stcore/metrics is closed" in done.stdout
    assert "WARNING" not in done.stdout


def test_check_warns_for_every_interface_without_a_public_url() -> None:
    done = _arena("dashboard", "--check", "--host", "0.0.0.0")
    assert done.returncode == 1
    warnings = [line for line in done.stdout.splitlines() if "WARNING" in line]
    assert any("DNS rebinding" in line for line in warnings)
    assert any("plain HTTP" in line for line in warnings)
    # Control: behind an HTTPS proxy with a public URL, nothing to warn about.
    quiet = _arena("dashboard", "--check", "--host", "0.0.0.0",
                   ARENA_PUBLIC_URL="https://arena.example.org",
                   ARENA_TRUSTED_PROXIES="172.30.52.10")  # fmt: skip
    assert quiet.returncode == 0, quiet.stdout
    assert "__Host- prefix" in quiet.stdout and "172.30.52.10/32" in quiet.stdout


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("ARENA_TRUSTED_PROXIES", "*"),
        ("ARENA_TRUSTED_PROXIES", "0.0.0.0/0"),
        ("ARENA_TRUSTED_PROXIES", "proxy.local"),
        ("ARENA_PUBLIC_URL", "arena.example.org"),
        ("ARENA_PUBLIC_URL", "javascript:alert(1)"),
        ("ARENA_DASHBOARD_SESSIONS_PER_CLIENT", "0"),
        ("ARENA_DASHBOARD_MAX_SESSIONS", "lots"),
    ],
)
def test_a_malformed_web_setting_is_one_line_before_the_server_starts(
    variable: str,
    value: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In-process (the settings are read before anything else happens)."""
    monkeypatch.setenv(variable, value)
    for args in (["dashboard", "--check"], ["dashboard", "--db", f"sqlite:///{tmp_path / 'a.db'}"]):
        assert main(args) == 1
        err = capsys.readouterr().err
        assert err.startswith("arena: error: $" + variable)
        assert len(err.strip().splitlines()) == 1
        assert not (tmp_path / "a.db").exists()  # nothing opened, nothing started
    monkeypatch.delenv(variable)
    assert main(["dashboard", "--check"]) == 0  # control: the same command without it


def test_doctor_reports_the_dashboards_exposure() -> None:
    done = _arena("doctor", ARENA_TRUSTED_PROXIES="10.0.0.0/8")
    assert "the dashboard (`arena dashboard` on 127.0.0.1:8501" in done.stdout
    assert "honoured from 10.0.0.0/8" in done.stdout
