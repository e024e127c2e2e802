"""The shipped reverse proxy (docker/nginx.conf) in front of a real ``arena dashboard``,
with Debian's nginx: the file is valid, the dashboard tells visitors apart behind it (it
trusts the proxy's ``X-Forwarded-For``, and the proxy sets that header itself), the
proxy's request limit holds one visitor back and not another, and the dashboard accepts
only its public origin.

Visitors are told apart by their loopback source address (all of 127.0.0.0/8 is this
machine).
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from arena.storage.database import open_database
from tests.dashboard.helpers import free_port
from tests.dashboard.test_web_exposure import NO_TARPIT, _rerun_message, _start, _stop
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docker" / "nginx.conf"


def _nginx() -> str:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if found is None:
        message = "the reverse-proxy test needs Debian's nginx (apt-get install nginx)"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return found


@dataclass(frozen=True)
class Proxied:
    url: str
    """The proxy's address: the dashboard's public URL."""
    direct: str
    """The dashboard's own address, behind the proxy."""


def _config(prefix: Path, listen: int, upstream: int) -> Path:
    """docker/nginx.conf with this machine's ports and a private prefix for its files."""
    text = SHIPPED.read_text()
    for old, new in (
        ("listen 8501;", f"listen 127.0.0.1:{listen};"),
        ("set $dashboard dashboard:8501;", f"set $dashboard 127.0.0.1:{upstream};"),
        ("/tmp/", f"{prefix}/"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    config = prefix / "nginx.conf"
    config.write_text(text)
    return config


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    nginx = _nginx()
    data = tmp_path_factory.mktemp("proxied")
    open_database(migrated_sqlite_url(data / "arena.db")).dispose()
    listen = free_port()
    env = {
        "ARENA_TRUSTED_PROXIES": "127.0.0.1",
        "ARENA_PUBLIC_URL": f"http://127.0.0.1:{listen}",
        "ARENA_DASHBOARD_SESSIONS_PER_CLIENT": "2",
        **NO_TARPIT,
    }
    dashboard, direct, _log = _start(data, env)
    config = _config(data, listen, int(direct.rsplit(":", 1)[1]))
    proxy = subprocess.Popen(
        [nginx, "-c", str(config), "-p", str(data), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=(data / "nginx.log").open("w"),
    )
    url = f"http://127.0.0.1:{listen}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                assert proxy.poll() is None, (data / "nginx.log").read_text()
                assert time.monotonic() < deadline, "nginx did not answer"
                time.sleep(0.2)
        yield Proxied(url, direct)
    finally:
        proxy.send_signal(signal.SIGQUIT)
        try:
            proxy.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proxy.kill()
        _stop(dashboard)


def test_the_shipped_configuration_is_valid(tmp_path: Path) -> None:
    done = subprocess.run(
        [_nginx(), "-t", "-c", str(SHIPPED), "-p", str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


def _session(
    url: str, source: str, origin: str | None = None, headers: dict[str, str] | None = None
) -> int:
    """Open a session through *url* from *source* and keep it until the test's end: 101,
    or the status that refused it."""
    try:
        stream = connect(
            url.replace("http://", "ws://") + "/_stcore/stream",
            subprotocols=["streamlit"],  # type: ignore[list-item]
            additional_headers={"Origin": origin or url, **(headers or {})},
            open_timeout=30,
            source_address=(source, 0),
        )
    except InvalidStatus as refused:
        return int(refused.response.status_code)
    _OPEN.enter_context(stream)
    stream.send(_rerun_message())
    return 101


_OPEN = ExitStack()


@pytest.fixture(autouse=True)
def _close_sessions() -> Iterator[None]:
    yield
    _OPEN.close()


def test_visitors_behind_the_proxy_are_told_apart_and_cannot_rename_themselves(
    proxied: Proxied,
) -> None:
    visitor = "127.0.0.21"
    assert [_session(proxied.url, visitor) for _ in range(2)] == [101, 101]
    forged = {"X-Forwarded-For": "198.51.100.23"}  # the proxy replaces it
    assert _session(proxied.url, visitor, headers=forged) == 429
    assert _session(proxied.url, visitor) == 429
    # Control: another visitor through the same proxy has sessions of their own.
    assert _session(proxied.url, "127.0.0.22") == 101


def test_the_proxy_limits_one_visitors_requests_and_not_anothers(proxied: Proxied) -> None:
    def health(source: str) -> int:
        opener = urllib.request.build_opener(_SourceHandler(source))
        try:
            with opener.open(proxied.url + "/_stcore/health", timeout=10) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as refused:
            return int(refused.code)

    statuses = [health("127.0.0.23") for _ in range(120)]
    assert 429 in statuses and statuses[0] == 200
    assert health("127.0.0.24") == 200  # control: another visitor


class _SourceHandler(urllib.request.HTTPHandler):
    """Connect from a given local address."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def http_open(self, req: urllib.request.Request) -> object:
        source = self.source

        class Connection(http.client.HTTPConnection):
            def __init__(self, *args: object, **kwargs: object) -> None:
                kwargs["source_address"] = (source, 0)
                super().__init__(*args, **kwargs)  # type: ignore[arg-type]

        return self.do_open(Connection, req)


def test_behind_the_proxy_only_the_public_origin_is_accepted(proxied: Proxied) -> None:
    assert _session(proxied.url, "127.0.0.25", origin=proxied.direct) == 403
    assert _session(proxied.url, "127.0.0.26") == 101  # control: the public origin
