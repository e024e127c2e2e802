"""Edge cases of bot uploads: empty names, empty archives, and whatever a damaged archive
makes zipfile or tarfile raise. Every outcome is a bot folder or one ArchiveError line,
never a raw exception (whose text can carry a server path)."""

from __future__ import annotations

import gzip
import io
import lzma
import random
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from arena import archive, storage
from arena.archive import ArchiveError, extract_bot_archive
from arena.storage.database import open_database
from dashboard import actions
from tests.dashboard.accounts_support import add_account
from tests.dashboard.test_archive import MANIFEST, make_zip
from tests.migrated_sqlite import migrated_sqlite_url

PRE_FIX_UNPACK_ERRORS = (
    tarfile.TarError, zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError,
    NotImplementedError, RuntimeError, ValueError, struct.error,
)  # fmt: skip
"""``_UNPACK_ERRORS`` before OverflowError (and IndexError, KeyError...) joined it."""


def zip_with_empty_name() -> bytes:
    """A valid bot.toml next to a member named "" (``ZipInfo.is_dir()`` fails on it)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("bot.toml", MANIFEST)
        zf.writestr(zipfile.ZipInfo(""), b"x")
    return buffer.getvalue()


def zip64_header_offset(offset: int) -> bytes:
    """A stored zip of bot.toml whose central directory sends its local header to *offset*
    (a zip64 extra field: up to 2**64 - 1, past what a seek can take)."""
    data = bytearray(make_zip({"bot.toml": MANIFEST}))
    entry = data.find(b"PK\x01\x02")
    (name_length,) = struct.unpack_from("<H", data, entry + 28)
    extra = struct.pack("<HHQ", 0x0001, 8, offset)
    struct.pack_into("<H", data, entry + 30, len(extra))
    struct.pack_into("<L", data, entry + 42, 0xFFFFFFFF)
    data[entry + 46 + name_length : entry + 46 + name_length] = extra
    end = data.rfind(b"PK\x05\x06")
    (size,) = struct.unpack_from("<L", data, end + 12)
    struct.pack_into("<L", data, end + 12, size + len(extra))
    return bytes(data)


def tar_bytes(files: dict[str, bytes], mode: str = "w:gz", names: tuple[str, ...] = ()) -> bytes:
    """A tar of *files*, with empty folders *names* first."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:  # type: ignore[call-overload]
        for name in names:
            folder = tarfile.TarInfo(name)
            folder.type = tarfile.DIRTYPE
            tar.addfile(folder)
        for name, content in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(content)
            tar.addfile(member, io.BytesIO(content))
    return buffer.getvalue()


# ------------------------------------------------------------------ an empty member name


def test_a_zip_member_with_an_empty_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="an archive entry has an empty name"):
        extract_bot_archive(zip_with_empty_name(), "bot.zip", tmp_path / "bot")


def test_control_the_same_zip_with_a_named_member_unpacks(tmp_path: Path) -> None:
    data = make_zip({"bot.toml": MANIFEST, "x": b"x"})
    root = extract_bot_archive(data, "bot.zip", tmp_path / "bot")
    assert (root / "x").read_bytes() == b"x"


# ------------------------------------------------------------------ empty archives

EMPTY = {
    "zip end record only": ("bot.zip", b"PK\x05\x06" + b"\x00" * 18),
    "1024 zero bytes as .tgz": ("bot.tgz", b"\x00" * 1024),
    "gzipped 1024 zero bytes": ("bot.tar.gz", gzip.compress(b"\x00" * 1024)),
    "a tar of only './'": ("bot.tar.gz", tar_bytes({}, names=("./",))),
}


@pytest.mark.parametrize("case", list(EMPTY))
def test_an_empty_archive_holds_no_bot(case: str, tmp_path: Path) -> None:
    filename, data = EMPTY[case]
    with pytest.raises(ArchiveError, match=r"empty: it holds no bot \(no bot.toml\)"):
        extract_bot_archive(data, filename, tmp_path / "bot")


@pytest.mark.parametrize("filename", ["bot.zip", "bot.tgz"])
def test_control_the_same_formats_with_a_manifest_unpack(filename: str, tmp_path: Path) -> None:
    files = {"bot.toml": MANIFEST}
    data = make_zip(files) if filename.endswith(".zip") else tar_bytes(files, "w")
    root = extract_bot_archive(data, filename, tmp_path / "bot")
    assert (root / "bot.toml").read_bytes() == MANIFEST


def test_an_archive_of_only_hidden_entries_holds_no_files(tmp_path: Path) -> None:
    data = make_zip({"__MACOSX/._bot.toml": b"junk"})
    with pytest.raises(ArchiveError, match=r"holds no files: no bot \(no bot.toml\)"):
        extract_bot_archive(data, "bot.zip", tmp_path / "bot")


@pytest.fixture
def uploader(tmp_path: Path) -> tuple[Engine, storage.Actor]:
    engine = open_database(migrated_sqlite_url(tmp_path / "arena.db"))
    add_account(engine, "uploader", "participant")
    return engine, storage.actor(engine, "uploader")


UPLOADS = {**EMPTY, "empty member name": ("bot.zip", zip_with_empty_name())}


