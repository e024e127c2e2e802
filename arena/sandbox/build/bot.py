"""Running a bot's optional ``build`` command (installing its dependencies, compiling).

A build runs in the build sandbox (:mod:`arena.sandbox.build.sandbox`: no more rights
than the bot has at play, bounded time, memory, processes and disk, the network only where
the organiser allows it) and is remembered by a stamp file holding a checksum of the
manifest, so ``arena match`` builds a bot once rather than before every match.
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from arena.sandbox.build.offline import REGISTRY_HINT, meaningful_tail, needs_registry
from arena.sandbox.build.sandbox import (
    STAMP_NAME,
    BuildLimits,
    BuildTimeout,
    network_allowed,
    run_build,
)
from arena.sandbox.config import SandboxConfig, SandboxError, SandboxMode

LOGGER = logging.getLogger(__name__)

DEFAULT_BUILD_TIMEOUT_S = 600.0


class Buildable(Protocol):
    """What a build needs of a bot: a :class:`arena.referee.manifest.BotManifest` is one
    (the sandbox sits below the referee, so it names no referee type)."""

    @property
    def name(self) -> str: ...
    @property
    def directory(self) -> Path: ...
    @property
    def build(self) -> Sequence[str] | None: ...


class BuildError(RuntimeError):
    """A build failed or timed out; the message is one line, *output* what it printed
    (its last 2,000 characters, when it ran), for the submission's log, and *tail* its
    last meaningful lines (:func:`~arena.sandbox.build.offline.meaningful_tail`), for
    the command line to show above the message."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output
        self.tail = meaningful_tail(output)


def _fingerprint(manifest: Buildable) -> str:
    manifest_file = manifest.directory / "bot.toml"
    return hashlib.sha256(manifest_file.read_bytes()).hexdigest()


def needs_build(manifest: Buildable) -> bool:
    """True if the bot has a build command that has not succeeded for this manifest."""
    if manifest.build is None:
        return False
    stamp = manifest.directory / STAMP_NAME
    return not stamp.is_file() or stamp.read_text().strip() != _fingerprint(manifest)


def build(
    manifest: Buildable,
    timeout_s: float = DEFAULT_BUILD_TIMEOUT_S,
    hide: Sequence[Path] = (),
    *,
    network: bool | None = None,
    sandbox: SandboxConfig | None = None,
    limits: BuildLimits | None = None,
) -> str:
    """Run the bot's build command; its combined output (last 2,000 characters).

    A build is the bot's own code too, so it runs in the build sandbox
    (:mod:`arena.sandbox.build.sandbox`): a bot uid without capabilities, only its own
    directory writable (a bounded copy), no data directory, database or home directories
    in sight (*hide* is kept for callers: nothing outside the system, the arena's runtime
    and the bot is visible anyway), bounded time, memory, processes and disk. *network*
    defaults to ``$ARENA_BUILD_NETWORK`` (off). Only ``sandbox=SandboxConfig(mode=off)``
    runs a build unconfined, with a warning.

    :raises BuildError: if the command is missing, fails, breaks a limit, takes longer
        than *timeout_s*, or cannot be sandboxed as the mode requires.
    """
    del hide  # not visible in the sandbox in the first place
    if manifest.build is None:
        return ""
    command = " ".join(manifest.build)
    config = sandbox or SandboxConfig()
    try:
        allowed = network_allowed() if network is None else network
    except ValueError as exc:
        raise BuildError(f"{manifest.name}: {exc}") from None
    limits = replace(limits or BuildLimits(), time_s=timeout_s)
    if config.mode is SandboxMode.OFF:
        LOGGER.warning("%s: sandbox off: the build %r runs unconfined", manifest.name, command)
        returncode, output = _unconfined(manifest, timeout_s)
    else:
        try:
            done = run_build(
                manifest.directory, manifest.build, config=config, limits=limits, network=allowed
            )
        except BuildTimeout:
            raise BuildError(
                f"{manifest.name}: build {command!r} took longer than {timeout_s:.0f} s"
            ) from None
        except (SandboxError, OSError) as exc:
            raise BuildError(f"{manifest.name}: build {command!r}: {exc}") from None
        LOGGER.info("%s: %s", manifest.name, done.how)
        returncode, output = done.returncode, done.output
    output = output[-2000:]
    if returncode == 127 and "command not found" in output:
        raise BuildError(f"{manifest.name}: build command not found: {command!r}", output)
    if returncode != 0:
        # Unsandboxed (mode off), a build has the host's network: no offline hint then.
        online = allowed or config.mode is SandboxMode.OFF
        raise BuildError(_failure(manifest.name, command, returncode, output, online), output)
    (manifest.directory / STAMP_NAME).write_text(_fingerprint(manifest) + "\n")
    return output


def _failure(name: str, command: str, returncode: int, output: str, network: bool) -> str:
    """The one line of a failed build: what to do when it needed a registry it could not
    reach (no network), else its last meaningful line (never a log file's path)."""
    failed = f"{name}: build {command!r} failed with exit code {returncode}"
    if not network and needs_registry(output):
        return f"{failed}: {REGISTRY_HINT}"
    last = meaningful_tail(output, 1)
    return f"{failed}: {last[0][:200]}" if last else f"{failed} and printed nothing"


def _unconfined(manifest: Buildable, timeout_s: float) -> tuple[int, str]:
    """The build without a sandbox (mode off: debugging one's own bot only)."""
    assert manifest.build is not None
    command = " ".join(manifest.build)
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": os.environ.get("HOME", str(manifest.directory)),
        "LANG": "C.UTF-8",
    }
    try:
        done = subprocess.run(
            manifest.build,
            cwd=manifest.directory,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except FileNotFoundError:
        return 127, f"arena build: command not found: {command}"
    except subprocess.TimeoutExpired:
        raise BuildError(
            f"{manifest.name}: build {command!r} took longer than {timeout_s:.0f} s"
        ) from None
    return done.returncode, done.stdout + done.stderr


__all__ = [
    "DEFAULT_BUILD_TIMEOUT_S",
    "REGISTRY_HINT",
    "STAMP_NAME",
    "BuildError",
    "build",
    "needs_build",
]
