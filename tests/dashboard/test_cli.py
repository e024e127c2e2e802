"""``arena dashboard``: serves the given database, prints its URL, stops on Ctrl-C."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from arena.cli import main
from arena.cli.dashboard import app_path, streamlit_command
from tests.dashboard.helpers import free_port, wait_for_url
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]


def test_the_app_is_found_and_the_server_is_locked_down() -> None:
    assert app_path() == ROOT / "dashboard" / "server.py"
    command = streamlit_command(app_path(), "127.0.0.1", 8600)
    assert command[1:4] == ["-m", "streamlit", "run"]
    options = dict(zip(command[5::2], command[6::2], strict=True))
    assert options["--server.address"] == "127.0.0.1"
    assert options["--server.port"] == "8600"
    assert options["--server.maxUploadSize"] == "20"
    assert options["--browser.gatherUsageStats"] == "false"
    assert options["--client.showErrorDetails"] == "none"


def test_a_bad_database_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dashboard", "--db", "nosuchdriver://x/y", "--port", "8601"]) == 1
    error = capsys.readouterr().err
    assert error.startswith("arena: error:") and error.count("\n") == 1


def test_a_busy_port_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["dashboard", "--db", f"sqlite:///{tmp_path / 'a.db'}", "--port", str(port)])
    assert code == 1
    assert f"port {port} on 127.0.0.1 is in use" in capsys.readouterr().err


@pytest.mark.parametrize("host", ["", "  "])
def test_an_empty_host_is_refused(
    host: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Streamlit takes an empty address as every interface, while the arena used to show
    the visitor a local one: refused before anything starts."""
    assert main(["dashboard", "--db", f"sqlite:///{tmp_path / 'a.db'}", "--host", host]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--host" in error and "every interface" in error
    assert not (tmp_path / "a.db").exists()


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("nosuch.invalid", "not an address or known host name"),  # RFC 2606: never resolves
        ("192.0.2.1", "Cannot assign requested address"),  # RFC 5737: no machine's address
    ],
)
def test_a_host_it_cannot_listen_on_is_named_as_such(
    host: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    code = main(
        ["dashboard", "--db", f"sqlite:///{tmp_path / 'a.db'}", "--host", host, "--port", str(port)]
    )
    assert code == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and host in error and reason in error
    assert "in use" not in error  # what it used to say
    # Control: the port itself is free, on an address this machine has.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))


def test_it_serves_the_given_database_until_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    database = tmp_path / "given.db"
    log = tmp_path / "dashboard.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "dashboard", "--db", f"sqlite:///{database}",
             "--data", str(tmp_path / "data"), "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        assert wait_for_url(process, log) == f"http://127.0.0.1:{port}"
        assert str(database) in log.read_text()  # it says which database it serves
        assert database.exists()  # opened (and migrated) before the server started
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health") as answer:
            assert answer.read() == b"ok"
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    assert code == 0
    assert "stopping the dashboard" in log.read_text()


def test_ctrl_c_stops_it_even_when_sigint_was_ignored(tmp_path: Path) -> None:
    """A shell starts background jobs with SIGINT ignored; Ctrl-C must still stop it."""
    port = free_port()
    log = tmp_path / "dashboard.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "dashboard", "--db",
             migrated_sqlite_url(tmp_path / "a.db"), "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # noqa: PLW1509
        )  # fmt: skip
    try:
        wait_for_url(process, log)
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    assert code == 0
    with pytest.raises(OSError):  # the server child is gone too: nothing listens any more
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
