"""A bot's files as a submission sees them: what is copied (sizes, counts, file types and
names checked before any file is read: :func:`scan_bot`), the checksum a stored version
keeps (an unambiguous listing of the files, hashed), its check whenever a stored copy is
loaded to play, and the copy itself."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

from arena.sandbox.build.bot import STAMP_NAME
from arena.storage.submissions import Outcome as SubmissionOutcome

IGNORED = {".git", "__pycache__", "node_modules", STAMP_NAME, ".venv", ".mypy_cache", ".ruff_cache"}
"""Never copied: build outputs are rebuilt from the copy, caches are noise."""
MAX_BOT_BYTES: Final = 50 * 1024 * 1024
"""The most a bot's files may hold, summed from their sizes before anything is read."""
MAX_BOT_FILES: Final = 10_000
"""The most files a bot may have (a directory of a million empty files is a denial of service)."""
MAX_PATH_BYTES: Final = 1024
"""The longest path of a file inside a bot (the stored copy sits deeper than the original)."""
CHECKSUM_PREFIX: Final = "v2:"
"""Marks checksums of :func:`checksum`; unprefixed ones are :func:`legacy_checksum`'s.

The digest follows the prefix in lowercase base32 without padding, 55 characters in all,
so it fits the 64 characters the database always gave checksums."""
_TREE_TAG: Final = b"952-arena bot tree v2\0"
_CHUNK: Final = 1024 * 1024


class SubmitError(ValueError):
    """The bot cannot be stored; the message is one line.

    *log* is what the attempt printed (build output, the smoke game's faults and the bot's
    stderr), kept in its :class:`~arena.storage.models.Submission` row.
    """

    outcome: SubmissionOutcome = "refused"
    """How its submission row ends: refused before anything was built."""

    def __init__(self, message: str, *, log: str = "") -> None:
        super().__init__(message)
        self.log = log


class ChecksumError(ValueError):
    """A stored version's files are not those it was stored with; the message is one line."""


@dataclass(frozen=True)
class BotFile:
    """One file of a bot, as :func:`scan_bot` found it (nothing read yet)."""

    relative: PurePosixPath
    size: int
    executable: bool


def scan_bot(directory: Path) -> list[BotFile]:
    """The bot's files that make up a version, sorted by name, checked before any is read.

    Caches and build outputs named in :data:`IGNORED` are skipped without being entered.

    :raises SubmitError: for a symbolic link, a device, FIFO or socket, a name that is not
        UTF-8, more than :data:`MAX_BOT_FILES` files or more than :data:`MAX_BOT_BYTES`.
    """
    found: list[BotFile] = []
    total = 0
    pending = [(directory, PurePosixPath())]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise SubmitError(
                f"{_printable(str(prefix))}: cannot read the folder: {exc.strerror}"
            ) from None
        for entry in entries:
            relative = prefix / entry.name
            if entry.name in IGNORED or entry.name.endswith(".pyc"):
                continue
            shown = _printable(str(relative))
            try:
                encoded = str(relative).encode("utf-8")
            except UnicodeEncodeError:
                raise SubmitError(f"{shown}: file names must be UTF-8") from None
            if len(encoded) > MAX_PATH_BYTES:
                raise SubmitError(f"{shown[:60]}...: paths longer than {MAX_PATH_BYTES} bytes")
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                raise SubmitError(f"{shown}: symbolic links are not allowed in a bot")
            if stat.S_ISDIR(info.st_mode):
                pending.append((Path(entry.path), relative))
                continue
            if not stat.S_ISREG(info.st_mode):
                raise SubmitError(f"{shown}: only files and folders are allowed in a bot")
            total += info.st_size
            if total > MAX_BOT_BYTES:
                raise SubmitError(f"the bot is larger than {MAX_BOT_BYTES // 2**20} MiB")
            found.append(BotFile(relative, info.st_size, bool(info.st_mode & stat.S_IXUSR)))
            if len(found) > MAX_BOT_FILES:
                raise SubmitError(f"the bot has more than {MAX_BOT_FILES} files")
    return sorted(found, key=lambda f: str(f.relative).encode("utf-8"))


