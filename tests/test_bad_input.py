"""Hostile input to the command line: one clear line, exit status 2, nothing stored.
Each test has a control showing the input really hurts the layer
below when nothing checks it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from arena import storage
from arena.cli import main
from arena.referee.manifest import ManifestError, load_manifest
from arena.storage.database import open_database
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[1]
RANDOM = ROOT / "sample_bots" / "random_bot"


def one_line_error(capsys: pytest.CaptureFixture[str], *fragments: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("arena: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err
    return err


def copy_bot(tmp_path: Path, name: str = "bot") -> Path:
    bot = tmp_path / name
    shutil.copytree(RANDOM, bot)
    return bot


# ------------------------------------------------------------------------- replay


def test_replay_of_a_huge_game_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    assert main(["replay", "99999999999999999999999", "--db", url]) == 2
    one_line_error(capsys, "GAME_ID", "99999999999999999999999")
    assert main(["replay", "0", "--db", url]) == 2
    one_line_error(capsys, "GAME_ID")
    assert main(["replay", "7", "--db", url]) == 1  # in range, not stored: not a usage error
    # Control: unchecked, the id overflows in the database driver (not a StorageError).
    with pytest.raises(OverflowError):
        storage.game_record(open_database(url), 99999999999999999999999)


# ---------------------------------------------------------------------- out dirs


@pytest.mark.parametrize("out", ["/dev/null/x", "{file}", "{file}/sub"])
def test_simulate_into_an_unusable_directory(
    out: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "a-file"
    file.write_text("in the way\n")
    target = Path(out.format(file=file))
    assert main(["simulate", "--games", "1", "--out", str(target)]) == 2
    one_line_error(capsys, "--out")
    assert file.read_text() == "in the way\n"
    with pytest.raises(OSError):  # control: the directory cannot be made
        target.mkdir(parents=True, exist_ok=True)


# ------------------------------------------------------------------------ --listen


def _busy_port() -> tuple[socket.socket, int]:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    return holder, holder.getsockname()[1]


@pytest.mark.parametrize(
    ("listen", "message"),
    [
        ("notanaddress", "is not HOST:PORT"),
        ("127.0.0.1:99999", "from 1 to 65535"),
        ("127.0.0.1:0", "from 1 to 65535"),
        ("127.0.0.1:-1", "from 1 to 65535"),
        ("127.0.0.1:http", "from 1 to 65535"),
        (":50051", "is not HOST:PORT"),
        ("no-such-host.invalid:50051", "unknown host"),
        ("busy", "cannot listen"),
    ],
)
def test_match_listen_is_checked_when_parsed(
    listen: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    holder, port = _busy_port()
    with holder:
        if listen == "busy":
            listen = f"127.0.0.1:{port}"
        args = ["match", "builtin:random", "builtin:random", "remote", "--games", "1"]
        assert main([*args, "--listen", listen]) == 2
    one_line_error(capsys, "--listen", message)


def test_control_grpc_wraps_a_port_above_65535() -> None:
    """Why the port is checked: gRPC itself takes 99999 and listens on 99999 - 65536."""
    server = grpc.server(ThreadPoolExecutor(1))
    try:
        bound = server.add_insecure_port("127.0.0.1:99999")
        assert bound == 99999 - 65536
    finally:
        server.stop(None)


# ------------------------------------------------------------------------ bot.toml


@pytest.mark.parametrize("depth", [100_000, 30_000])
def test_a_deeply_nested_manifest(
    depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = copy_bot(tmp_path)
    text = (bot / "bot.toml").read_text() + "nested = " + "[" * depth + "]" * depth + "\n"
    (bot / "bot.toml").write_text(text)
    message = "larger than 64 KiB" if depth > 32_000 else "nested too deeply"
    with pytest.raises(ManifestError, match=message):
        load_manifest(bot)
    assert main(["bot", "check", str(bot)]) == 2
    one_line_error(capsys, message)
    data = tmp_path / "data"
    assert main(["bot", "submit", str(bot), "--data", str(data)]) == 2
    one_line_error(capsys, message)
    assert not data.exists()
    with pytest.raises(RecursionError):  # control: the parser itself overflows
        tomllib.loads(text)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('description = "' + "x" * 70_000 + '"\n', "larger than 64 KiB"),
        ('author = "' + "x" * 5_000 + '"\n', "'author' is longer than 1000"),
        ('language = "' + "x" * 65 + '"\n', "'language' is longer than 64"),
        ('author = "me\\u0000"\n', "control characters"),
        ('build = "make\\u0000 all"\n', "NUL"),
    ],
)
def test_oversized_or_odd_manifest_fields(
    extra: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = copy_bot(tmp_path)
    manifest = 'name = "bot"\nversion = "1"\nrun = "python bot.py"\n'
    if "language" not in extra:
        manifest += 'language = "python"\n'
    (bot / "bot.toml").write_text(manifest + extra)
    assert main(["bot", "submit", str(bot), "--data", str(tmp_path / "data")]) == 2
    one_line_error(capsys, message)
    assert not (tmp_path / "data").exists()


# --------------------------------------------------------------------- bot files


def test_a_file_name_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = copy_bot(tmp_path)
    with open(os.fsencode(bot) + b"/caf\xe9.txt", "wb") as latin1:
        latin1.write(b"a Latin-1 name\n")
    assert b"caf\xe9.txt" in os.listdir(os.fsencode(bot))  # control: the name is on disk
    with pytest.raises(UnicodeEncodeError):  # control: what crashed the old checksum
        next(p for p in bot.iterdir() if p.name.startswith("caf")).name.encode()
    data = tmp_path / "data"
    assert main(["bot", "submit", str(bot), "--data", str(data)]) == 2
    one_line_error(capsys, "file names must be UTF-8", "caf\\udce9.txt")
    assert main(["bot", "check", str(bot), "--games", "1"]) == 2
    one_line_error(capsys, "file names must be UTF-8")
    assert not data.exists()


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_special_files_in_a_bot(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = copy_bot(tmp_path)
    if kind == "fifo":
        os.mkfifo(bot / "pipe")  # reading it would block the submission for ever
    else:
        (bot / "link").symlink_to("/etc/passwd")
    assert main(["bot", "submit", str(bot), "--data", str(tmp_path / "data")]) == 2
    one_line_error(capsys, "only files and folders" if kind == "fifo" else "symbolic links")


def test_too_many_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = copy_bot(tmp_path)
    for i in range(10_001):
        (bot / f"f{i}").touch()
    assert main(["bot", "submit", str(bot), "--data", str(tmp_path / "data")]) == 2
    one_line_error(capsys, "more than 10000 files")


_LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
{body}
"""


