"""Stored versions cannot change: an unambiguous checksum, folders never replaced, tampering
caught when a version is loaded.

Real submissions through :func:`arena.submission.submit_bot` (real build, real smoke game
through the referee) on SQLite and PostgreSQL.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena import storage
from arena.storage.database import open_database
from arena.submission import (
    CHECKSUM_PREFIX,
    ChecksumError,
    SubmitError,
    checksum,
    legacy_checksum,
    submit_bot,
    verify_checksum,
)

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"


def make_files(directory: Path, files: dict[str, bytes]) -> Path:
    directory.mkdir(parents=True)
    for name, content in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(content)
    return directory


def colliding_bots(tmp_path: Path) -> tuple[Path, Path]:
    """Two different random bots whose legacy ``name\\0content\\0`` encodings are equal:
    in the first, ``notes`` holds ``x\\0reply\\0y``; the second splits it into two files."""
    bot = {p.name: p.read_bytes() for p in (SAMPLES / "random_bot").iterdir() if p.is_file()}
    whole = make_files(tmp_path / "whole", {**bot, "notes": b"x\0reply\0y"})
    split = make_files(tmp_path / "split", {**bot, "notes": b"x", "reply": b"y"})
    return whole, split


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


def test_the_legacy_encoding_collides_and_the_new_one_does_not(tmp_path: Path) -> None:
    whole, split = colliding_bots(tmp_path)
    assert snapshot(whole) != snapshot(split)
    # Control: the checksum stored before this change cannot tell the two apart.
    assert legacy_checksum(whole) == legacy_checksum(split)
    assert checksum(whole) != checksum(split)
    assert checksum(whole).startswith(CHECKSUM_PREFIX) and len(checksum(whole)) <= 64
    # Other ambiguities of a concatenation: a name's end, the executable bit.
    a = make_files(tmp_path / "a", {"ab": b"c"})
    b = make_files(tmp_path / "b", {"a": b"bc"})
    assert checksum(a) != checksum(b)
    copy = tmp_path / "copy"
    shutil.copytree(a, copy)
    assert checksum(copy) == checksum(a)
    (copy / "ab").chmod(0o755)
    assert checksum(copy) != checksum(a)


def test_a_colliding_submission_never_changes_version_1(database_url: str, tmp_path: Path) -> None:
    """The reproduction: store A, then any other version, then B colliding with A under the
    legacy checksum; the old code renamed B into A's folder after deleting it."""
    engine = open_database(database_url)
    data = tmp_path / "data"
    whole, split = colliding_bots(tmp_path)
    first, created = submit_bot(engine, whole, data)
    assert created and first.checksum == checksum(whole)
    files = snapshot(Path(first.path))
    other = make_files(tmp_path / "other", {**snapshot(whole), "notes": b"other"})
    assert submit_bot(engine, other, data)[1]
    third, created = submit_bot(engine, split, data)
    assert created and third.checksum != first.checksum and third.path != first.path
    assert snapshot(Path(first.path)) == files
    verify_checksum(Path(first.path), first.checksum)
    verify_checksum(Path(third.path), third.checksum)
    assert [v.seq for v in storage.bot_versions(engine, "random_bot")] == [1, 2, 3]
    # Resubmitting version 1's files makes a fourth version that shares its intact folder.
    fourth, created = submit_bot(engine, whole, data)
    assert created and fourth.path == first.path and snapshot(Path(first.path)) == files


def test_an_existing_folder_is_never_replaced(database_url: str, tmp_path: Path) -> None:
    engine = open_database(database_url)
    data = tmp_path / "data"
    bot = SAMPLES / "random_bot"
    occupied = data / "bots" / "random_bot" / checksum(bot).removeprefix(CHECKSUM_PREFIX)
    make_files(occupied, {"bot.toml": b"# someone else's files\n"})
    with pytest.raises(SubmitError, match="already exists with other files"):
        submit_bot(engine, bot, data)
    assert snapshot(occupied) == {"bot.toml": b"# someone else's files\n"}
    assert storage.latest_version(engine, "random_bot") is None
    assert [p.name for p in occupied.parent.iterdir()] == [occupied.name]


def test_tampering_with_a_stored_version_is_caught(database_url: str, tmp_path: Path) -> None:
    engine = open_database(database_url)
    version, _ = submit_bot(engine, SAMPLES / "random_bot", tmp_path / "data")
    stored = Path(version.path)
    verify_checksum(stored, version.checksum)  # control: untouched, it verifies
    original = (stored / "bot.py").read_bytes()
    (stored / "bot.py").write_bytes(original + b"\n# peek at the deck\n")
    with pytest.raises(ChecksumError, match="files changed"):
        verify_checksum(stored, version.checksum)
    (stored / "bot.py").write_bytes(original)
    verify_checksum(stored, version.checksum)
    (stored / "random.py").write_text("seed = 0\n")  # a new file shadowing a module
    with pytest.raises(ChecksumError, match="files changed"):
        verify_checksum(stored, version.checksum)
    (stored / "random.py").unlink()
    (stored / "bot.py").chmod(0o755)
    with pytest.raises(ChecksumError, match="files changed"):
        verify_checksum(stored, version.checksum)
    shutil.rmtree(stored)
    with pytest.raises(ChecksumError, match="cannot verify"):
        verify_checksum(stored, version.checksum)


def test_legacy_checksums_still_verify(tmp_path: Path) -> None:
    """Versions stored before the change keep their unprefixed sha256 and still verify."""
    stored = tmp_path / "stored"
    shutil.copytree(SAMPLES / "random_bot", stored)
    legacy = legacy_checksum(stored)
    assert len(legacy) == 64 and not legacy.startswith(CHECKSUM_PREFIX)
    verify_checksum(stored, legacy)
    (stored / "bot.toml").write_text((stored / "bot.toml").read_text() + "# changed\n")
    with pytest.raises(ChecksumError, match="files changed"):
        verify_checksum(stored, legacy)


def test_build_outputs_are_part_of_the_stored_version(database_url: str, tmp_path: Path) -> None:
    """The stored checksum covers what is played (the copy after its build), and submitting
    the same sources again is still recognised as unchanged."""
    engine = open_database(database_url)
    bot = tmp_path / "built"
    shutil.copytree(SAMPLES / "random_bot", bot)
    manifest = (bot / "bot.toml").read_text().replace("random_bot", "built_bot")
    (bot / "bot.toml").write_text(manifest + "build = \"python -c \\\"open('out.txt','w')\\\"\"\n")
    version, created = submit_bot(engine, bot, tmp_path / "data")
    assert created and (Path(version.path) / "out.txt").is_file()
    assert not (bot / "out.txt").exists()
    verify_checksum(Path(version.path), version.checksum)
    assert version.checksum != checksum(bot)
    again, created = submit_bot(engine, bot, tmp_path / "data")
    assert not created and again.id == version.id
