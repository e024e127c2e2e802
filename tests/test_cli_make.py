"""The Makefile's demo and install targets, and the linters' excludes (issue 34, items 1, 2,
3, 13 and 14).

The Makefile runs here for real, in a copy of the checkout's Makefile, pyproject.toml and
scripts/port_free.py, with a stand-in ``python`` (and the ``arena`` it installs) that logs
what it is asked to do instead of installing or playing: what is tested is which steps
run, in which order, with which arguments; ``pip`` and the arena have tests of their own.
The excludes run the real ruff, pytest and mypy on a checkout-like layout.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENGINE_SOURCES = ("state.py", "dealing.py", "exchange.py", "ending.py", "_native.py", "_build.py")

FAKE_PYTHON = """#!/bin/bash
# Logs what it is asked; makes a venv of stand-ins; runs anything else with the real python.
echo "python $*" >> "$FAKE_LOG"
case "$1 ${2:-}" in
  "-m venv") mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; cp "$FAKE_ARENA" "$3/bin/arena"; exit 0;;
  "-m pip"|"-m compileall"|"-m arena.game._build") exit 0;;
esac
exec "$REAL_PYTHON" "$@"
"""

FAKE_ARENA = """#!/bin/bash
# Logs each command; remembers a submitted bot and a created tournament as files.
echo "arena $* (ARENA_DATA=$ARENA_DATA)" >> "$FAKE_LOG"
case "$1 $2" in
  "bot submit") mkdir -p "$ARENA_DATA"; touch "$ARENA_DATA/arena.db";;
  "tournament status") [ -e "$ARENA_DATA/created" ] || exit 1;;
  "tournament create") touch "$ARENA_DATA/created";;
  "user reset") echo "password: one-time";;
esac
exit 0
"""


class Checkout:
    """A copy of what the Makefile reads, with the stand-ins, and ``make`` in it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copy(ROOT / "Makefile", root / "Makefile")
        shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
        (root / "scripts").mkdir()
        shutil.copy(ROOT / "scripts" / "port_free.py", root / "scripts" / "port_free.py")
        game = root / "arena" / "game"
        game.mkdir(parents=True)
        for name in ENGINE_SOURCES:
            shutil.copy(ROOT / "arena" / "game" / name, game / name)
        self.log = root / "fake.log"
        self.python = root / "fake-python"
        self.python.write_text(FAKE_PYTHON)
        self.python.chmod(0o755)
        arena = root / "fake-arena"
        arena.write_text(FAKE_ARENA)
        arena.chmod(0o755)
        self.env = {
            **os.environ,
            "FAKE_LOG": str(self.log),
            "FAKE_ARENA": str(arena),
            "REAL_PYTHON": sys.executable,
        }
        self.env.pop("MAKEFLAGS", None)
        self.env.pop("MAKELEVEL", None)

    def make(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["make", "--no-print-directory", f"PYTHON={self.python}", *args],
            cwd=self.root, env=self.env, capture_output=True, text=True, check=False,
            timeout=120,
        )  # fmt: skip

    def logged(self) -> list[str]:
        """The lines logged since the last call."""
        if not self.log.exists():
            return []
        lines = self.log.read_text().splitlines()
        self.log.unlink()
        return lines


@pytest.fixture
def checkout(tmp_path: Path) -> Checkout:
    if shutil.which("make") is None:
        pytest.fail("GNU make is needed (the README's first command is make)")
    return Checkout(tmp_path)


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port something listens on."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _pip_installs(lines: list[str]) -> list[str]:
    return [line.split(" install ", 1)[1] for line in lines if "-m pip install" in line]


# ------------------------------------------------------------------ the port (item 2)


def test_a_taken_port_stops_the_demo_in_one_line_before_anything_is_done(
    checkout: Checkout, taken_port: int
) -> None:
    result = checkout.make("demo", f"PORT={taken_port}")
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if not line.startswith("make")]
    assert errors == [
        f"error: port {taken_port} on 127.0.0.1 is in use (another dashboard?); "
        f"choose another: make demo PORT={taken_port + 1}"
    ]
    assert not (checkout.root / ".venv").exists()  # nothing was installed ...
    assert not any("-m venv" in line or "arena " in line for line in checkout.logged())
    # Control: the same port, free, passes the check.
    assert checkout.make("demo-port", f"PORT={_free_port()}").returncode == 0


def test_a_port_that_is_no_number_is_one_line_too(checkout: Checkout) -> None:
    result = checkout.make("demo-port", "PORT=http")
    assert result.returncode != 0
    assert "PORT='http' is not a port number (1-65535)" in result.stderr


# ------------------------------------------------------------------ the demo's data (2, 3)