def _limited(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run *body* in a Python limited to 1 GiB of address space."""
    env = dict(os.environ, ARENA_DATA=str(tmp_path / "data"))
    return subprocess.run(
        [sys.executable, "-c", _LIMITED.format(body=body)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120, check=False,
    )  # fmt: skip


def test_a_2_gib_sparse_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    bot = copy_bot(tmp_path)
    with (bot / "data.bin").open("wb") as sparse:
        sparse.truncate(2 * 2**30)  # no disk used
    submit = _limited(
        f"from arena.cli import main\nsys.exit(main(['bot', 'submit', {str(bot)!r}]))", tmp_path
    )
    assert submit.returncode == 2, submit.stderr
    assert submit.stderr.strip().splitlines() == [
        "arena: error: Invalid value for PATH: the bot is larger than 50 MiB"
        " (arena bot submit --help)"
    ]
    assert not (tmp_path / "data").exists()
    # Control: under the same limit, reading the file as the old checksum did fails.
    read = _limited(f"open({str(bot / 'data.bin')!r}, 'rb').read()", tmp_path)
    assert read.returncode != 0 and "MemoryError" in read.stderr


# ----------------------------------------------------------------- numeric flags


@pytest.mark.parametrize(
    "args",
    [
        ["bot", "check", str(RANDOM), "--games", "1000000000"],
        ["bot", "check", str(RANDOM), "--games", "-1"],
        ["bot", "submit", str(RANDOM), "--build-timeout", "99999999999999999999"],
        ["bot", "submit", str(RANDOM), "--build-timeout", "0"],
    ],
)
def test_numbers_out_of_range(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    one_line_error(capsys, "range")


def test_a_path_too_deep_to_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = copy_bot(tmp_path)
    deep = bot.joinpath(*["d" * 250] * 5)
    deep.mkdir(parents=True)
    (deep / "f").write_text("x")
    data = tmp_path / "data"
    assert main(["bot", "submit", str(bot), "--data", str(data)]) == 2
    one_line_error(capsys, "paths longer than 1024 bytes")
    assert not data.exists()


def test_unusable_db_and_data_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "list", "--db", "not a url"]) == 2
    one_line_error(capsys, "--db", "not a database URL")
    assert main(["bot", "list", "--data", "/dev/null/x"]) == 2
    one_line_error(capsys, "--data", "Not a directory")


# ------------------------------------------------------------------- build network


@pytest.mark.parametrize("value", ["maybe", "2", "on please"])
def test_a_wrong_build_network_setting_is_refused_before_anything_is_stored(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    bot = copy_bot(tmp_path)
    monkeypatch.setenv("ARENA_BUILD_NETWORK", value)
    assert main(["bot", "submit", str(bot), "--data", str(data)]) == 2
    one_line_error(capsys, "ARENA_BUILD_NETWORK")
    assert not data.exists()
    # Control: the explicit flag overrides the setting, and the bot is stored.
    assert main(["bot", "submit", str(bot), "--data", str(data), "--no-build-network"]) == 0
    assert (data / "bots" / "random_bot").is_dir()
