"""Unpacking uploaded bot archives: good ones land intact, bad ones are refused with why."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from contextlib import nullcontext
from pathlib import Path

import pytest

from arena.archive import (
    MAX_ARCHIVE_BYTES,
    MAX_EXTRACTED_BYTES,
    MAX_MEMBERS,
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


# --------------------------------------------------------------------- hostile uploads


def zip_entries(entries: list[tuple[str, bytes]]) -> bytes:
    """A zip with exactly these entries in this order (a name ending in / is a folder)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFDIR | 0o755 if name.endswith("/") else
                                  stat.S_IFREG | 0o644) << 16  # fmt: skip
            archive.writestr(info, content)
    return buffer.getvalue()


HOSTILE_ZIPS = {
    "file then a file inside it": (
        [("bot.toml", MANIFEST), ("x", b"1"), ("x/y", b"2")],
        "'x' is both a file and a folder",
    ),
    "file then a folder of the same name": (
        [("bot.toml", MANIFEST), ("x", b"1"), ("x/", b"")],
        "'x' is both a file and a folder",
    ),
    "folder then a file of the same name": (
        [("bot.toml", MANIFEST), ("x/y", b"1"), ("x", b"2")],
        "'x' is both a file and a folder",
    ),
    "a 300-character name": (
        [("bot.toml", MANIFEST), ("n" * 300, b"1")],
        "names longer than 255 bytes",
    ),
    "a 2000-character path": (
        [("bot.toml", MANIFEST), ("/".join(["d" * 100] * 20), b"1")],
        "paths longer than 1024 bytes",
    ),
    "a newline in a name": (
        [("bot.toml", MANIFEST), ("evil\nname", b"1")],
        "control characters",
    ),
    "the same file twice": (
        [("bot.toml", MANIFEST), ("bot.toml", MANIFEST)],
        "appears twice",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE_ZIPS))
def test_hostile_zip_names_are_one_clear_error(tmp_path: Path, case: str) -> None:
    entries, message = HOSTILE_ZIPS[case]
    with pytest.warns(UserWarning) if case == "the same file twice" else nullcontext():
        data = zip_entries(entries)
    with pytest.raises(ArchiveError, match=message) as caught:
        extract_bot_archive(data, "bot.zip", tmp_path / "out")
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200
    # Control: without the hostile entry the same archive unpacks.
    good = zip_entries([entries[0]])
    assert (extract_bot_archive(good, "bot.zip", tmp_path / "good") / "bot.toml").is_file()


def latin1_tar() -> bytes:
    """A .tar.gz whose second member's name is Latin-1 bytes, not UTF-8."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.GNU_FORMAT) as archive:
        for name, content in ((b"bot.toml", MANIFEST), (b"caf\xe9.py", b"x = 1\n")):
            member = tarfile.TarInfo(name.decode("utf-8", "surrogateescape"))
            member.size = len(content)
            archive.addfile(member, io.BytesIO(content))
    return raw.getvalue()


def test_a_tar_member_name_that_is_not_utf8(tmp_path: Path) -> None:
    data = latin1_tar()
    with pytest.raises(ArchiveError, match="file names must be UTF-8"):
        extract_bot_archive(data, "bot.tar.gz", tmp_path / "out")
    # Control: tarfile hands the undecodable name on as it is, surrogates and all.
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        assert "caf\udce9.py" in archive.getnames()


@pytest.mark.slow
def test_a_tar_header_bomb_is_cut_off(tmp_path: Path) -> None:
    """A pax header of 60 MB: tarfile reads such a header whole into memory."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        member = tarfile.TarInfo("bot.toml")
        member.size = len(MANIFEST)
        member.pax_headers = {"comment": "x" * (60 * 2**20)}
        archive.addfile(member, io.BytesIO(MANIFEST))
    data = raw.getvalue()
    assert len(data) < MAX_ARCHIVE_BYTES
    with pytest.raises(ArchiveError, match="unpacks to more than 50 MB"):
        extract_bot_archive(data, "bot.tar.gz", tmp_path / "out")


def test_a_zip_with_too_many_entries_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    data = make_zip({"bot.toml": MANIFEST, **{str(i): b"" for i in range(MAX_MEMBERS + 1)}})
    with pytest.raises(ArchiveError, match="more than 5000 entries"):
        extract_bot_archive(data, "bot.zip", tmp_path / "out")
    assert not (tmp_path / "out" / "0").exists()  # refused before the first entry


def test_a_corrupt_deflate_stream(tmp_path: Path) -> None:
    data = bytearray(make_zip({"bot.toml": MANIFEST, "bot.py": b"print('hello')\n" * 200}))
    start = data.index(b"bot.py") + len("bot.py") + 4
    data[start : start + 20] = b"\xff" * 20
    with pytest.raises(ArchiveError, match="cannot unpack"):
        extract_bot_archive(bytes(data), "bot.zip", tmp_path / "out")
