"""The dashboard's web exposure, attacked on the real server (``arena dashboard``, uvicorn):

* a page served from another local port, in the organiser's own browser (so with the
  organiser's login cookie), opens the dashboard's websocket and reads what it sends:
  it must get no logged-in view (the control: the same script on the dashboard's own page
  reads "Logged in as");
* ``X-Forwarded-For`` from a peer that is not a trusted proxy changes nothing about who the
  visitor is (the control: from a trusted proxy it does);
* a flood of sessions from one client is cut at its limit while another client is served;
* ``/_stcore/metrics`` is closed; an oversized query string is refused.

The websocket speaks Streamlit's own protocol: a ``BackMsg`` asking for a script run, then
the ``ForwardMsg`` frames of the page, in which the sidebar's text can be read.
"""

from __future__ import annotations

import base64
import http.server
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from arena import storage
from arena.accounts import admin, logins
from arena.storage.database import open_database
from tests.dashboard.helpers import free_port, wait_for_url
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
NO_TARPIT = {"ARENA_DASHBOARD_REFUSAL_DELAY_S": "0"}
"""Refusals answered at once: these tests count them, one after the other (the delay
itself: tests/web/test_guard.py)."""


@dataclass(frozen=True)
class Dashboard:
    url: str
    database: str
    password: str
    """The organiser ``olga``'s password."""


def _start(
    data: Path, extra_env: dict[str, str], database: str | None = None
) -> tuple[subprocess.Popen[bytes], str, Path]:
    database = database or migrated_sqlite_url(data / "arena.db")
    port = free_port()
    log = data / f"dashboard-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "arena.cli", "dashboard"),
                *("--db", database, "--data", str(data / "data"), "--port", str(port)),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, **extra_env},
        )
    return process, wait_for_url(process, log), log


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dashboard]:
    """A fresh arena with the organiser ``olga``, served with the default settings and a
    small session limit (3 per client)."""
    data = tmp_path_factory.mktemp("exposure")
    database = migrated_sqlite_url(data / "arena.db")
    engine = open_database(database)
    password = admin.add_user(engine, storage.actor(engine), "olga", "organiser")
    engine.dispose()
    process, url, _log = _start(data, {"ARENA_DASHBOARD_SESSIONS_PER_CLIENT": "3", **NO_TARPIT})
    try:
        yield Dashboard(url, database, password)
    finally:
        _stop(process)


def _rerun_message() -> bytes:
    message = BackMsg()
    message.rerun_script.query_string = ""
    return message.SerializeToString()


def _page_text(
    url: str,
    origin: str | None,
    headers: dict[str, str] | None = None,
    source: str | None = None,
    seconds: float = 30.0,
) -> str:
    """Open a session on *url*'s websocket as *origin* and return the text of the page it
    draws (until the script run finishes)."""
    sent = {**({"Origin": origin} if origin else {}), **(headers or {})}
    extra: dict[str, Any] = {"source_address": (source, 0)} if source else {}
    frames: list[str] = []
    with connect(
        url.replace("http://", "ws://") + "/_stcore/stream",
        subprotocols=["streamlit"],  # type: ignore[list-item]
        additional_headers=sent,
        open_timeout=30,
        **extra,
    ) as stream:
        stream.send(_rerun_message())
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            frame = ForwardMsg()
            frame.ParseFromString(stream.recv(timeout=deadline - time.monotonic()))
            frames.append(str(frame))
            if frame.WhichOneof("type") == "script_finished":
                break
    return "\n".join(frames)


def _status(url: str, origin: str | None, **kwargs: Any) -> int:
    """The HTTP status that refused a websocket, or 101 if it opened."""
    try:
        _page_text(url, origin, seconds=5.0, **kwargs)
    except InvalidStatus as refused:
        return int(refused.response.status_code)
    return 101


# ------------------------------------------------------------- another local page

ATTACK = """
window.attack = (target, frame, until) => new Promise((resolve) => {
  const bytes = Uint8Array.from(atob(frame), (c) => c.charCodeAt(0));
  const seen = [];
  let opened = false;
  const done = () => resolve({opened, text: seen.join("\\n")});
  const ws = new WebSocket(target, ["streamlit"]);
  ws.binaryType = "arraybuffer";
  ws.onopen = () => { opened = true; ws.send(bytes); };
  ws.onmessage = (e) => {
    seen.push(new TextDecoder().decode(e.data));
    if (seen[seen.length - 1].includes(until)) { ws.close(); done(); }
  };
  ws.onclose = done;
  setTimeout(() => { ws.close(); done(); }, 15000);
});
"""
UNTIL = "Logged in as"
"""What ends an attack's reading early: the logged-in view it must not get (or, on the
dashboard's own page, the control's). A stream that stays open otherwise ends only at the
15 s limit: the control used to sit those 15 s out after it had read the view."""


