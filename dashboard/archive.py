"""Unpacking an uploaded bot archive (zip or tar.gz) without trusting it.

Refused: archives over :data:`MAX_ARCHIVE_BYTES`, contents over :data:`MAX_EXTRACTED_BYTES`
or :data:`MAX_MEMBERS` entries, absolute paths, ``..`` components, backslashes (a Windows
path trick), symbolic and hard links, devices and FIFOs. Files are written by this code,
byte-counted as they are read (a zip's declared sizes can lie), never with ``extractall``.
"""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Final

MAX_ARCHIVE_BYTES: Final = 20 * 1024 * 1024
MAX_EXTRACTED_BYTES: Final = 50 * 1024 * 1024
MAX_MEMBERS: Final = 5000
MANIFEST: Final = "bot.toml"
_CHUNK: Final = 64 * 1024


class ArchiveError(ValueError):
    """The archive is refused; the message is one line for the user."""


def _safe_parts(name: str) -> tuple[str, ...]:
    """The path components of a member name, or :class:`ArchiveError` for a dangerous one."""
    if "\\" in name:
        raise ArchiveError(f"{name!r}: backslashes are not allowed in archive paths")
    path = PurePosixPath(name)
    if path.is_absolute() or (name[1:2] == ":" and name[:1].isalpha()):
        raise ArchiveError(f"{name!r}: absolute paths are not allowed")
    parts = tuple(p for p in path.parts if p not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"{name!r}: '..' (path traversal) is not allowed")
    return parts


class _Writer:
    """Writes members under *root*, counting bytes and entries against the limits."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.total = 0
        self.members = 0

    def count(self) -> None:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise ArchiveError(f"the archive has more than {MAX_MEMBERS} entries")

    def target(self, parts: tuple[str, ...]) -> Path:
        target = self.root.joinpath(*parts).resolve()
        if target != self.root and self.root not in target.parents:
            raise ArchiveError(f"{'/'.join(parts)!r} would land outside the bot directory")
        return target

    def directory(self, parts: tuple[str, ...]) -> None:
        self.count()
        if parts:
            self.target(parts).mkdir(parents=True, exist_ok=True)

    def file(self, parts: tuple[str, ...], source: IO[bytes], executable: bool) -> None:
        self.count()
        if not parts:
            raise ArchiveError("an archive entry has an empty name")
        target = self.target(parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            raise ArchiveError(f"{'/'.join(parts)!r} appears twice in the archive")
        with target.open("wb") as out:
            while chunk := source.read(_CHUNK):
                self.total += len(chunk)
                if self.total > MAX_EXTRACTED_BYTES:
                    raise ArchiveError(
                        f"the archive unpacks to more than {MAX_EXTRACTED_BYTES // 2**20} MB"
                    )
                out.write(chunk)
        target.chmod(0o755 if executable else 0o644)


def _zip_members(data: bytes, writer: _Writer) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"not a readable zip file: {exc}") from None
    with archive:
        for info in archive.infolist():
            parts = _safe_parts(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveError(f"{info.filename!r}: symbolic links are not allowed")
            # Zips made off Unix carry no file type (S_IFMT 0): those are plain files.
            if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise ArchiveError(f"{info.filename!r}: only files and folders are allowed")
            if info.is_dir():
                writer.directory(parts)
                continue
            if info.file_size > MAX_EXTRACTED_BYTES:
                raise ArchiveError(
                    f"{info.filename!r} is larger than {MAX_EXTRACTED_BYTES // 2**20} MB"
                )
            try:
                with archive.open(info) as source:
                    writer.file(parts, source, bool(mode & stat.S_IXUSR))
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as exc:
                raise ArchiveError(f"{info.filename!r}: cannot unpack: {exc}") from None


def _tar_members(data: bytes, writer: _Writer) -> None:
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115  (closed by the with below; opened apart to convert its errors)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ArchiveError(f"not a readable tar archive: {exc}") from None
    with archive:
        try:
            for member in _iterate(archive):
                parts = _safe_parts(member.name)
                if member.issym() or member.islnk():
                    raise ArchiveError(f"{member.name!r}: links are not allowed")
                if member.isdir():
                    writer.directory(parts)
                elif member.isfile():
                    if member.size > MAX_EXTRACTED_BYTES:
                        raise ArchiveError(
                            f"{member.name!r} is larger than {MAX_EXTRACTED_BYTES // 2**20} MB"
                        )
                    source = archive.extractfile(member)
                    if source is None:
                        raise ArchiveError(f"{member.name!r}: cannot read")
                    with source:
                        writer.file(parts, source, bool(member.mode & stat.S_IXUSR))
                else:
                    raise ArchiveError(f"{member.name!r}: only files and folders are allowed")
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise ArchiveError(f"cannot unpack the tar archive: {exc}") from None


def _iterate(archive: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    """Members one by one (``getmembers`` would read a tar bomb whole first)."""
    while (member := archive.next()) is not None:
        yield member


def extract_bot_archive(data: bytes, filename: str, target: Path) -> Path:
    """Unpack an uploaded bot into the empty directory *target*; the folder with bot.toml.

    ``bot.toml`` must be at the top of the archive or of its single top-level folder.

    :raises ArchiveError: for a refused or unreadable archive, or one without bot.toml.
    """
    if len(data) > MAX_ARCHIVE_BYTES:
        raise ArchiveError(f"the archive is larger than {MAX_ARCHIVE_BYTES // 2**20} MB")
    lower = filename.lower()
    writer = _Writer(target)
    if lower.endswith(".zip") or data[:4] == b"PK\x03\x04":
        _zip_members(data, writer)
    elif lower.endswith((".tar.gz", ".tgz", ".tar")) or data[:2] == b"\x1f\x8b":
        _tar_members(data, writer)
    else:
        raise ArchiveError(f"{filename!r}: upload a .zip or .tar.gz archive")
    root = target.resolve()
    if (root / MANIFEST).is_file():
        return root
    entries = [p for p in root.iterdir() if not p.name.startswith(("__MACOSX", "."))]
    if len(entries) == 1 and entries[0].is_dir() and (entries[0] / MANIFEST).is_file():
        return entries[0]
    raise ArchiveError(
        f"no {MANIFEST} at the top of the archive (or of its single top-level folder)"
    )
