"""Submitting a bot: validate, copy, build, smoke-test through the real referee, store.

A submitted version is an immutable copy of the bot's files under the data directory, so
a tournament always runs exactly what was submitted. Nothing is stored unless every step
passed: a broken manifest, a failing build or a faulty smoke game leaves no trace.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from arena.game import PRESETS
from arena.game.policies import RandomPolicy
from arena.referee.build import STAMP_NAME, BuildError, build
from arena.referee.manifest import BotManifest, ManifestError, load_manifest
from arena.referee.match import MatchConfig, PolicySeat, SeatSpec, play_match
from arena.referee.timecontrol import TimeControl
from arena.storage import service

IGNORED = {".git", "__pycache__", "node_modules", STAMP_NAME, ".venv", ".mypy_cache", ".ruff_cache"}
"""Never copied: build outputs are rebuilt from the copy, caches are noise."""
MAX_BOT_BYTES = 50 * 1024 * 1024


class SubmitError(ValueError):
    """The bot cannot be stored; the message is one line."""


def bot_files(directory: Path) -> list[Path]:
    """The bot's files that make up a version, sorted, relative to *directory*."""
    files = []
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory)
        if any(part in IGNORED or part.endswith(".pyc") for part in relative.parts):
            continue
        if path.is_symlink():
            raise SubmitError(f"{relative}: symbolic links are not allowed in a bot")
        if path.is_file():
            files.append(relative)
    return files


def checksum(directory: Path) -> str:
    """sha256 over the bot's file names and contents: equal files, equal checksum."""
    digest = hashlib.sha256()
    for relative in bot_files(directory):
        digest.update(str(relative).encode() + b"\0")
        digest.update((directory / relative).read_bytes() + b"\0")
    return digest.hexdigest()


def _copy(source: Path, target: Path) -> None:
    total = 0
    for relative in bot_files(source):
        total += (source / relative).stat().st_size
        if total > MAX_BOT_BYTES:
            raise SubmitError(f"the bot is larger than {MAX_BOT_BYTES // 2**20} MiB")
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / relative, target / relative)


def submit_bot(
    engine: Engine,
    path: Path | str,
    data_dir: Path,
    *,
    build_timeout_s: float = 600.0,
    smoke_ruleset: str = "classic",
) -> tuple[Any, bool]:
    """Store a new version of the bot at *path*; ``(version, created)``.

    ``created`` is False when the files equal the latest stored version's.

    :raises SubmitError: with one line saying what failed; nothing is stored then.
    """
    try:
        manifest = load_manifest(path)
    except ManifestError as exc:
        raise SubmitError(str(exc)) from None
    digest = checksum(manifest.directory)
    latest = service.latest_version(engine, manifest.name)
    if latest is not None and latest.checksum == digest:
        return latest, False
    bots_dir = data_dir / "bots" / manifest.name
    bots_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=bots_dir))
    final = bots_dir / digest[:16]
    try:
        _copy(manifest.directory, staging)
        staged = load_manifest(staging)
        try:
            build(staged, timeout_s=build_timeout_s, hide=[data_dir])
        except BuildError as exc:
            raise SubmitError(str(exc)) from None
        _smoke(staged, smoke_ruleset)
        if final.exists():
            shutil.rmtree(final)
        staging.rename(final)
        stored = load_manifest(final)
        fields = {k: v for k, v in asdict(stored).items() if k != "directory"}
        try:
            return service.add_bot_version(engine, _jsonable(fields), digest, str(final))
        except Exception:
            shutil.rmtree(final, ignore_errors=True)
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _jsonable(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}


def _smoke(manifest: BotManifest, ruleset: str) -> None:
    """One game against two random players; any fault of the bot refuses the submission."""
    seats: list[SeatSpec] = [manifest, PolicySeat(RandomPolicy(1)), PolicySeat(RandomPolicy(2))]
    config = MatchConfig(PRESETS[ruleset], games=1, seed=1, time_control=TimeControl())
    result = asyncio.run(play_match(seats, config))
    faults = [f for f in result.records[0]["faults"] if f["seat"] == 0]
    if faults:
        fault = faults[0]
        tail = f"; stderr: {fault['stderr_tail']}" if fault.get("stderr_tail") else ""
        raise SubmitError(
            f"smoke game failed: {fault['kind']} at hand {fault['hand']} "
            f"({fault['decision']}): {fault['detail']}{tail}"
        )
