"""``arena remote submit`` packs a bot exactly as the server checks it (arena.bundle): the
same bytes every time, exactly the files a submission stores, a checksum that survives the
server's own unpacking; and a bot the server would refuse is refused before any upload.
Every refusal has a control: the same bot, put right, packs."""

from __future__ import annotations

import io
import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from arena.archive import MAX_ARCHIVE_BYTES, extract_bot_archive
from arena.bundle import FIXED_TIME, BundleError, bundle_bot, pack_bot
from arena.cli import main
from arena.submission import checksum, scan_bot

SAMPLE = Path(__file__).resolve().parents[1] / "sample_bots" / "random_bot"


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    """random_bot with a subfolder, an executable, and the caches a submission skips."""
    folder = tmp_path / "bot"
    shutil.copytree(SAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "lib").mkdir()
    (folder / "lib" / "weights.txt").write_text("0.5 0.25\n")
    run = folder / "run.sh"
    run.write_text("#!/bin/sh\nexec python3 bot.py\n")
    run.chmod(0o755)
    for skipped in ("__pycache__", ".git", "node_modules", ".venv"):
        (folder / skipped).mkdir()
        (folder / skipped / "junk").write_text("not part of the bot\n")
    (folder / "lib" / "cached.pyc").write_bytes(b"\0\0")
    return folder


def _names(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [info.filename for info in archive.infolist()]


def test_the_pack_is_the_same_bytes_every_time(bot: Path, tmp_path: Path) -> None:
    first = pack_bot(bot)
    assert pack_bot(bot) == first
    # A copy made later (other timestamps, other folder) packs to the same bytes too.
    copy = tmp_path / "elsewhere" / "bot"
    shutil.copytree(bot, copy)
    os.utime(copy / "bot.py", (1_000_000_000, 1_000_000_000))
    assert pack_bot(copy) == first
    # Control: a changed byte changes the pack.
    (copy / "bot.py").write_text((copy / "bot.py").read_text() + "# changed\n")
    assert pack_bot(copy) != first


def test_the_pack_holds_exactly_the_files_a_submission_stores(bot: Path) -> None:
    data = pack_bot(bot)
    expected = [str(f.relative) for f in scan_bot(bot)]
    names = _names(data)
    assert names[0] == "bot.toml"
    assert sorted(names) == sorted(expected)
    assert names[1:] == [n for n in expected if n != "bot.toml"]
    assert not any(n.startswith(("__pycache__", ".git", "node_modules", ".venv")) for n in names)
    assert "lib/cached.pyc" not in names
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
        assert {i.date_time for i in archive.infolist()} == {FIXED_TIME}
    assert modes["run.sh"] == stat.S_IFREG | 0o755
    assert modes["bot.py"] == stat.S_IFREG | 0o644


def test_the_checksum_survives_the_servers_unpacking(bot: Path, tmp_path: Path) -> None:
    bundle = bundle_bot(bot)
    unpacked = extract_bot_archive(bundle.data, bundle.filename, tmp_path / "server")
    assert checksum(unpacked) == checksum(bot) == bundle.checksum
    assert (unpacked / "run.sh").stat().st_mode & stat.S_IXUSR
    assert bundle.label == "random_bot@1.0.0"
    assert bundle.files == len(scan_bot(bot))


def test_a_symbolic_link_is_refused(bot: Path) -> None:
    link = bot / "lib" / "passwd"
    link.symlink_to("/etc/passwd")
    with pytest.raises(BundleError, match="symbolic links"):
        pack_bot(bot)
    link.unlink()  # control
    assert "lib/passwd" not in _names(pack_bot(bot))


@pytest.mark.slow
def test_a_bot_over_the_servers_archive_limit_is_refused(bot: Path) -> None:
    """The limit is the archive's (what is uploaded): incompressible bytes over it are
    refused in one line; the same number of zeros, which compress, are not."""
    data = bot / "lib" / "data.bin"
    data.write_bytes(os.urandom(MAX_ARCHIVE_BYTES + 1024))
    with pytest.raises(BundleError, match="larger than the 20 MiB the server takes") as caught:
        pack_bot(bot)
    assert "\n" not in str(caught.value)
    data.write_bytes(bytes(MAX_ARCHIVE_BYTES + 1024))  # control
    assert len(pack_bot(bot)) < MAX_ARCHIVE_BYTES


def test_a_broken_manifest_is_refused(bot: Path) -> None:
    manifest = bot / "bot.toml"
    good = manifest.read_text()
    manifest.write_text(good.replace("name =", "nom ="))
    with pytest.raises(BundleError, match=r"bot\.toml"):
        pack_bot(bot)
    manifest.write_text(good)  # control
    assert pack_bot(bot)


def test_a_file_name_the_server_refuses_is_refused_before_sending(bot: Path) -> None:
    """A backslash is a fine Linux file name that the server's unpacking refuses (a Windows
    path trick): the client finds out by unpacking its own archive with the same code."""
    odd = bot / "lib" / "a\\b.txt"
    odd.write_text("x\n")
    with pytest.raises(BundleError, match=r"the server would refuse .* backslashes"):
        pack_bot(bot)
    odd.rename(bot / "lib" / "a_b.txt")  # control
    assert "lib/a_b.txt" in _names(pack_bot(bot))


def test_remote_submit_refuses_such_a_bot_before_connecting(
    bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot that cannot be sent is a usage error (2), as `arena bot submit` has it, found
    before any connection: the server here is a closed port, which would be status 1."""
    server = ["--server", "http://127.0.0.1:9", "--token", "a952_" + "x" * 43]
    (bot / "link").symlink_to("bot.py")
    assert main(["remote", "submit", str(bot), *server]) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith("arena: error:") and "symbolic links" in line
    assert "\n" not in line
    (bot / "link").unlink()  # control: packed, then the connection fails
    assert main(["remote", "submit", str(bot), *server]) == 1
    assert "cannot connect to http://127.0.0.1:9" in capsys.readouterr().err
