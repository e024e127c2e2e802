"""Helpers of the sandbox tests: sandbox profiles, the sandbox zoo, layer requirements
(skipped here, failed on CI) and a check for processes left behind."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from arena.game import PRESETS
from arena.referee.manifest import BotManifest, load_manifest
from arena.referee.match import MatchConfig, MatchResult, SeatSpec, play_match
from arena.referee.timecontrol import TimeControl
from arena.sandbox import workdirs
from arena.sandbox.config import Layer, Limits, SandboxConfig, SandboxMode
from arena.sandbox.probe import plan, probe

ROOT = Path(__file__).resolve().parents[2]
ZOO = Path(__file__).resolve().parent / "zoo"
RANDOM_BOT = ROOT / "sample_bots" / "random_bot"

FAST = TimeControl(decision_ms=300, bank_ms=300, grace_ms=50, startup_ms=5000)
"""Short limits (with room for a sandboxed start on a busy CI machine)."""

PATIENT = TimeControl(decision_ms=60_000, bank_ms=0, grace_ms=50, startup_ms=60_000)
"""Limits no machine reaches, however busy: for the tests whose subject is a sandbox limit,
not the clock (a hog's allocations or a spinner's wait take seconds when both cores are
busy, and a timeout would stand in for the crash or the kill the test is about)."""

LIMITS = Limits(
    cpu_seconds=20,
    memory_bytes=256 << 20,
    file_bytes=8 << 20,
    open_files=256,
    processes=64,
    tmp_bytes=16 << 20,
    home_bytes=16 << 20,
    cpu_cores=1.0,
)
"""Tighter than production, so that the hogs hit them fast."""


@dataclass(frozen=True)
class Profile:
    """A way to sandbox bots, and the layers it needs on this machine."""

    name: str
    config: SandboxConfig
    needs: frozenset[Layer]

    @property
    def layers(self) -> frozenset[Layer]:
        """The layers a bot gets under this profile here."""
        return plan(self.config).layers


NAMESPACES = Profile(
    "namespaces",
    SandboxConfig(SandboxMode.BEST_EFFORT, LIMITS),
    frozenset({Layer.BWRAP, Layer.SECCOMP, Layer.RLIMITS}),
)
"""What a bare-metal or VM host gets: bubblewrap (plus uid, seccomp, cgroup where there)."""

LANDLOCK = Profile(
    "landlock",
    SandboxConfig(SandboxMode.BEST_EFFORT, LIMITS, disable=frozenset({Layer.BWRAP})),
    frozenset({Layer.LANDLOCK, Layer.SECCOMP, Layer.RLIMITS}),
)
"""What a container gets: no namespaces, Landlock and seccomp instead."""

OFF = Profile("off", SandboxConfig(SandboxMode.OFF, LIMITS), frozenset())
"""No sandbox: the controls that prove a zoo member would succeed without one."""

PROFILES = [NAMESPACES, LANDLOCK]


def on_ci() -> bool:
    """CI=true: a missing layer fails the test instead of skipping it."""
    return os.environ.get("CI") == "true"


def missing(why: str) -> None:
    """Fail (on CI) or skip (elsewhere) a test whose layers this machine lacks."""
    message = f"sandbox layer unavailable: {why}"
    if on_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def require(profile: Profile, *layers: Layer) -> frozenset[Layer]:
    """The profile's active layers, having checked it has its own and *layers*."""
    caps = probe()
    for layer in sorted(profile.needs | set(layers)):
        status = caps.layers[layer]
        if not status.available:
            missing(f"{layer.value}: {status.detail}")
    return profile.layers


def require_any(profile: Profile, *layers: Layer) -> frozenset[Layer]:
    """The profile's active layers, having checked that at least one of *layers* is on."""
    active = require(profile)
    if not active & set(layers):
        names = " or ".join(layer.value for layer in layers)
        missing(f"profile {profile.name} has none of {names} here")
    return active


def config(
    profile: Profile,
    *,
    games: int = 2,
    seed: int = 3,
    time_control: TimeControl = FAST,
    log_cap: int = 32 * 1024,
    limits: Limits | None = None,
    fresh: bool = True,
    listen: str | None = None,
) -> MatchConfig:
    """A tournament-style match config (a fresh process per game) under *profile*."""
    sandbox = profile.config if limits is None else replace(profile.config, limits=limits)
    return MatchConfig(
        PRESETS["classic"],
        games=games,
        seed=seed,
        time_control=time_control,
        log_cap=log_cap,
        fresh_process_per_game=fresh,
        sandbox=sandbox,
        listen=listen,
    )


def zoo_bot(name: str, tmp_path: Path, zoo: Path = ZOO) -> BotManifest:
    """A private copy of sandbox zoo bot *name*."""
    target = tmp_path / "bots" / name
    shutil.copytree(zoo / name, target)
    return load_manifest(target)


def random_bot(tmp_path: Path, name: str = "random_bot") -> BotManifest:
    """A private copy of the sample random bot (a well-behaved opponent)."""
    target = tmp_path / "bots" / name
    shutil.copytree(RANDOM_BOT, target)
    return load_manifest(target)


def run(seats: Sequence[SeatSpec], match_config: MatchConfig) -> MatchResult:
    """Play a whole match synchronously."""
    return asyncio.run(play_match(seats, match_config))


def leftovers(marker: Path) -> list[str]:
    """Processes still alive that belong to a test's bots: *marker* (the test's directory)
    in their command line or working directory (inside bubblewrap a bot's directory keeps
    its path). Not "any process of a bot uid": other matches may run on the machine."""
    root = str(marker.resolve())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(entry / "cwd")
            status = (entry / "status").read_text()
        except OSError:
            continue
        if "State:\tZ" in status:
            continue
        if root in cmdline or cwd.startswith(root):
            found.append(f"pid {entry.name} cwd={cwd} cmd={cmdline.strip()[:200]}")
    return found


@pytest.fixture
def private_dirs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Records every private directory the sandbox makes during a test, and checks at the
    end that each was wiped (only this test's: other matches may run on the machine)."""
    made: list[Path] = []
    original = workdirs.make

    def recording(uid: int | None) -> Path:
        path = original(uid)
        made.append(path)
        return path

    monkeypatch.setattr(workdirs, "make", recording)
    yield made
    assert [p for p in made if p.exists()] == [], "a bot's private directory was not wiped"


def stderr_of(record: dict[str, Any], seat: int) -> str:
    """What the bot of *seat* wrote to stderr during the game (as kept)."""
    logs = record["bot_logs"][seat]
    return str(logs["stderr"]) if logs else ""
