"""``arena api`` as a real server process on a free port.

* An oversized body is refused before it is read: a request declaring 1 GiB that keeps
  sending, and a chunked request of 200 MB, both get 413 while the server's peak memory
  (VmHWM in /proc/PID/status, read before and after) stays flat. Controls: a normal
  request works, and a body just under the limit is read (and refused for what it holds).
* ``X-Forwarded-For`` counts only from the proxies in ``ARENA_TRUSTED_PROXIES``: from
  anyone else, a caller naming new addresses stays one client for the limits.
* A port in use, a bad limit and a bad proxy list are one line each, before serving.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from arena.archive import MAX_ARCHIVE_BYTES
from arena.cli import main
from arena.storage.database import open_database
from arena.storage.tokens import create_token
from arena.storage.users import actor_of, create_user
from tests.dashboard.helpers import free_port
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
START_S = 120
MIB = 1024 * 1024


@dataclass
class Server:
    url: str
    port: int
    process: subprocess.Popen[bytes]
    token: str

    def peak_kib(self) -> int:
        """The server process's peak resident memory so far (VmHWM), in KiB."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        raise AssertionError("no VmHWM")


@contextmanager
def serve(tmp_path: Path, **env: str) -> Iterator[Server]:
    """``python -m arena.cli api`` on a free port of a fresh arena with user ``alice`` and
    her token; stopped (SIGINT, as Ctrl-C) afterwards."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    user = create_user(engine, "alice", "participant", None)
    secret, _ = create_token(engine, actor_of(user), owner="alice", name="t", scopes="read submit")
    engine.dispose()
    port = free_port()
    log = tmp_path / f"api-{port}.log"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "api", "--port", str(port), "--db", url,
             "--data", str(tmp_path / "data")],
            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env={**environment, **env},
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_S
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if httpx.get(f"{base}/api/v1/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield Server(base, port, process, secret)
    finally:
        process.send_signal(2)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _send_until_answered(port: int, head: bytes, chunk: bytes, total: int) -> bytes:
    """Send *head*, then *chunk* again and again (up to *total* bytes) until the server
    answers or drops the connection; the answer, as much of it as came before the close."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        connection.sendall(head)
        sent = 0
        while sent < total:
            readable, _, _ = select.select([connection], [], [], 0)
            if readable:
                break
            try:
                connection.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        assert sent < total, "the server read the whole body"
        connection.settimeout(30)
        # The answer may come in several segments (its head, then its body): read until
        # the server closes the connection, as it does after a 413.
        answer = b""
        while len(answer) < 65536:
            try:
                piece = connection.recv(4096)
            except (ConnectionResetError, TimeoutError):
                break
            if not piece:
                break
            answer += piece
        return answer


def test_an_oversized_body_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with serve(tmp_path) as server:
        auth = {"Authorization": f"Bearer {server.token}"}
        # Warm up the paths the refusals take, then take the baseline.
        for _ in range(3):
            assert httpx.get(f"{server.url}/api/v1/me", headers=auth).status_code == 200
            small = httpx.post(f"{server.url}/api/v1/test-matches", headers=auth, json={})
            assert small.status_code == 422
        before = server.peak_kib()
        declared = (
            b"POST /api/v1/bots HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n"
            + f"Authorization: Bearer {server.token}\r\n".encode()
            + b"Content-Type: multipart/form-data; boundary=b\r\n\r\n"
        )
        answer = _send_until_answered(server.port, declared, b"x" * (64 * 1024), 2**30)
        assert answer.startswith(b"HTTP/1.1 413"), answer
        assert b'"code": "body_too_large"' in answer
        chunked = (
            b"POST /api/v1/bots HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            + f"Authorization: Bearer {server.token}\r\n".encode()
            + b"Content-Type: multipart/form-data; boundary=b\r\n\r\n"
        )
        # A well-formed multipart start, so that the archive's bytes stream on and on.
        preamble = (
            b'--b\r\nContent-Disposition: form-data; name="archive"; filename="a.zip"\r\n'
            b"Content-Type: application/zip\r\n\r\n"
        )
        chunked += f"{len(preamble):x}\r\n".encode() + preamble + b"\r\n"
        piece = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
        answer = _send_until_answered(server.port, chunked, piece, 200 * MIB)
        assert answer.startswith(b"HTTP/1.1 413"), answer
        after = server.peak_kib()
        assert after - before < 30 * 1024, (before, after)
        # Controls: the server still answers, and a body just under the limit is read
        # (and then refused for what it holds, not for its size).
        assert httpx.get(f"{server.url}/api/v1/health").json()["status"] == "ok"
        just_under = b"x" * (MAX_ARCHIVE_BYTES + 32 * 1024)
        read = httpx.post(
            f"{server.url}/api/v1/bots",
            headers=auth,
            files={"archive": ("bot.zip", just_under)},
            timeout=120,
        )
        assert read.status_code == 422 and read.json()["code"] == "archive_refused", read.text
        assert "larger than 20 MB" in read.json()["message"]


def _health(server: Server, forwarded: str) -> int:
    answer = httpx.get(f"{server.url}/api/v1/health", headers={"X-Forwarded-For": forwarded})
    return answer.status_code


def test_forwarded_addresses_count_only_from_trusted_proxies(tmp_path: Path) -> None:
    limits = {"ARENA_API_CLIENT_BURST": "3", "ARENA_API_CLIENT_PER_SECOND": "0.001"}
    with serve(tmp_path / "untrusted", **limits) as server:
        # serve() spent one of 127.0.0.1's three on its health check.
        statuses = [_health(server, f"198.51.100.{i}") for i in range(3)]
        assert statuses == [200, 200, 429]  # one client, whatever it claims
    with serve(tmp_path / "trusted", ARENA_TRUSTED_PROXIES="127.0.0.1", **limits) as server:
        assert [_health(server, f"198.51.100.{i}") for i in range(4)] == [200] * 4
        # Control: the limit is there, per forwarded client.
        assert [_health(server, "203.0.113.9") for _ in range(4)] == [200, 200, 200, 429]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ARENA_API_BUILDS": "0"}, "$ARENA_API_BUILDS must be a whole number above 0"),
        ({"ARENA_TRUSTED_PROXIES": "0.0.0.0/0"}, "would trust every address"),
        ({"ARENA_API_READ_PER_SECOND": "fast"}, "$ARENA_API_READ_PER_SECOND must be a number"),
    ],
)
def test_a_bad_setting_stops_the_server_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: dict[str, str],
    message: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = main(["api", "--port", str(free_port()), "--data", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("arena: error: ") and message in err
    assert err.count("\n") == 1


def test_a_port_in_use_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["api", "--port", str(port), "--data", str(tmp_path)])
    err = capsys.readouterr().err
    assert (
        code == 1
        and err == f"arena: error: port {port} on 127.0.0.1 is in use; choose another with --port\n"
    )
