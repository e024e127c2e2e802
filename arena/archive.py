"""Unpacking an uploaded bot archive (zip or tar.gz) without trusting it.

Refused: archives over :data:`MAX_ARCHIVE_BYTES`, contents over :data:`MAX_EXTRACTED_BYTES`
or :data:`MAX_MEMBERS` entries, absolute paths, ``..`` components, backslashes (a Windows
path trick), empty names, names that are not UTF-8, hold control characters or are too
long, a name used both as a file and as a folder, symbolic and hard links, devices and
FIFOs, and an archive without ``bot.toml`` (an empty one too). Files are written by this
code, byte-counted as they are read (a zip's declared sizes can lie), never with
``extractall``. A zip's member count is read from its end record before its directory is
parsed, and a tar's decompressed stream is capped, so neither can make this process parse
or hold more than a bounded amount. Every failure is one :class:`ArchiveError` line.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Final

MAX_ARCHIVE_BYTES: Final = 20 * 1024 * 1024
MAX_EXTRACTED_BYTES: Final = 50 * 1024 * 1024
MAX_MEMBERS: Final = 5000
MANIFEST: Final = "bot.toml"
MAX_NAME_BYTES: Final = 255
"""The longest file or folder name (Linux's limit), in UTF-8 bytes."""
MAX_PATH_BYTES: Final = 1024
"""The longest path inside the archive, in UTF-8 bytes."""
_CHUNK: Final = 64 * 1024
_TAR_STREAM_BYTES: Final = MAX_EXTRACTED_BYTES + (MAX_MEMBERS + 2) * 3 * 512
"""The most decompressed tar stream read: the contents plus three header blocks a member."""
_ZIP_DIRECTORY_BYTES: Final = MAX_MEMBERS * 512
"""The largest zip central directory parsed (a few hundred bytes an entry at most)."""
_UNPACK_ERRORS: Final = (
    tarfile.TarError, zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, lzma.LZMAError,
    EOFError, OSError, NotImplementedError, RuntimeError, ValueError, struct.error,
    IndexError, KeyError, OverflowError,
)  # fmt: skip
"""What reading a damaged or hostile archive can raise (``ArchiveError`` is a ValueError).

Beyond the documented ones (``BadZipFile``, ``LargeZipFile``, ``NotImplementedError`` for an
unknown compression method, ``RuntimeError`` for an encrypted member, ``TarError``, the
decompressors' ``zlib.error``, ``LZMAError``, ``EOFError`` and ``OSError``, ``ValueError``
with its ``UnicodeDecodeError``), the modules index and unpack header fields they have not
checked: a short or empty field raises ``IndexError``, ``struct.error`` or ``KeyError``, a
huge offset ``OverflowError``. Anything else is a bug here and is left to show as one.
"""


class ArchiveError(ValueError):
    """The archive is refused; the message is one line for the user."""


def _safe_parts(name: str) -> tuple[str, ...]:
    """The path components of a member name, or :class:`ArchiveError` for a dangerous one."""
    if not name:
        # zipfile's ZipInfo.is_dir() would fail on it (IndexError); no path can be empty.
        raise ArchiveError("an archive entry has an empty name")
    try:
        encoded = name.encode("utf-8")
    except UnicodeEncodeError:
        raise ArchiveError(f"{name!r}: file names must be UTF-8") from None
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ArchiveError(f"{name!r}: control characters are not allowed in file names")
    if len(encoded) > MAX_PATH_BYTES:
        raise ArchiveError(
            f"{name[:40]!r}...: paths longer than {MAX_PATH_BYTES} bytes are not allowed"
        )
    if "\\" in name:
        raise ArchiveError(f"{name!r}: backslashes are not allowed in archive paths")
    path = PurePosixPath(name)
    if path.is_absolute() or (name[1:2] == ":" and name[:1].isalpha()):
        raise ArchiveError(f"{name!r}: absolute paths are not allowed")
    parts = tuple(p for p in path.parts if p not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"{name!r}: '..' (path traversal) is not allowed")
    for part in parts:
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise ArchiveError(
                f"{part[:40]!r}...: names longer than {MAX_NAME_BYTES} bytes are not allowed"
            )
    return parts


class _Writer:
    """Writes members under *root*, counting bytes and entries against the limits."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.total = 0
        self.members = 0
        self.kinds: dict[tuple[str, ...], str] = {}
        """What each path written so far is, "file" or "folder": a name is never both."""

    def claim(self, parts: tuple[str, ...], kind: str) -> None:
        """Record *parts* as *kind* and its parents as folders, refusing any clash."""
        for end in range(1, len(parts)):
            if self.kinds.setdefault(parts[:end], "folder") != "folder":
                raise ArchiveError(f"{'/'.join(parts[:end])!r} is both a file and a folder")
        known = self.kinds.setdefault(parts, kind)
        if known != kind:
            raise ArchiveError(f"{'/'.join(parts)!r} is both a file and a folder")
        if known == "file" and self.target(parts).exists():
            raise ArchiveError(f"{'/'.join(parts)!r} appears twice in the archive")

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
            self.claim(parts, "folder")
            self.target(parts).mkdir(parents=True, exist_ok=True)

    def file(self, parts: tuple[str, ...], source: IO[bytes], executable: bool) -> None:
        self.count()
        if not parts:
            raise ArchiveError("an archive entry has an empty name")
        self.claim(parts, "file")
        target = self.target(parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("xb") as out:
            while chunk := source.read(_CHUNK):
                self.total += len(chunk)
                if self.total > MAX_EXTRACTED_BYTES:
                    raise ArchiveError(
                        f"the archive unpacks to more than {MAX_EXTRACTED_BYTES // 2**20} MB"
                    )
                out.write(chunk)
        target.chmod(0o755 if executable else 0o644)


def _zip_directory_size(data: bytes) -> tuple[int, int]:
    """``(entries, bytes)`` of a zip's central directory, from its end record (zip64 too).

    Read before :class:`zipfile.ZipFile` parses the whole directory into memory: a 20 MB
    zip of empty entries holds some 400,000 of them.
    """
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 0xFFFF))
    if end < 0 or len(data) < end + 22:
        raise ArchiveError("not a readable zip file: no end of central directory")
    _, _, _, _, entries, size, _, _ = struct.unpack_from("<4s4H2LH", data, end)
    if (entries == 0xFFFF or size == 0xFFFFFFFF) and data[end - 20 : end - 16] == b"PK\x06\x07":
        (offset,) = struct.unpack_from("<Q", data, end - 12)
        if data[offset : offset + 4] != b"PK\x06\x06":
            raise ArchiveError("not a readable zip file: broken zip64 end record")
        entries, size = (
            struct.unpack_from("<QQ", data, offset + 32)[0],
            struct.unpack_from("<Q", data, offset + 40)[0],
        )
    return entries, size


def _zip_members(data: bytes, writer: _Writer) -> None:
    entries, size = _zip_directory_size(data)
    if entries > MAX_MEMBERS or size > _ZIP_DIRECTORY_BYTES:
        raise ArchiveError(f"the archive has more than {MAX_MEMBERS} entries")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _UNPACK_ERRORS as exc:
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
            except ArchiveError:
                raise
            except _UNPACK_ERRORS as exc:
                raise ArchiveError(f"{info.filename!r}: cannot unpack: {exc}") from None


class _Capped(io.RawIOBase):
    """A read-only stream that refuses to give more than *limit* bytes of *source*.

    tarfile reads a pax or GNU long-name header whole into memory, whatever size it claims:
    a small .tar.gz can decompress to gigabytes of one such header.
    """

    def __init__(self, source: io.BufferedIOBase, limit: int) -> None:
        super().__init__()
        self.source = source
        self.left = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer)
        chunk = self.source.read(min(len(view), self.left + 1))
        if len(chunk) > self.left:
            raise ArchiveError(
                f"the archive unpacks to more than {MAX_EXTRACTED_BYTES // 2**20} MB"
            )
        self.left -= len(chunk)
        view[: len(chunk)] = chunk
        return len(chunk)


def _decompressed(data: bytes) -> IO[bytes]:
    """The tar stream inside *data* (gzip, bzip2, xz or none), read lazily and capped."""
    raw = io.BytesIO(data)
    source: io.BufferedIOBase = raw
    # Each decompressor lives as long as the returned stream, which tarfile closes.
    if data[:2] == b"\x1f\x8b":
        source = gzip.GzipFile(fileobj=raw, mode="rb")
    elif data[:3] == b"BZh":
        source = bz2.BZ2File(raw)
    elif data[:6] == b"\xfd7zXZ\x00":
        source = lzma.LZMAFile(raw)  # noqa: SIM115  (closed with the stream, as above)
    return io.BufferedReader(_Capped(source, _TAR_STREAM_BYTES))


def _tar_members(data: bytes, writer: _Writer) -> None:
    try:
        # A stream ("r|"): members are read in order, nothing is looked up or kept.
        archive = tarfile.open(fileobj=_decompressed(data), mode="r|")  # noqa: SIM115  (closed by the with below; opened apart to convert its errors)
    except ArchiveError:
        raise
    except _UNPACK_ERRORS as exc:
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
        except ArchiveError:
            raise
        except _UNPACK_ERRORS as exc:
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
    try:
        if lower.endswith(".zip") or data[:4] == b"PK\x03\x04":
            _zip_members(data, writer)
        elif lower.endswith((".tar.gz", ".tgz", ".tar")) or data[:2] == b"\x1f\x8b":
            _tar_members(data, writer)
        else:
            raise ArchiveError(f"{filename!r}: upload a .zip or .tar.gz archive")
    except ArchiveError:
        raise
    except _UNPACK_ERRORS as exc:
        # Whatever a member does to the file system (a name too long, a full disk): one line.
        raise ArchiveError(f"cannot unpack the archive: {exc}") from None
    root = target.resolve()
    # Folders are made as members need them: an archive with no files leaves no *target*.
    if not root.is_dir():
        raise ArchiveError(f"the archive is empty: it holds no bot (no {MANIFEST})")
    if (root / MANIFEST).is_file():
        return root
    entries = [p for p in root.iterdir() if not p.name.startswith(("__MACOSX", "."))]
    if not entries:
        raise ArchiveError(f"the archive holds no files: no bot (no {MANIFEST})")
    if len(entries) == 1 and entries[0].is_dir() and (entries[0] / MANIFEST).is_file():
        return entries[0]
    raise ArchiveError(
        f"no {MANIFEST} at the top of the archive (or of its single top-level folder)"
    )
