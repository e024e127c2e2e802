"""Races between referees that start together (a tournament's parallel workers, pytest-xdist
workers): each new referee sweeps what dead referees left behind, and two sweepers must
not trip over each other; nor may a referee trip over a bot directory being written.

The rare ENOENT spawn failure under parallel workers was the first race: two
fresh referees listed the same dead referee's cgroup, one removed it, and the other's
look inside it raised FileNotFoundError out of the sweep, the probe, and so out of its
first ``BotProcess.start`` (a second try succeeded: the sweep does not run twice). Here
the other referee's sweep is made to run at the exact moment between a sweeper's listing
and its look inside (a hook on ``Path.glob``), so the race happens every time; each such
test also checks that the hook fired and that the other sweeper really removed the
leftover first, so a sweep that stopped listing this way cannot pass without the race.
The private directories' sweep was already safe (their owner lock): its test keeps it so.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.referee.process import BotProcess, LogCapture, bot_environment
from arena.sandbox import cgroups, quota, workdirs
from arena.sandbox import probe as probe_module
from arena.sandbox.config import Layer
from tests.sandbox.sandbox_support import NAMESPACES, missing, random_bot

_glob = Path.glob


def dead_pid() -> int:
    """A pid no process can have (above the kernel's pid_max), distinct per test process."""
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    return pid_max + os.getpid()


class OtherSweeperFirst:
    """Makes the first listing of *parent* with *pattern* return what it saw, but only after
    *sweep* (another referee's sweep) has run to its end: the interleaving of the race."""

    def __init__(self, parent: Path, pattern: str, sweep: Callable[[], list[Path]]) -> None:
        self.parent, self.pattern, self.sweep = parent, pattern, sweep
        self.swept: list[Path] | None = None
        """What the other sweeper removed (``None``: the hook has not fired)."""
        self.listed: list[Path] = []
        """What the hooked sweeper listed."""
        self.gone: list[Path] = []
        """What it listed that was gone when it went on (the race's condition)."""

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Hook ``Path.glob`` for the rest of the test."""

        def glob(path: Path, pattern: str) -> Iterator[Path]:
            found = list(_glob(path, pattern))
            if self.swept is None and path == self.parent and pattern == self.pattern:
                self.listed = found
                self.swept = []  # the other sweeper's own listing passes through
                self.swept = self.sweep()
                self.gone = [p for p in found if not p.exists()]
            return iter(found)

        monkeypatch.setattr(Path, "glob", glob)


def fake_hierarchy(root: Path) -> cgroups.Hierarchy:
    """A v1 hierarchy of plain directories (a cgroup's files are not needed to sweep it)."""
    base = root / f"arena-{os.getpid()}"
    base.mkdir(parents=True)
    return cgroups.Hierarchy(1, {"memory": base}, frozenset({"memory", "pids"}))


def test_two_referees_sweep_a_dead_referees_cgroup_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = fake_hierarchy(tmp_path / "memory")
    stale = tmp_path / "memory" / f"arena-{dead_pid()}"
    (stale / "bot-1").mkdir(parents=True)
    other = OtherSweeperFirst(stale.parent, "arena-*", lambda: cgroups.sweep_stale(found))
    other.install(monkeypatch)

    assert cgroups.sweep_stale(found) == [], "the other referee swept it first"
    assert other.swept == [stale] and other.gone == [stale], "control: gone before the look"
    assert set(other.listed) == {found.bases["memory"], stale}
    assert found.bases["memory"].is_dir(), "a live referee's cgroup is never swept"


def test_two_referees_sweep_a_dead_referees_private_directory_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    private = workdirs.make(None)
    os.close(quota.hold(private))  # its referee died: the owner lock is free
    other = OtherSweeperFirst(tmp_path, f"{quota.PREFIX}*", quota.sweep_stale)
    other.install(monkeypatch)

    assert private not in quota.sweep_stale(), "the other referee swept it first"
    assert other.listed == [private] and other.gone == [private], "control: gone before the look"
    assert other.swept is not None and private in other.swept


def test_a_first_spawn_survives_another_referee_sweeping_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The symptom itself: a fresh referee's first sandboxed spawn, while a dead referee's
    cgroup is swept by another referee between its listing and its look inside."""
    caps = probe_module.probe()
    if not caps.layers[Layer.CGROUP].available or caps.cgroup is None:
        missing(f"cgroup: {caps.layers[Layer.CGROUP].detail}")
    found = caps.cgroup
    assert found is not None
    parent = next(iter(found.bases.values())).parent
    stale = parent / f"arena-{dead_pid()}"
    (stale / "bot-1").mkdir(parents=True, exist_ok=True)
    # A fresh referee: its first spawn probes the machine and sweeps again.
    monkeypatch.setattr(probe_module, "_cached", None)
    monkeypatch.setattr(cgroups, "_hierarchy", None)
    monkeypatch.setattr(cgroups, "_reason", None)
    other = OtherSweeperFirst(parent, "arena-*", lambda: cgroups.sweep_stale(found))
    other.install(monkeypatch)
    manifest = random_bot(tmp_path)
    env = bot_environment(f"unix://{tmp_path}/no-referee.sock", "token")

    async def spawn() -> None:
        process = await BotProcess.start(manifest, env, LogCapture(), sandbox=NAMESPACES.config)
        process.kill_now()
        await process.stop(0)

    try:
        asyncio.run(spawn())
    finally:
        for path in (stale / "bot-1", stale):
            if path.exists():
                path.rmdir()
    assert stale in other.gone, "control: the dead referee's cgroup was gone before the look"


def test_a_file_gone_mid_walk_leaves_a_bot_readable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bytecode writer's temporary file (``bot.cpython-311.pyc.<id>``, renamed into place)
    vanishes between the readability walk's listing and its look at it: the bot stays
    readable by others (else it would be staged, copying a directory being written)."""
    bot = tmp_path / "bot"
    (bot / "__pycache__").mkdir(parents=True)
    (bot / "bot.py").write_text("")
    vanishing = bot / "__pycache__" / "bot.cpython-311.pyc.140234502102288"
    vanishing.write_text("")
    for path, mode in ((bot, 0o755), (bot / "__pycache__", 0o755), (bot / "bot.py", 0o644)):
        path.chmod(mode)
    vanishing.chmod(0o644)
    lstat = os.lstat

    def renamed_just_now(path: str, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path) == str(vanishing):
            vanishing.unlink(missing_ok=True)
        return lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", renamed_just_now)
    assert workdirs.readable_by_others(bot)
    assert not vanishing.exists(), "control: the file was gone when the walk looked at it"

    (bot / "secret.txt").write_text("")  # control: a file that is there and private
    (bot / "secret.txt").chmod(0o600)
    os.utime(bot, ns=(0, 1))  # a new modification time: the walk is not answered from cache
    assert not workdirs.readable_by_others(bot)
