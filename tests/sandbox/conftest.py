"""The sandbox tests say which layers they ran with: in pytest's header when pytest is
pointed at tests/sandbox, and in the terminal summary whenever a sandbox test ran."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.sandbox.probe import probe
from tests.sandbox.sandbox_support import PROFILES, private_dirs

__all__ = ["private_dirs"]  # the fixture, for every sandbox test

_ran: list[bool] = []


def layer_lines() -> list[str]:
    """One line per layer (available, or why not) and one per test profile (layers on)."""
    caps = probe()
    lines = ["sandbox layers on this machine:"]
    for layer, status in caps.layers.items():
        lines.append(f"  {layer.value:9} {'yes' if status.available else 'NO '}  {status.detail}")
    for profile in PROFILES:
        on = ", ".join(sorted(layer.value for layer in profile.layers)) or "none"
        lines.append(f"sandbox test profile {profile.name}: {on}")
    return lines


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The layers, before the tests (when this directory is named on the command line)."""
    del config
    return layer_lines()


@pytest.fixture(autouse=True)
def _note_sandbox_test() -> Iterator[None]:
    _ran.append(True)
    yield


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The layers again, after the tests, whenever a sandbox test ran (here, or in a
    pytest-xdist worker: then the reports tell)."""
    reports = (r for kind in terminalreporter.stats.values() for r in kind)
    if _ran or any(str(getattr(r, "nodeid", "")).startswith("tests/sandbox/") for r in reports):
        terminalreporter.section("sandbox layers")
        for line in layer_lines():
            terminalreporter.write_line(line)
