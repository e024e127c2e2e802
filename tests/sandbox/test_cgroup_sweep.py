"""Which base cgroups a new referee sweeps as a dead referee's (kills what is in them and
removes them): only those it can prove dead, by pid, start time and pid namespace.

A pid alone is not proof: pids are reused, so a dead referee's cgroup (and a bot daemon
in it) lived on while any process held its pid; and the pids of a referee in another pid
namespace sharing the cgroup tree name other processes here. Plain directories stand in
for the cgroups (sweeping needs no cgroup file).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from arena.sandbox import cgroups
from tests.sandbox.test_spawn_races import dead_pid, fake_hierarchy


def _left(root: Path, name: str) -> Path:
    """A referee's base cgroup *name* under *root*, with one bot cgroup in it."""
    stale = root / name
    (stale / "bot-1").mkdir(parents=True)
    return stale


def _namespace() -> int:
    return os.stat("/proc/self/ns/pid").st_ino


def test_a_dead_referees_cgroup_is_swept_though_its_pid_lives_again(tmp_path: Path) -> None:
    found = fake_hierarchy(tmp_path)
    with subprocess.Popen(["sleep", "30"]) as other:  # a process that now holds the pid
        try:
            start = int(cgroups.referee_name(other.pid).split("-")[2])
            reused = _left(tmp_path, f"arena-{other.pid}-{start + 1}-{_namespace()}")
            legacy = _left(tmp_path, f"arena-{other.pid}")
            swept = cgroups.sweep_stale(found)
        finally:
            other.kill()
    assert swept == [reused] and not reused.exists()
    # Control: the old name, judged by its pid alone, is kept while the pid lives.
    assert legacy.is_dir()


def test_a_live_referees_cgroup_is_never_swept(tmp_path: Path) -> None:
    found = fake_hierarchy(tmp_path)
    with subprocess.Popen(["sleep", "30"]) as referee:
        try:
            live = _left(tmp_path, cgroups.referee_name(referee.pid))
            assert cgroups.sweep_stale(found) == []
            assert live.is_dir()
        finally:
            referee.kill()
    # Control: once that referee is gone, the same cgroup is swept.
    referee.wait()
    assert cgroups.sweep_stale(found) == [live]


def test_another_pid_namespaces_referee_is_never_judged(tmp_path: Path) -> None:
    found = fake_hierarchy(tmp_path)
    foreign = _left(tmp_path, f"arena-{dead_pid()}-1-{_namespace() + 1}")
    ours = _left(tmp_path, f"arena-{dead_pid()}-1-{_namespace()}")
    # Control: the same dead pid and start in our namespace is swept.
    assert cgroups.sweep_stale(found) == [ours]
    assert foreign.is_dir()


def test_this_referees_name_says_it_lives() -> None:
    name = cgroups.referee_name()
    pid, start, namespace = (int(part) for part in name.removeprefix("arena-").split("-"))
    assert (pid, namespace) == (os.getpid(), _namespace())
    assert not cgroups._referee_gone(name)
    assert cgroups._referee_gone(f"arena-{pid}-{start + 1}-{namespace}")
