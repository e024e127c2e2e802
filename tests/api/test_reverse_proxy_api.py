"""The shipped proxy (docker/nginx.conf, Debian's nginx) in front of a real ``arena api``
at ``/api/``: the API tells callers apart by the address the proxy saw (a forged
``X-Forwarded-For`` is replaced), bodies pass through unbuffered, and what the proxy
refuses itself (a body over its limit, an API that is down) is JSON ``{code, message}``
too. Callers are told apart by their loopback source address."""

from __future__ import annotations

import http.client
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.test_server_process import Server, serve
from tests.dashboard.helpers import free_port
from tests.dashboard.test_reverse_proxy import SHIPPED, _nginx


def _config(prefix: Path, listen: int, api: int) -> Path:
    text = SHIPPED.read_text()
    for old, new in (
        ("listen 8501;", f"listen 127.0.0.1:{listen};"),
        ("set $api api:8000;", f"set $api 127.0.0.1:{api};"),
        ("set $dashboard dashboard:8501;", f"set $dashboard 127.0.0.1:{free_port()};"),
        ("/tmp/", f"{prefix}/"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    config = prefix / "nginx.conf"
    config.write_text(text)
    return config


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Server]]:
    nginx = _nginx()
    data = tmp_path_factory.mktemp("api_proxy")
    limits = {"ARENA_API_CLIENT_BURST": "3", "ARENA_API_CLIENT_PER_SECOND": "0.001",
              "ARENA_TRUSTED_PROXIES": "127.0.0.1"}  # fmt: skip
    with serve(data / "arena", **limits) as server:
        listen = free_port()
        config = _config(data, listen, server.port)
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
                    httpx.get(f"{url}/api/v1/openapi.json", timeout=2)
                    break
                except httpx.HTTPError:
                    assert proxy.poll() is None, (data / "nginx.log").read_text()
                    assert time.monotonic() < deadline, "nginx did not answer"
                    time.sleep(0.2)
            yield url, server
        finally:
            proxy.send_signal(signal.SIGQUIT)
            try:
                proxy.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proxy.kill()


def _from(source: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=30)


def test_callers_behind_the_proxy_are_told_apart_and_cannot_rename_themselves(
    proxied: tuple[str, Server],
) -> None:
    url, _ = proxied
    forged = {"X-Forwarded-For": "198.51.100.7"}
    with _from("127.0.0.31") as caller:
        statuses = [caller.get(f"{url}/api/v1/health", headers=forged).status_code
                    for _ in range(4)]  # fmt: skip
    assert statuses == [200, 200, 200, 429]
    # Control: another caller through the same proxy has a bucket of its own.
    with _from("127.0.0.32") as other:
        assert other.get(f"{url}/api/v1/health").status_code == 200


def test_bodies_pass_through_and_the_proxys_refusals_are_json(
    proxied: tuple[str, Server],
) -> None:
    url, server = proxied
    auth = {"Authorization": f"Bearer {server.token}"}
    with _from("127.0.0.33") as caller:
        read = caller.post(
            f"{url}/api/v1/bots", headers=auth, files={"archive": ("a.zip", b"x" * 4096)}
        )
        assert read.status_code == 422 and read.json()["code"] == "archive_refused"
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(
        host, int(port), timeout=30, source_address=("127.0.0.34", 0)
    )
    connection.putrequest("POST", "/api/v1/bots")
    connection.putheader("Content-Length", str(30 * 1024 * 1024))
    connection.putheader("Content-Type", "multipart/form-data; boundary=b")
    connection.endheaders()
    answer = connection.getresponse()
    assert answer.status == 413
    assert answer.getheader("Content-Type") == "application/json"
    assert b'"code": "body_too_large"' in answer.read()
    connection.close()