@pytest.fixture
def attacker_page() -> Iterator[str]:
    """A page on another port of 127.0.0.1 that defines ``window.attack``."""
    body = f"<html><body><script>{ATTACK}</script>attacker</body></html>".encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _attack(page: Any, dashboard_url: str) -> dict[str, Any]:
    target = dashboard_url.replace("http://", "ws://") + "/_stcore/stream"
    frame = base64.b64encode(_rerun_message()).decode()
    result: dict[str, Any] = page.evaluate(
        "([target, frame, until]) => window.attack(target, frame, until)", [target, frame, UNTIL]
    )
    return result


def test_a_page_on_another_local_port_gets_no_logged_in_view(
    dashboard: Dashboard, page: Any, attacker_page: str
) -> None:
    """The finding: the organiser's cookie went along with another local page's websocket,
    which then read "Logged in as ... (organiser)" and the database path."""
    page.goto(dashboard.url)
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("textbox", name="User name").fill("olga")
    sidebar.get_by_role("textbox", name="Password").fill(dashboard.password)
    sidebar.get_by_role("button", name="Log in").click()
    page.get_by_text("Logged in as olga (organiser)").wait_for()
    deadline = time.monotonic() + 30
    while not any(c["name"] == "arena952_session" for c in page.context.cookies()):
        assert time.monotonic() < deadline, "the login cookie was never set"
        time.sleep(0.1)

    page.goto(attacker_page)  # same browser, so the cookie of 127.0.0.1 goes along
    stolen = _attack(page, dashboard.url)
    assert not stolen["opened"]
    assert "Logged in as" not in stolen["text"] and "database" not in stolen["text"]

    # Control: the same script on the dashboard's own page reads the organiser's view.
    page.goto(dashboard.url)
    page.get_by_text("Logged in as olga (organiser)").wait_for()
    page.add_script_tag(content=ATTACK)
    own = _attack(page, dashboard.url)
    assert own["opened"] and "Logged in as" in own["text"] and "olga" in own["text"]


def test_a_session_cookie_counts_only_on_the_origin_it_was_made_on(dashboard: Dashboard) -> None:
    """localhost and 127.0.0.1 are both this dashboard's, but a login made on one is not
    valid on the other (a cookie carried there some other way opens nothing)."""
    engine = open_database(dashboard.database)
    own = dashboard.url
    try:
        session = logins.log_in(
            engine, "olga", dashboard.password, logins.Visitor("127.0.0.1", origin=own)
        )
    finally:
        engine.dispose()
    cookie = {"Cookie": f"arena952_session={session.token}"}
    port = own.rsplit(":", 1)[1]
    other = f"http://localhost:{port}"
    assert "Logged in as" not in _page_text(own, other, cookie, source="127.0.0.11")
    assert "Logged in as" in _page_text(own, own, cookie, source="127.0.0.11")  # control


