"""What the cgroup layer says on a tournament's console: a bot cgroup that cannot be made
is said once per process, in words, with where to look (``arena doctor``); sweeping a dead
referee's cgroups (after a killed runner) is housekeeping, not a warning. Each worker of a
tournament used to print a ``WARNING:arena.sandbox.cgroups`` line for both, once per bot
process for the first. Plain directories stand in for the cgroups.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox import cgroups
from tests.sandbox.sandbox_support import missing
from tests.sandbox.test_spawn_races import dead_pid, fake_hierarchy

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def unsaid(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not said yet that its bots run without a cgroup."""
    monkeypatch.setattr(cgroups, "_said_degraded", False)


def _unmakeable(root: Path) -> cgroups.Hierarchy:
    """A hierarchy whose base is gone, so no bot cgroup can be made in it."""
    return cgroups.Hierarchy(1, {"memory": root / "gone"}, frozenset({"memory", "pids"}))


def _create(found: cgroups.Hierarchy, *, probe: bool = False) -> cgroups.BotCgroup | None:
    return cgroups.create(found, memory_bytes=64 << 20, processes=8, cpu_cores=None, probe=probe)


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == cgroups.__name__ and r.levelno >= logging.WARNING
    ]


@pytest.mark.usefixtures("unsaid")
def test_a_cgroup_that_cannot_be_made_is_said_once_in_words(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    found = _unmakeable(tmp_path)
    with caplog.at_level(logging.DEBUG, logger=cgroups.__name__):
        assert [_create(found) for _ in range(5)] == [None] * 5  # five bots of one worker
    (said,) = _warnings(caplog)
    assert said.startswith("sandbox: bots run without their cgroup (no memory, process or CPU")
    assert "No such file or directory" in said and "`arena doctor`" in said
    assert "[Errno" not in said  # the reason in words, not Python's exception text
    # The other four are still logged, for whoever reads debug logs.
    assert sum("cannot create a bot cgroup" in r.getMessage() for r in caplog.records) == 4
    # Control: in a process that has not said it yet, the same failure is said again.
    cgroups._said_degraded = False
    caplog.clear()
    _create(found)
    assert len(_warnings(caplog)) == 1


@pytest.mark.usefixtures("unsaid")
def test_the_layer_probe_says_nothing_its_summary_line_reports_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    found = _unmakeable(tmp_path)
    with caplog.at_level(logging.DEBUG, logger=cgroups.__name__):
        assert _create(found, probe=True) is None
        assert _warnings(caplog) == []
        # Control: the first bot's failure after the probe is still said.
        assert _create(found) is None
    assert len(_warnings(caplog)) == 1


def test_a_cgroup_that_can_be_made_says_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    found = cgroups.Hierarchy(1, {"pids": tmp_path}, frozenset({"memory", "pids"}))
    with caplog.at_level(logging.DEBUG, logger=cgroups.__name__):
        made = _create(found)
    assert made is not None and made.paths == [tmp_path / made.paths[0].name]
    assert caplog.records == []


def test_sweeping_a_dead_referees_cgroups_is_no_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    found = fake_hierarchy(tmp_path)
    stale = tmp_path / f"arena-{dead_pid()}"
    (stale / "bot-1").mkdir(parents=True)
    with caplog.at_level(logging.DEBUG, logger=cgroups.__name__):
        assert cgroups.sweep_stale(found) == [stale]
    assert _warnings(caplog) == []
    # Control: it did sweep, and says so where debugging finds it.
    assert not stale.exists()
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert str(stale) in caplog.records[0].getMessage()


SWEEP_IN_A_WORKER = (
    "import logging, sys\n"
    "from arena.tournament import worker\n"
    "from arena.sandbox import cgroups\n"
    "worker.configure_logging() if sys.argv[1] == 'worker' else logging.basicConfig(level=20)\n"
    "assert cgroups.hierarchy() is not None, cgroups.reason()\n"
)
"""What a tournament worker does first with the cgroup layer, under the worker's own
logging (WARNING and up to the organiser's terminal), or under INFO logging (control)."""


def _stale_referee(found: cgroups.Hierarchy) -> list[Path]:
    """A dead referee's base cgroup beside ours in every hierarchy, with a bot cgroup in
    it: what a killed runner leaves behind."""
    name = f"arena-{dead_pid()}-1-{os.stat('/proc/self/ns/pid').st_ino}"
    made = []
    for base in found.bases.values():
        (base.parent / name / "bot-1").mkdir(parents=True)
        made.append(base.parent / name)
    return made


@pytest.mark.parametrize("logging_as", ["worker", "info"])
def test_a_worker_sweeping_a_killed_runners_cgroups_prints_nothing(logging_as: str) -> None:
    found = cgroups.hierarchy()
    if found is None:
        missing(f"cgroup: {cgroups.reason()}")
    assert found is not None
    stale = _stale_referee(found)
    done = subprocess.run(
        [sys.executable, "-c", SWEEP_IN_A_WORKER, logging_as],
        capture_output=True, text=True, check=False, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not any(path.exists() for path in stale)  # it did sweep them
    if logging_as == "worker":
        assert done.stderr == ""  # was: WARNING:arena.sandbox.cgroups:removed the cgroups ...
    else:  # control: the line is there for whoever logs at INFO
        assert "removed the cgroups of dead referees" in done.stderr
        assert "WARNING" not in done.stderr