@pytest.mark.parametrize("case", list(UPLOADS))
def test_the_page_says_archive_refused_without_a_server_path(
    case: str, uploader: tuple[Engine, storage.Actor], tmp_path: Path
) -> None:
    """What the Bots page shows: ``submit_archive``'s ActionError, one line, no path."""
    engine, by = uploader
    filename, data = UPLOADS[case]
    with pytest.raises(actions.ActionError) as refused:
        actions.submit_archive(engine, data, filename, tmp_path / "data", by)
    message = str(refused.value)
    assert message.startswith("archive refused: "), message
    assert "\n" not in message and "/tmp" not in message and str(tmp_path) not in message


# ------------------------------------------------------------------ what zipfile raises


@pytest.mark.parametrize("offset", [2**64 - 1, 2**63])
def test_a_zip64_header_offset_past_any_seek_is_refused(offset: int, tmp_path: Path) -> None:
    """zipfile seeks to the offset unchecked: BytesIO raises OverflowError."""
    with pytest.raises(ArchiveError, match=r"'bot\.toml': cannot unpack"):
        extract_bot_archive(zip64_header_offset(offset), "bot.zip", tmp_path / "bot")


def test_control_a_zip64_header_offset_at_the_real_header_unpacks(tmp_path: Path) -> None:
    root = extract_bot_archive(zip64_header_offset(0), "bot.zip", tmp_path / "bot")
    assert (root / "bot.toml").read_bytes() == MANIFEST


# ------------------------------------------------------------------ random damage

_FILES = {"bot.toml": MANIFEST, "src/bot.py": b"print('pass')\n" * 20, "run.sh": b"#!/bin/sh\n"}


def _samples() -> list[tuple[str, bytes]]:
    """Small valid bots in each format the upload takes (tar members also with pax and GNU
    long-name headers, which tarfile parses apart)."""
    long_name = {"d/" + "n" * 120: b"1", **_FILES}

    def tar_format(form: int) -> bytes:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=form) as tar:
            for name, content in long_name.items():
                member = tarfile.TarInfo(name)
                member.size = len(content)
                tar.addfile(member, io.BytesIO(content))
        return buffer.getvalue()

    def zip_method(method: int) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", method) as zf:
            zf.writestr("src/", b"")
            for name, content in _FILES.items():
                zf.writestr(name, content)
        return buffer.getvalue()

    return [
        ("bot.zip", zip_method(zipfile.ZIP_DEFLATED)),
        ("bot.zip", zip_method(zipfile.ZIP_STORED)),
        ("bot.zip", zip_method(zipfile.ZIP_BZIP2)),
        ("bot.zip", zip_method(zipfile.ZIP_LZMA)),
        ("bot.tar.gz", tar_bytes(_FILES)),
        ("bot.tar", tar_format(tarfile.PAX_FORMAT)),
        ("bot.tar", tar_format(tarfile.GNU_FORMAT)),
        ("bot.tar", tar_bytes(_FILES, "w:bz2")),
        ("bot.tar", tar_bytes(_FILES, "w:xz")),
    ]


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four random edits: a byte set, a bit flipped, a cut, an insertion, or a
    2-, 4- or 8-byte field (a length, an offset) set to all 0x00 or all 0xFF."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(out))
        edit = rng.randrange(5)
        if edit == 0:
            out[at] = rng.randrange(256)
        elif edit == 1:
            out[at] ^= 1 << rng.randrange(8)
        elif edit == 2:
            del out[at:]
        elif edit == 3:
            out[at:at] = rng.randbytes(rng.randint(1, 8))
        else:
            width = rng.choice((2, 4, 8))
            out[at : at + width] = rng.choice((b"\x00", b"\xff")) * width
        if not out:
            out = bytearray(b"\x00")
    return bytes(out)


def _escapes(cases: list[tuple[str, bytes]], scratch: Path) -> list[tuple[int, str]]:
    """``(case, exception)`` for every case that neither unpacked nor raised ArchiveError."""
    escaped = []
    for number, (filename, data) in enumerate(cases):
        try:
            extract_bot_archive(data, filename, scratch / str(number))
        except ArchiveError:
            pass
        except Exception as exc:  # the property under test: nothing else gets out
            escaped.append((number, f"{type(exc).__name__}: {exc}"))
    return escaped


def _damaged(count: int, seed: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    samples = _samples()
    return [
        (name, _mutate(data, rng)) for name, data in (rng.choice(samples) for _ in range(count))
    ]


def test_randomly_damaged_archives_unpack_or_are_refused(tmp_path: Path) -> None:
    """600 seeded mutations of small valid zips and tars (well under a second)."""
    cases = _damaged(600, seed=952)
    assert _escapes(cases, tmp_path) == []


def test_control_the_damage_check_sees_an_escaping_exception(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the pre-fix list of unpack errors, a zip64 offset escapes as OverflowError, and
    the check reports it and only it."""
    monkeypatch.setattr(archive, "_UNPACK_ERRORS", PRE_FIX_UNPACK_ERRORS)
    cases = [*_damaged(20, seed=952), ("bot.zip", zip64_header_offset(2**64 - 1))]
    escaped = _escapes(cases, tmp_path / "bad")
    assert [number for number, _ in escaped] == [len(cases) - 1], escaped
    assert escaped[0][1].startswith("OverflowError"), escaped


def test_undamaged_samples_are_bots(tmp_path: Path) -> None:
    """The samples the damage starts from are valid bots (else every mutation could fail
    the same dull way)."""
    for number, (filename, data) in enumerate(_samples()):
        root = extract_bot_archive(data, filename, tmp_path / str(number))
        assert (root / "bot.toml").read_bytes() == MANIFEST