def test_websockets_and_changes_from_other_origins_are_refused(dashboard: Dashboard) -> None:
    port = dashboard.url.rsplit(":", 1)[1]
    for origin in ("http://127.0.0.1:1", f"http://evil.example:{port}", "null", None):
        assert _status(dashboard.url, origin, source="127.0.0.12") == 403, origin
    assert _status(dashboard.url, dashboard.url, source="127.0.0.12") == 101  # control
    request = urllib.request.Request(
        dashboard.url + "/arena/session",
        data=b"ticket",
        method="POST",
        headers={"Origin": "http://127.0.0.1:1", "X-Requested-With": "arena952"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 403 and b"origin" in refused.value.read()


# ------------------------------------------------------------ forwarded headers


def test_forwarded_for_from_an_untrusted_peer_does_not_change_the_visitor(
    dashboard: Dashboard,
) -> None:
    """The finding: a visitor refused at its per-client limit got through by adding
    ``X-Forwarded-For``. Here the limit is 3 sessions; the 4th is refused however it names
    itself."""
    forged = {"X-Forwarded-For": "198.51.100.23", "X-Real-IP": "198.51.100.24"}
    visitor = "127.0.0.13"  # each test its own loopback address: its own limits
    with ExitStack() as stack:
        for _ in range(3):
            _open_stream(stack, dashboard.url, visitor)
        assert _status(dashboard.url, dashboard.url, headers=forged, source=visitor) == 429
        assert _status(dashboard.url, dashboard.url, source=visitor) == 429
        # Control: another address (all of 127.0.0.0/8 is loopback) is another visitor.
        assert _status(dashboard.url, dashboard.url, source="127.0.0.14") == 101


def _open_stream(stack: ExitStack, url: str, source: str) -> None:
    """Open a session from *source* that stays open until *stack* closes."""
    stream = stack.enter_context(
        connect(
            url.replace("http://", "ws://") + "/_stcore/stream",
            subprotocols=["streamlit"],  # type: ignore[list-item]
            additional_headers={"Origin": url},
            open_timeout=30,
            source_address=(source, 0),
        )
    )
    stream.send(_rerun_message())


def test_forwarded_for_from_a_trusted_proxy_names_the_visitor(
    tmp_path: Path,
) -> None:
    """With ``ARENA_TRUSTED_PROXIES=127.0.0.1`` this machine is a proxy: its
    ``X-Forwarded-For`` names the visitor, who gets their own sessions; the proxy's own
    requests without it still count as the proxy's."""
    engine = open_database(migrated_sqlite_url(tmp_path / "arena.db"))
    engine.dispose()
    env = {"ARENA_TRUSTED_PROXIES": "127.0.0.1", "ARENA_DASHBOARD_SESSIONS_PER_CLIENT": "1"}
    env |= NO_TARPIT
    process, url, _log = _start(tmp_path, env)
    try:
        with ExitStack() as stack:
            _open_stream(stack, url, "127.0.0.1")
            assert _status(url, url) == 429  # the proxy's own second session
            assert _status(url, url, headers={"X-Forwarded-For": "198.51.100.23"}) == 101
            # The proxy appends the peer it saw; the rightmost address that is not a
            # trusted proxy is the visitor, whatever the visitor wrote before it.
            with ExitStack() as inner:
                chained = {"X-Forwarded-For": "198.51.100.99, 198.51.100.24"}
                assert _status(url, url, headers=chained) == 101
                inner.enter_context(_held(url, chained))
                assert (
                    _status(url, url, headers={"X-Forwarded-For": "1.2.3.4, 198.51.100.24"}) == 429
                )
    finally:
        _stop(process)


@contextmanager
def _held(url: str, headers: dict[str, str]) -> Iterator[None]:
    """A session held open with *headers* (from this machine) while the block runs."""
    with connect(
        url.replace("http://", "ws://") + "/_stcore/stream",
        subprotocols=["streamlit"],  # type: ignore[list-item]
        additional_headers={"Origin": url, **headers},
        open_timeout=30,
    ) as stream:
        stream.send(_rerun_message())
        yield


def test_the_server_refuses_to_start_when_uvicorn_would_trust_other_proxies(
    tmp_path: Path,
) -> None:
    """``streamlit run dashboard/server.py`` without ``arena dashboard`` leaves uvicorn
    trusting loopback's forwarded headers: the server refuses to serve."""
    env = {**os.environ, "ARENA_DB": migrated_sqlite_url(tmp_path / "arena.db")}
    env.pop("FORWARDED_ALLOW_IPS", None)
    port = str(free_port())
    run = subprocess.run(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "server.py"),
         "--server.headless", "true", "--server.port", port,
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        check=False, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
    )  # fmt: skip
    assert run.returncode != 0
    assert "uvicorn trusts forwarded headers" in run.stdout + run.stderr


# ------------------------------------------------------------------ per-visitor cost


def test_a_session_flood_from_one_client_stops_at_its_limit_and_others_are_served(
    dashboard: Dashboard,
) -> None:
    opened = refused = 0
    with ExitStack() as stack:
        for _ in range(20):
            try:
                _open_stream(stack, dashboard.url, "127.0.0.15")
                opened += 1
            except InvalidStatus as answer:
                assert answer.response.status_code == 429
                refused += 1
        assert (opened, refused) == (3, 17)
        other = _page_text(dashboard.url, dashboard.url, source="127.0.0.16")
        assert "Viewing as a spectator" in other  # control: another client is served


def test_metrics_are_closed_and_oversized_requests_refused(dashboard: Dashboard) -> None:
    for path, status in (("/_stcore/metrics", 404), ("/?q=" + "a" * 10_000, 414)):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(dashboard.url + path, timeout=10)
        assert refused.value.code == status
    with urllib.request.urlopen(dashboard.url + "/_stcore/health", timeout=10) as answer:
        assert answer.status == 200  # control