def test_the_demo_keeps_its_data_and_password_and_says_how_to_use_them(
    checkout: Checkout,
) -> None:
    port = str(_free_port())
    first = checkout.make("demo", f"PORT={port}")
    assert first.returncode == 0, first.stderr
    logged = checkout.logged()
    arena = [line for line in logged if line.startswith("arena ")]
    demo_data = "ARENA_DATA=runs/demo"
    assert all(demo_data in line for line in arena)
    assert any(line.startswith("arena tournament create demo") for line in arena)
    assert any(line.startswith("arena user reset local") for line in arena)
    assert arena[-1].startswith(f"arena dashboard --port {port} ")
    demo = checkout.root / "runs" / "demo"
    assert f"export ARENA_DATA={demo} ARENA_DB=" in first.stdout
    assert "make shell" in first.stdout
    kept = demo / "games-played-here"
    kept.touch()

    second = checkout.make("demo", f"PORT={port}")
    assert second.returncode == 0, second.stderr
    arena = [line for line in checkout.logged() if line.startswith("arena ")]
    assert kept.exists()  # not wiped
    assert "Reusing the demo's data in runs/demo" in second.stdout
    assert "make demo FRESH=1" in second.stdout
    assert not any(line.startswith("arena user reset") for line in arena)  # same password
    assert not any(line.startswith("arena tournament create") for line in arena)
    assert any(line.startswith("arena tournament run demo") for line in arena)

    # Control: FRESH=1 starts anew, with a new password.
    fresh = checkout.make("demo", f"PORT={port}", "FRESH=1")
    assert fresh.returncode == 0, fresh.stderr
    arena = [line for line in checkout.logged() if line.startswith("arena ")]
    assert not kept.exists()
    assert any(line.startswith("arena user reset local") for line in arena)
    assert any(line.startswith("arena tournament create demo") for line in arena)


def test_demo_clean_removes_the_demos_data_only(checkout: Checkout) -> None:
    demo = checkout.root / "runs" / "demo"
    demo.mkdir(parents=True)
    other = checkout.root / "runs" / "sim"
    other.mkdir()
    assert checkout.make("demo-clean").returncode == 0
    assert not demo.exists()
    assert other.exists()  # control: the rest of runs/ stays


# ------------------------------------------------------------------ install levels (13, 14)


def test_the_demo_installs_the_core_then_test_installs_the_rest(checkout: Checkout) -> None:
    assert checkout.make("venv-core").returncode == 0
    logged = checkout.logged()
    assert _pip_installs(logged) == ["--disable-pip-version-check --progress-bar off -e .[engine]"]
    assert any("-m arena.game._build" in line for line in logged)  # the engine is built too
    assert checkout.make("venv").returncode == 0
    assert _pip_installs(checkout.logged()) == [
        "--disable-pip-version-check --progress-bar off -e .[dev,bench,pettingzoo,ray]"
    ]
    # Both installs are current now: neither runs again.
    assert checkout.make("venv-core").returncode == 0
    assert checkout.make("venv").returncode == 0
    assert _pip_installs(checkout.logged()) == []


def test_after_the_full_install_the_demo_installs_nothing(checkout: Checkout) -> None:
    full = checkout.make("venv")
    assert full.returncode == 0
    assert len(_pip_installs(checkout.logged())) == 1  # the full install, and no other
    assert "already has the full install" in full.stdout  # (the engine's build needs the core)
    assert checkout.make("venv-core").returncode == 0
    assert _pip_installs(checkout.logged()) == []


def test_without_a_compiler_the_engine_is_skipped_in_one_line(checkout: Checkout) -> None:
    result = checkout.make("venv-core", "CC=no-such-compiler")
    assert result.returncode == 0
    assert result.stderr.strip() == (
        "note: no C compiler (no-such-compiler) here: the engine runs as pure Python "
        "(same results, slower)"
    )
    assert not any("arena.game._build" in line for line in checkout.logged())
    # Control: with a compiler named, the build runs.
    assert checkout.make("engine", "CC=sh").returncode == 0
    assert any("-m arena.game._build" in line for line in checkout.logged())


# ------------------------------------------------------------------ excludes (item 1)

BAD_CODE = "import os\nx=1\n"  # an unused import (ruff check) and unformatted (ruff format)


@pytest.fixture
def stray(tmp_path: Path) -> Path:
    """A checkout-like layout: a stored bot's copy under arena-data/ and a run output under
    runs/, each with code that fails every check, and the same code in the project."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for folder, name in (("arena-data/bots/my_bot/1", "bot"), ("runs/sim", "run"),
                         ("project", "project")):  # fmt: skip
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / f"bad_{name}.py").write_text(BAD_CODE + "y: int = 'text'\n")
        (tmp_path / folder / f"test_{name}.py").write_text("def test_it() -> None:\n    pass\n")
    return tmp_path


def test_ruff_skips_stored_bots_and_runs(stray: Path) -> None:
    ruff = [str(BIN / "ruff")]
    check = subprocess.run([*ruff, "check", "--no-cache", "--output-format", "concise", "."],
                           cwd=stray, capture_output=True, text=True, check=False)  # fmt: skip
    flagged = {line.split(":", 1)[0] for line in check.stdout.splitlines() if ".py:" in line}
    assert flagged == {"project/bad_project.py"}  # the control is found, the strays are not
    form = subprocess.run([*ruff, "format", "--no-cache", "--check", "."],
                          cwd=stray, capture_output=True, text=True, check=False)  # fmt: skip
    assert "project/bad_project.py" in form.stdout
    assert "arena-data" not in form.stdout and "runs/" not in form.stdout


def test_pytest_collects_no_stored_bots_or_runs(stray: Path) -> None:
    collect = subprocess.run(
        [str(BIN / "pytest"), "--collect-only", "-q", "-p", "no:cacheprovider", "."],
        cwd=stray, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    collected = [line for line in collect.stdout.splitlines() if "::" in line]
    assert collected == ["project/test_project.py::test_it"], collect.stdout


def test_mypy_skips_stored_bots_and_runs(stray: Path) -> None:
    run = subprocess.run(
        [str(BIN / "mypy"), "--cache-dir", str(stray / ".mypy_cache"), "."],
        cwd=stray, capture_output=True, text=True, check=False,
    )  # fmt: skip
    flagged = {line.split(":", 1)[0] for line in run.stdout.splitlines() if ".py:" in line}
    assert flagged == {"project/bad_project.py"}, run.stdout
