"""Running a bot's optional ``build`` command (installing its dependencies, compiling).

A build runs in the bot's directory with a time limit and a minimal environment, and is
remembered by a stamp file holding a checksum of the manifest, so ``arena match`` builds a
bot once rather than before every match.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.referee.manifest import BotManifest
from arena.sandbox.probe import probe

STAMP_NAME = ".arena-build.ok"
DEFAULT_BUILD_TIMEOUT_S = 600.0


class BuildError(RuntimeError):
    """A build failed or timed out; the message is one line."""


def _fingerprint(manifest: BotManifest) -> str:
    manifest_file = manifest.directory / "bot.toml"
    return hashlib.sha256(manifest_file.read_bytes()).hexdigest()


def needs_build(manifest: BotManifest) -> bool:
    """True if the bot has a build command that has not succeeded for this manifest."""
    if manifest.build is None:
        return False
    stamp = manifest.directory / STAMP_NAME
    return not stamp.is_file() or stamp.read_text().strip() != _fingerprint(manifest)


def sandbox_prefix(directory: Path, hide: Sequence[Path]) -> list[str]:
    """A bubblewrap prefix for a build: the system read-only, the bot's directory writable,
    *hide* (the data directory: database, other bots, records) replaced by empty tmpfs,
    a private /tmp and HOME, own pid namespace. The network stays (package registries).
    Empty when bubblewrap cannot run here (see ``arena doctor``).
    """
    bwrap = probe().bwrap
    if bwrap is None:
        return []
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]  # fmt: skip
    for path in hide:
        if path.exists():
            argv += ["--tmpfs", str(path.resolve())]
    # The arena's interpreter (``python`` on the build's PATH) may live under /tmp or a
    # hidden directory, as in a fresh CI clone: bring it back, read-only.
    for runtime in sorted(
        {sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent)}
    ):
        argv += ["--ro-bind", runtime, runtime]
    target = str(directory.resolve())
    return [*argv, "--bind", target, target, "--chdir", target, "--"]


def build(
    manifest: BotManifest,
    timeout_s: float = DEFAULT_BUILD_TIMEOUT_S,
    hide: Sequence[Path] = (),
) -> str:
    """Run the bot's build command; its combined output (last 2,000 characters).

    A build is the bot's own code too, so it runs in :func:`sandbox_prefix` where
    bubblewrap works, with the directories in *hide* out of sight.

    :raises BuildError: if the command is missing, fails or takes longer than *timeout_s*.
    """
    if manifest.build is None:
        return ""
    interpreter_dir = str(Path(sys.executable).parent)
    prefix = sandbox_prefix(manifest.directory, hide)
    env = {
        "PATH": f"{interpreter_dir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp" if prefix else os.environ.get("HOME", str(manifest.directory)),
        "LANG": "C.UTF-8",
    }
    command = " ".join(manifest.build)
    try:
        done = subprocess.run(
            [*prefix, *manifest.build],
            cwd=manifest.directory,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except FileNotFoundError:  # without bubblewrap: the command itself is missing
        raise BuildError(f"{manifest.name}: build command not found: {command!r}") from None
    except subprocess.TimeoutExpired:
        raise BuildError(
            f"{manifest.name}: build {command!r} took longer than {timeout_s:.0f} s"
        ) from None
    output = (done.stdout + done.stderr)[-2000:]
    if done.returncode != 0:
        last = next((line for line in reversed(output.splitlines()) if line.strip()), "")
        raise BuildError(
            f"{manifest.name}: build {command!r} failed with exit code {done.returncode}: {last[:200]}"
        )
    (manifest.directory / STAMP_NAME).write_text(_fingerprint(manifest) + "\n")
    return output
