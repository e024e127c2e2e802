"""Bot manifests: a bot is a directory holding ``bot.toml``.

```toml
name = "heuristic_bot"        # letters, digits, "_", "-", "."
version = "1.0.0"
language = "python"           # free text, for people
run = "python bot.py"         # the command that starts the bot, run in its directory
build = "npm ci"              # optional, run once before the bot is used
```
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST_NAME = "bot.toml"
MAX_MANIFEST_BYTES = 64 * 1024
"""A ``bot.toml`` is a few lines; anything larger is refused before it is read."""
MAX_TEXT = 1000
"""The longest ``description`` or ``author``; other fields have their own, smaller limits."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # tabs and newlines allowed
_KNOWN_KEYS = {"name", "version", "language", "run", "build", "description", "author"}


class ManifestError(ValueError):
    """A bot directory or its ``bot.toml`` is unusable; the message is one line."""


@dataclass(frozen=True)
class BotManifest:
    """A validated ``bot.toml`` and the directory it describes."""

    directory: Path
    name: str
    version: str
    language: str
    run: tuple[str, ...]
    """The start command, split into arguments."""
    build: tuple[str, ...] | None
    """The build command, split into arguments, if any."""
    description: str = ""

    @property
    def label(self) -> str:
        """``name@version``, as records name players."""
        return f"{self.name}@{self.version}"


def load_manifest(path: Path | str) -> BotManifest:
    """Read and validate the manifest of the bot at *path* (a directory or its bot.toml).

    :raises ManifestError: with one line saying what is wrong.
    """
    path = Path(path)
    directory = path.parent if path.name == MANIFEST_NAME else path
    if not directory.is_dir():
        raise ManifestError(f"{directory}: not a bot directory")
    file = directory / MANIFEST_NAME
    if not file.is_file():
        raise ManifestError(f"{directory}: no {MANIFEST_NAME} found")
    try:
        with file.open("rb") as source:
            raw = source.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise ManifestError(f"{file}: cannot read: {exc.strerror}") from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"{file}: larger than {MAX_MANIFEST_BYTES // 1024} KiB")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ManifestError(f"{file}: not valid TOML: {first_line}") from None
    except RecursionError:
        # tomllib parses nested arrays and tables recursively: 100,000 "[" exhaust the stack.
        raise ManifestError(f"{file}: not valid TOML: nested too deeply") from None
    return _validate(directory.resolve(), file, data)


def _validate(directory: Path, file: Path, data: dict[str, Any]) -> BotManifest:
    unknown = set(data) - _KNOWN_KEYS
    if unknown:
        raise ManifestError(f"{file}: unknown key(s): {', '.join(sorted(unknown))}")
    for key in ("name", "version", "language", "run"):
        if key not in data:
            raise ManifestError(f"{file}: missing required key {key!r}")
    for key in ("name", "version", "language", "description", "author"):
        if key in data and not isinstance(data[key], str):
            raise ManifestError(f"{file}: {key!r} must be a string")
        control = _CONTROL_IN_TEXT if key in ("description", "author") else _CONTROL
        if key in data and control.search(data[key]):
            raise ManifestError(f"{file}: {key!r} must not hold control characters")
    for key, limit in (("language", 64), ("description", MAX_TEXT), ("author", MAX_TEXT)):
        if len(data.get(key, "")) > limit:
            raise ManifestError(f"{file}: {key!r} is longer than {limit} characters")
    name = data["name"]
    if not _NAME.match(name):
        raise ManifestError(f"{file}: name {name!r} must be 1-64 letters, digits, '_', '-' or '.'")
    version = data["version"].strip()
    if not version or len(version) > 32 or any(c.isspace() or c == "@" for c in version):
        raise ManifestError(
            f"{file}: version {data['version']!r} must be 1-32 characters, no spaces or '@'"
        )
    return BotManifest(
        directory=directory,
        name=name,
        version=version,
        language=data["language"],
        run=_command(file, "run", data["run"]),
        build=None if data.get("build") is None else _command(file, "build", data["build"]),
        description=data.get("description", ""),
    )


def _command(file: Path, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError as exc:
            raise ManifestError(f"{file}: {key!r} is not a valid command: {exc}") from None
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = list(value)
    else:
        raise ManifestError(f"{file}: {key!r} must be a command string or a list of strings")
    if not parts or not parts[0]:
        raise ManifestError(f"{file}: {key!r} is empty")
    if any("\0" in part for part in parts):
        raise ManifestError(f"{file}: {key!r} must not hold NUL characters")
    return tuple(parts)
