"""Unpacking uploaded bot archives: good ones land intact, bad ones are refused with why."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from dashboard.archive import (
    MAX_ARCHIVE_BYTES,
    MAX_EXTRACTED_BYTES,
    ArchiveError,
    extract_bot_archive,
)

MANIFEST = b'name = "x"\nversion = "1"\nlanguage = "python"\nrun = "python bot.py"\n'


def make_zip(files: dict[str, bytes], modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = ((modes or {}).get(name, stat.S_IFREG | 0o644)) << 16
            archive.writestr(info, content)
    return buffer.getvalue()


def make_tar(members: list[tarfile.TarInfo], contents: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            data = contents.get(member.name)
            if data is not None:
                member.size = len(data)
            archive.addfile(member, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def file_member(name: str, mode: int = 0o644) -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.mode = mode
    return member


def test_a_zip_with_a_top_folder(tmp_path: Path) -> None:
    data = make_zip(
        {"mybot/bot.toml": MANIFEST, "mybot/bot.py": b"print(1)\n", "mybot/run.sh": b"#!/bin/sh\n"},
        {"mybot/run.sh": stat.S_IFREG | 0o755},
    )
    root = extract_bot_archive(data, "mybot.zip", tmp_path / "out")
    assert root == (tmp_path / "out" / "mybot").resolve()
    assert (root / "bot.toml").read_bytes() == MANIFEST
    assert (root / "run.sh").stat().st_mode & 0o100
    assert not (root / "bot.py").stat().st_mode & 0o100


def test_a_tar_gz_with_the_manifest_at_the_top(tmp_path: Path) -> None:
    data = make_tar(
        [file_member("bot.toml"), file_member("src/bot.py")],
        {"bot.toml": MANIFEST, "src/bot.py": b"x = 1\n"},
    )
    root = extract_bot_archive(data, "bot.tar.gz", tmp_path / "out")
    assert (root / "src" / "bot.py").read_bytes() == b"x = 1\n"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../evil.py", "path traversal"),
        ("bot/../../evil.py", "path traversal"),
        ("/etc/evil", "absolute"),
        ("C:/evil", "absolute"),
        ("bot\\..\\evil", "backslash"),
    ],
)
def test_dangerous_paths_are_refused(tmp_path: Path, name: str, message: str) -> None:
    zipped = make_zip({"bot.toml": MANIFEST, name: b"x"})
    with pytest.raises(ArchiveError, match=message):
        extract_bot_archive(zipped, "bot.zip", tmp_path / "zip")
    tarred = make_tar(
        [file_member("bot.toml"), file_member(name)], {"bot.toml": MANIFEST, name: b"x"}
    )
    with pytest.raises(ArchiveError, match=message):
        extract_bot_archive(tarred, "bot.tgz", tmp_path / "tar")
    assert not (tmp_path / "evil.py").exists() and not (tmp_path.parent / "evil.py").exists()


def test_links_are_refused(tmp_path: Path) -> None:
    zipped = make_zip(
        {"bot.toml": MANIFEST, "link": b"/etc/passwd"}, {"link": stat.S_IFLNK | 0o777}
    )
    with pytest.raises(ArchiveError, match="symbolic links"):
        extract_bot_archive(zipped, "bot.zip", tmp_path / "zip")
    for kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
        link = tarfile.TarInfo("link")
        link.type, link.linkname = kind, "/etc/passwd"
        tarred = make_tar([file_member("bot.toml"), link], {"bot.toml": MANIFEST})
        with pytest.raises(ArchiveError, match="links are not allowed"):
            extract_bot_archive(tarred, "bot.tar.gz", tmp_path / f"tar{kind!r}")


def test_devices_and_fifos_are_refused(tmp_path: Path) -> None:
    fifo = tarfile.TarInfo("pipe")
    fifo.type = tarfile.FIFOTYPE
    with pytest.raises(ArchiveError, match="only files and folders"):
        extract_bot_archive(make_tar([fifo], {}), "bot.tar.gz", tmp_path / "out")


def test_size_limits(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="larger than 20 MB"):
        extract_bot_archive(b"PK\x03\x04" + bytes(MAX_ARCHIVE_BYTES), "big.zip", tmp_path / "a")
    # A zip bomb: tiny compressed, huge unpacked.
    bomb = make_zip({"bot.toml": MANIFEST, "zeros.bin": bytes(MAX_EXTRACTED_BYTES + 1)})
    assert len(bomb) < 1_000_000
    with pytest.raises(ArchiveError, match="larger than 50 MB"):
        extract_bot_archive(bomb, "bomb.zip", tmp_path / "b")
    many = make_zip({"bot.toml": MANIFEST, **{f"f{i}/x": b"" for i in range(6000)}})
    with pytest.raises(ArchiveError, match="more than 5000 entries"):
        extract_bot_archive(many, "many.zip", tmp_path / "c")


def test_no_manifest_and_not_an_archive(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match=r"no bot\.toml"):
        extract_bot_archive(make_zip({"bot.py": b"x"}), "bot.zip", tmp_path / "a")
    two_folders = make_zip({"a/bot.toml": MANIFEST, "b/bot.toml": MANIFEST})
    with pytest.raises(ArchiveError, match=r"no bot\.toml"):
        extract_bot_archive(two_folders, "bot.zip", tmp_path / "b")
    with pytest.raises(ArchiveError, match=r"upload a \.zip or \.tar\.gz"):
        extract_bot_archive(b"hello", "bot.txt", tmp_path / "c")
    with pytest.raises(ArchiveError, match="not a readable zip"):
        extract_bot_archive(b"PK\x03\x04garbage", "bot.zip", tmp_path / "d")
    with pytest.raises(ArchiveError, match="not a readable tar"):
        extract_bot_archive(b"\x1f\x8bgarbage", "bot.tar.gz", tmp_path / "e")


def test_a_zip_without_unix_modes(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # writestr(str, ...) sets no file type
        archive.writestr("bot.toml", MANIFEST)
    root = extract_bot_archive(buffer.getvalue(), "bot.zip", tmp_path / "out")
    assert (root / "bot.toml").read_bytes() == MANIFEST
