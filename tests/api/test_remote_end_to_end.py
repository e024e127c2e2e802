"""A bot author on another shell: ``arena api`` on a real port, and ``arena remote`` (and
curl, as docs/api.md shows) as separate processes with a personal token.

The issue's end-to-end test: a sample bot submitted with ``arena remote submit`` reaches
"stored", ``arena remote test`` against ``builtin:greedy`` is played (the API starts the
queue runner itself), and ``arena remote games`` lists the test's 6 games. Then the
documented curl command, and the client's hostile cases, each with its control: a wrong
token, a server that is down, one that answers HTML, no ``--server``.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from arena.cli import main
from arena.storage.database import open_database
from arena.storage.tokens import create_token
from arena.storage.users import actor_of, create_user
from tests.dashboard.helpers import free_port
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
DOCS = ROOT / "docs" / "api.md"
DEADLINE_S = 600
"""A build, a smoke game or a test match on a busy machine: generous, never a timing."""
START_S = 120


@dataclass
class ApiServer:
    url: str
    process: subprocess.Popen[bytes]
    log: Path
    tokens: dict[str, str]
    """User name -> a read+submit token's secret."""

    def remote(self, *args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
        """``arena remote ARGS`` in a process of its own, with the token in ARENA_TOKEN."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        env["ARENA_TOKEN"] = token if token is not None else self.tokens["alice"]
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", "remote", *args, "--server", self.url],
            capture_output=True, text=True, env=env, cwd=ROOT, timeout=DEADLINE_S, check=False,
        )  # fmt: skip

    def get(self, path: str, user: str = "alice") -> httpx.Response:
        return httpx.get(
            f"{self.url}/api/v1{path}",
            headers={"Authorization": f"Bearer {self.tokens[user]}"},
            timeout=60,
        )

    def server_log(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def _wait_until_up(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/api/v1/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    process.wait()
    pytest.fail("arena api did not start:\n" + log.read_text(errors="replace")[-4000:])


@pytest.fixture(scope="module")
def api_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    """``arena api`` on a free port, its own SQLite database and data directory, with
    participants alice and bob, each holding a read+submit token."""
    folder = tmp_path_factory.mktemp("api")
    database = migrated_sqlite_url(folder / "arena.db")
    data = folder / "data"
    engine = open_database(database)
    tokens = {}
    for name in ("alice", "bob"):
        person = actor_of(create_user(engine, name, "participant", None))
        secret, _ = create_token(engine, person, owner=name, name="laptop", scopes="read,submit")
        tokens[name] = secret
    engine.dispose()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = folder / "api.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "api", "--port", str(port),
             "--db", database, "--data", str(data)],
            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
        )  # fmt: skip
    try:
        _wait_until_up(process, url, log)
        yield ApiServer(url, process, log, tokens)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _fields(done: subprocess.CompletedProcess[str]) -> str:
    return f"exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"


def test_submit_follow_and_test_a_bot_from_another_shell(
    api_server: ApiServer, tmp_path: Path
) -> None:
    submitted = api_server.remote("submit", str(SAMPLES / "random_bot"))
    assert submitted.returncode == 0, _fields(submitted) + api_server.server_log()
    last = submitted.stdout.strip().splitlines()[-1]
    assert last.startswith("stored random_bot@1.0.0 (version 1, submission "), last
    submission_id = int(last.rsplit(" ", 1)[1].rstrip(")"))
    answer = api_server.get(f"/submissions/{submission_id}").json()
    assert answer["state"] == "stored" and answer["label"] == "random_bot@1.0.0", answer

    again = api_server.remote("submit", str(SAMPLES / "random_bot"))
    assert again.returncode == 0, _fields(again)
    assert again.stdout.strip().splitlines()[-1].startswith("unchanged: random_bot@1.0.0")

    status = api_server.remote("status")
    assert status.returncode == 0 and "random_bot@1.0.0" in status.stdout, _fields(status)

    tested = api_server.remote("test", "random_bot", "--opponents", "builtin:greedy")
    assert tested.returncode == 0, _fields(tested) + api_server.server_log()
    first, *_, last = tested.stdout.strip().splitlines()
    assert first.startswith("queued test match #") and " played: 6 games" in last, first
    tournament = f"test match #{int(first.split('#')[1].split()[0])}"

    listed = api_server.remote("games", "random_bot", "--json", "--download", str(tmp_path))
    assert listed.returncode == 0, _fields(listed)
    games = json.loads(listed.stdout)["games"]
    # 1 board x 6 seatings; the smoke game is played outside any tournament.
    assert len(games) == 6, games
    assert {g["tournament"] for g in games} == {tournament}
    assert all(g["private"] for g in games)
    records = sorted(tmp_path.glob("game-*.json"))
    assert len(records) == 6
    record = json.loads(records[0].read_text())
    assert record["format"] == "arena952.game/1"

    table = api_server.remote("games", "random_bot")
    assert table.returncode == 0 and table.stdout.count(tournament) == 6, _fields(table)


def test_the_documented_curl_command_submits(api_server: ApiServer, tmp_path: Path) -> None:
    """docs/api.md's own commands, run as a script would: pack with Python's zipfile,
    upload with curl, 202 and a submission that is then stored."""
    if shutil.which("curl") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("curl is not installed: docs/api.md's commands cannot be checked")
        pytest.skip("curl is not installed")
    docs = DOCS.read_text()
    pack = "python3 -m zipfile -c bot.zip my_bot/"
    upload = (
        'curl -H "Authorization: Bearer $ARENA_TOKEN" -F archive=@bot.zip $ARENA_SERVER/api/v1/bots'
    )
    assert pack in docs and upload in docs
    bot = tmp_path / "my_bot"
    shutil.copytree(SAMPLES / "greedy_bot", bot, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, ARENA_TOKEN=api_server.tokens["bob"], ARENA_SERVER=api_server.url)
    script = f"{pack.replace('python3', sys.executable)} && {upload} -sS -w '\\n%{{http_code}}'"
    done = subprocess.run(
        ["sh", "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
        timeout=DEADLINE_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, _fields(done)
    body, status = done.stdout.rsplit("\n", 1)
    assert status == "202", _fields(done)
    accepted = json.loads(body)
    assert accepted["state"] == "running" and isinstance(accepted["submission_id"], int)
    deadline = time.monotonic() + DEADLINE_S
    while True:
        answer = api_server.get(f"/submissions/{accepted['submission_id']}", user="bob").json()
        if answer["state"] != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert answer["state"] == "stored", answer


def test_a_wrong_token_is_one_line_with_its_code(api_server: ApiServer) -> None:
    wrong = api_server.remote("whoami", token="a952_" + "A" * 43)
    assert wrong.returncode == 1, _fields(wrong)
    (line,) = wrong.stderr.strip().splitlines()
    assert line.startswith("arena: error: bad_token:") and "HTTP 401" in line
    right = api_server.remote("whoami")  # control
    assert right.returncode == 0, _fields(right)
    assert right.stdout.startswith("alice on ")
    assert api_server.tokens["alice"] not in right.stdout + right.stderr


def test_a_server_that_is_down_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    token = ["--token", "a952_" + "A" * 43]
    closed = f"http://127.0.0.1:{free_port()}"
    assert main(["remote", "whoami", "--server", closed, *token]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"arena: error: cannot connect to {closed}")


@contextlib.contextmanager
def fake_server(answers: dict[str, tuple[int, str, bytes]]) -> Iterator[str]:
    """A server on a free port that answers each path (GET or POST) with *answers*'s
    ``(status, content type, body)``, 404 JSON otherwise; its URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            default = (404, "application/json", b'{"code": "not_found", "message": "no"}')
            status, kind, body = answers.get(self.path, default)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            if 300 <= status < 400:
                self.send_header("Location", "https://elsewhere.example/api/v1/me")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self.answer()

        def do_POST(self) -> None:
            self.answer()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


TOKEN = ["--token", "a952_" + "A" * 43]


def test_an_html_answer_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A proxy's error page (or a --server that is not the API) is named as such."""
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    me = b'{"user": "alice", "token": {"name": "t", "scopes": ["read"], "expires_at": null}}'
    health = b'{"status": "ok", "database": "ok", "version": "9"}'
    answers = {"/api/v1/me": (502, "text/html", page)}
    with fake_server(answers) as server:
        assert main(["remote", "whoami", "--server", server, *TOKEN]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "answered HTTP 502 with text/html, not the arena API's JSON" in line
    answers = {  # control: the API's JSON
        "/api/v1/me": (200, "application/json", me),
        "/api/v1/health": (200, "application/json", health),
    }
    with fake_server(answers) as server:
        assert main(["remote", "whoami", "--server", server, *TOKEN]) == 0
    assert capsys.readouterr().out.startswith("alice on ")


def test_a_redirect_is_not_followed(capsys: pytest.CaptureFixture[str]) -> None:
    """The token goes to --server only: a redirect elsewhere is an error, not followed."""
    with fake_server({"/api/v1/me": (302, "text/html", b"")}) as server:
        assert main(["remote", "whoami", "--server", server, *TOKEN]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "redirects (HTTP 302) to https://elsewhere.example/api/v1/me" in line


def _submission(message: str, log: str) -> bytes:
    return json.dumps(
        {"id": 7, "bot": "evil", "version": "1", "via": "api", "state": "smoke_failed",
         "message": message, "log": log, "label": None, "submitted_at": "2026-01-01T00:00:00Z",
         "finished_at": "2026-01-01T00:00:09Z"}
    ).encode()  # fmt: skip


@pytest.mark.parametrize("hostile", [True, False], ids=["hostile", "control"])
def test_what_the_server_sends_is_shown_safely(
    hostile: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot's output quoted by the server (a failed smoke game's message and log) reaches
    the terminal with its controls as visible escapes, on both the submit path and the
    status path; the control's plain text arrives as it is."""
    message = "crashed \x1b]0;owned\x07 [red]x[/]" if hostile else "crashed [red]x[/]"
    log = "== smoke game\n\x1b[2J\nstored evil@1 (version 1)" if hostile else "== smoke game\nok"
    body = _submission(message, log)
    accepted = b'{"submission_id": 7, "state": "running", "url": "/api/v1/submissions/7"}'
    answers = {
        "/api/v1/bots": (202, "application/json", accepted),
        "/api/v1/submissions/7": (200, "application/json", body),
    }
    with fake_server(answers) as server:
        assert (
            main(["remote", "submit", str(SAMPLES / "random_bot"), "--server", server, *TOKEN]) == 1
        )
        submit = capsys.readouterr()
        assert main(["remote", "status", "--submission", "7", "--server", server, *TOKEN]) == 0
        status = capsys.readouterr()
    shown = submit.out + submit.err + status.out + status.err
    assert submit.err.strip().splitlines()[-1].startswith("arena: error: smoke_failed: crashed")
    assert "[red]x[/]" in shown
    if hostile:
        assert "\x1b" not in shown and "\x07" not in shown
        assert "\\x1b]0;owned\\x07" in shown and "\\x1b[2J" in shown
        # The log's forged line never starts a line of its own.
        assert not any(line.startswith("stored") for line in shown.splitlines())
    else:
        assert "crashed [red]x[/]" in submit.err and "\n  | ok" in status.out


def test_no_server_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    monkeypatch.setenv("ARENA_TOKEN", "a952_" + "A" * 43)
    assert main(["remote", "whoami"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("arena: error: no server: give --server URL")
    assert "a952_" not in line
    # Control: with the server given, the same command gets as far as the network.
    monkeypatch.setenv("ARENA_SERVER", f"http://127.0.0.1:{free_port()}")
    assert main(["remote", "whoami"]) == 1
