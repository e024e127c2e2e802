"""A bot directory packed as the archive a remote arena unpacks (``arena remote submit``).

The server takes an uploaded bot through :func:`arena.archive.extract_bot_archive` and
then stores exactly the files :func:`arena.submission.scan_bot` counts, under the
checksum :func:`arena.submission.checksum` computes. So the client packs exactly those
files (caches and build outputs of :data:`arena.submission.IGNORED` left out; symbolic
links, devices, too many or too large files refused, as ``arena bot submit`` refuses
them) and, before anything is sent, unpacks its own archive with the server's function
and checks that the copy has the directory's checksum. A bot the server would refuse is
refused here, in one line, without an upload.

The archive is deterministic: the same files give the same bytes (``bot.toml`` first,
then the rest sorted, fixed timestamps, modes 0755 for executables and 0644 otherwise,
no folder entries), so a script can compare two packs, and the bytes say nothing about
when or on which machine they were made.
"""

from __future__ import annotations

import io
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

from arena.archive import MAX_ARCHIVE_BYTES, ArchiveError, extract_bot_archive
from arena.referee.manifest import MANIFEST_NAME, ManifestError, load_manifest
from arena.submission import BotFile, SubmitError, checksum, scan_bot

FIXED_TIME: Final = (1980, 1, 1, 0, 0, 0)
"""Every entry's timestamp: the earliest a zip can hold."""
_CHUNK: Final = 1024 * 1024


class BundleError(ValueError):
    """The bot cannot be packed, or the server would refuse the pack; one line."""


@dataclass(frozen=True, slots=True)
class Bundle:
    """A packed bot, checked as the server will check it."""

    data: bytes
    """The .zip archive."""
    name: str
    version: str
    checksum: str
    """The directory's :func:`arena.submission.checksum`, which the unpacked copy has."""
    files: int

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def filename(self) -> str:
        """The archive's name in an upload."""
        return f"{self.name}.zip"


def bundle_bot(directory: Path | str) -> Bundle:
    """Pack the bot at *directory* and check the pack as the server will.

    :raises BundleError: for a refused manifest, a file :func:`scan_bot` refuses, an
        archive over :data:`MAX_ARCHIVE_BYTES`, one that :func:`extract_bot_archive`
        refuses, or files that changed while they were packed.
    """
    try:
        manifest = load_manifest(directory)
        root = manifest.directory
        files = scan_bot(root)
    except (ManifestError, SubmitError) as exc:
        raise BundleError(str(exc)) from None
    data = _zip(root, files)
    expected = _checksum(root)
    with tempfile.TemporaryDirectory(prefix="arena-bundle-") as folder:
        try:
            unpacked = extract_bot_archive(data, f"{manifest.name}.zip", Path(folder) / "bot")
        except ArchiveError as exc:
            raise BundleError(f"the server would refuse this bot's archive: {exc}") from None
        if _checksum(unpacked) != expected:
            raise BundleError("the bot's files changed while they were packed; try again")
    return Bundle(data, manifest.name, manifest.version, expected, len(files))


def pack_bot(directory: Path | str) -> bytes:
    """The checked archive of the bot at *directory* (:func:`bundle_bot`'s bytes)."""
    return bundle_bot(directory).data


def _checksum(directory: Path) -> str:
    try:
        return checksum(directory)
    except SubmitError as exc:
        raise BundleError(str(exc)) from None


def _ordered(files: list[BotFile]) -> list[BotFile]:
    """``bot.toml`` first (a reader sees the manifest before anything else), then the
    rest in :func:`scan_bot`'s order."""
    top = PurePosixPath(MANIFEST_NAME)
    return sorted(files, key=lambda f: f.relative != top)


def _zip(root: Path, files: list[BotFile]) -> bytes:
    """The zip of *files* under *root*, refused as soon as it passes the server's limit."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for file in _ordered(files):
            info = zipfile.ZipInfo(str(file.relative), date_time=FIXED_TIME)
            info.create_system = 3  # Unix, whatever packs it: the modes below are read
            mode = 0o755 if file.executable else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            info.file_size = file.size
            _add(archive, info, root / file.relative, file)
            if buffer.tell() > MAX_ARCHIVE_BYTES:
                raise _too_large()
    data = buffer.getvalue()
    if len(data) > MAX_ARCHIVE_BYTES:
        raise _too_large()
    return data


def _add(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, file: BotFile) -> None:
    """Copy *path* into the archive, no more bytes than :func:`scan_bot` counted."""
    written = 0
    try:
        with path.open("rb") as source, archive.open(info, "w") as target:
            while chunk := source.read(min(_CHUNK, file.size - written + 1)):
                written += len(chunk)
                if written > file.size:
                    break
                target.write(chunk)
    except OSError as exc:
        raise BundleError(f"{file.relative}: cannot read: {exc.strerror or exc}") from None
    if written != file.size:
        raise BundleError(f"{file.relative}: the file changed while it was packed; try again")


def _too_large() -> BundleError:
    return BundleError(
        f"the bot's archive is larger than the {MAX_ARCHIVE_BYTES // 2**20} MiB the server "
        "takes: leave large data files out of the bot folder"
    )