def bot_files(directory: Path) -> list[Path]:
    """The bot's files that make up a version, sorted, relative to *directory*."""
    return [Path(f.relative) for f in scan_bot(directory)]


def checksum(directory: Path) -> str:
    """The version's identity: ``v2:`` and a sha256 over an unambiguous listing of its files.

    Each file adds its name's length and name, whether it is executable, and the sha256 of
    its content (a tree, as git hashes one), so no two different sets of files share an
    encoding, unlike :func:`legacy_checksum`'s ``name\\0content\\0``.

    :raises SubmitError: as :func:`scan_bot` does, or if a file cannot be read.
    """
    digest = hashlib.sha256(_TREE_TAG)
    for file in scan_bot(directory):
        name = str(file.relative).encode("utf-8")
        digest.update(len(name).to_bytes(8, "big") + name)
        digest.update(b"x" if file.executable else b"-")
        digest.update(_file_digest(directory / file.relative, file.relative))
    encoded = base64.b32encode(digest.digest()).decode("ascii").rstrip("=").lower()
    return CHECKSUM_PREFIX + encoded


def legacy_checksum(directory: Path) -> str:
    """The checksum stored before :func:`checksum`: sha256 over ``name\\0content\\0`` per file.

    Kept only to verify versions stored with it: the encoding is ambiguous (a NUL inside a
    file's content can stand for a file boundary), so different file sets can share it.
    """
    digest = hashlib.sha256()
    # The order it always had: path components compared in turn (``a/b`` before ``a-c``).
    for file in sorted(scan_bot(directory), key=lambda f: f.relative.parts):
        digest.update(str(file.relative).encode("utf-8") + b"\0")
        with (directory / file.relative).open("rb") as source:
            while chunk := source.read(_CHUNK):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


def verify_checksum(directory: Path, expected: str) -> None:
    """Check that the stored version at *directory* still has exactly its files.

    Run whenever a version is loaded to play: a version's files never change after it is
    stored, so a mismatch means tampering or a damaged disk, and the version must not play.

    :raises ChecksumError: with one line naming the directory, on any mismatch or if the
        files cannot be read.
    """
    try:
        actual = (
            checksum(directory)
            if expected.startswith(CHECKSUM_PREFIX)
            else (legacy_checksum(directory))
        )
    except SubmitError as exc:
        raise ChecksumError(f"{directory}: cannot verify the stored version: {exc}") from None
    if not hmac.compare_digest(actual, expected):
        raise ChecksumError(
            f"{directory}: the stored version's files changed (checksum {actual[:19]}, "
            f"stored {expected[:19]}); it will not be played"
        )


def _file_digest(path: Path, relative: PurePosixPath) -> bytes:
    try:
        with path.open("rb") as source:
            return hashlib.file_digest(source, "sha256").digest()
    except OSError as exc:
        raise SubmitError(f"{_printable(str(relative))}: cannot read: {exc.strerror}") from None


def _printable(name: str) -> str:
    """*name* safe to show on one line (undecodable bytes and control characters escaped)."""
    return repr(name)[1:-1] if not name.isprintable() else name


def _copy(source: Path, target: Path) -> None:
    """Copy the bot's files (checked by :func:`scan_bot` first) into the new *target*."""
    for file in scan_bot(source):
        destination = target / file.relative
        try:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / file.relative, destination, follow_symlinks=False)
        except OSError as exc:
            shown = _printable(str(file.relative))
            raise SubmitError(f"{shown}: cannot copy: {exc.strerror or exc}") from None


def _directory_name(digest: str) -> str:
    """The stored copy's folder: the checksum without its prefix (base32 or hex)."""
    return digest.removeprefix(CHECKSUM_PREFIX)
