"""The dashboard's front door (dashboard/guard.py) in front of a small Starlette app, with
Starlette's test client: origins, hosts, sizes, closed routes, the facts it hands the
pages, and sessions per client. The real server: tests/dashboard/test_web_exposure.py."""

from __future__ import annotations

import time

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.web.exposure import Exposure
from arena.web.limits import SessionGate, VisitorLimits
from dashboard import guard
from dashboard.guard import Guard

OWN = "http://127.0.0.1:8501"
HOST = "127.0.0.1:8501"


async def _facts(request: Request) -> JSONResponse:
    client, origin = guard.facts(request.headers)
    return JSONResponse({"client": client, "origin": origin})


async def _stream(websocket: WebSocket) -> None:
    await websocket.accept()
    client, origin = guard.facts(websocket.headers)
    await websocket.send_json({"client": client, "origin": origin})
    try:
        while True:
            await websocket.receive_text()
    except WebSocketDisconnect:
        pass


def _ws_headers(origin: str | None = OWN) -> dict[str, str]:
    """The test client sends ``Host: testserver`` on websockets unless told otherwise."""
    return {"Host": HOST, **({"Origin": origin} if origin else {})}


def _refused(client: TestClient, headers: dict[str, str], path: str = "/_stcore/stream") -> int:
    """The status a websocket handshake was refused with (1008: closed without one)."""
    try:
        with client.websocket_connect(path, headers=headers):
            pass
    except WebSocketDenialResponse as denied:
        return denied.status_code
    except WebSocketDisconnect as closed:
        return closed.code
    raise AssertionError("the websocket was accepted")


def _app(limits: VisitorLimits | None = None) -> tuple[Guard, TestClient]:
    inner = Starlette(
        routes=[
            Route("/facts", _facts, methods=["GET", "POST"]),
            Route("/_stcore/metrics", lambda _r: PlainTextResponse("sessions 3")),
            WebSocketRoute("/_stcore/stream", _stream),
        ]
    )
    gate = SessionGate(limits or VisitorLimits(refusal_delay_s=0))
    front = Guard(inner, Exposure("127.0.0.1", 8501), gate)  # type: ignore[arg-type]
    client = TestClient(front, base_url=OWN, client=("198.51.100.7", 50000))
    return front, client


def test_a_websocket_from_another_port_of_the_same_host_is_refused() -> None:
    """The finding: a page on another local port could open the dashboard's websocket
    with the organiser's cookie."""
    _, client = _app()
    for origin in ("http://127.0.0.1:9999", "http://localhost:9999", "null"):
        assert _refused(client, _ws_headers(origin)) == 403
    # Control: the dashboard's own origin is served, and told who it is.
    with client.websocket_connect("/_stcore/stream", headers=_ws_headers()) as stream:
        assert stream.receive_json() == {"client": "198.51.100.7", "origin": OWN}


def test_a_websocket_or_a_change_without_an_origin_is_refused() -> None:
    _, client = _app()
    assert _refused(client, _ws_headers(None)) == 403
    assert client.post("/facts").status_code == 403
    assert client.post("/facts", headers={"Origin": OWN}).status_code == 200  # control
    assert client.get("/facts").status_code == 200  # a plain page load names no origin


def test_a_forged_client_or_origin_header_is_replaced_by_the_facts() -> None:
    _, client = _app()
    forged = {"X-Arena-Client": "10.0.0.1", "X-Arena-Origin": "http://evil.example",
              "X-Arena-Guard": "guessed", "X-Forwarded-For": "10.0.0.2"}  # fmt: skip
    assert client.get("/facts", headers=forged).json() == {"client": "198.51.100.7", "origin": None}
    with client.websocket_connect("/_stcore/stream", headers={**_ws_headers(), **forged}) as ws:
        assert ws.receive_json() == {"client": "198.51.100.7", "origin": OWN}
    # Control: without the guard's token, a page believes none of those headers.
    assert guard.facts({"x-arena-client": "10.0.0.1", "x-arena-origin": OWN}) == (None, None)


def test_a_dns_rebinding_host_is_refused() -> None:
    _, client = _app()
    answer = client.get("/facts", headers={"Host": "rebound.example:8501"})
    assert answer.status_code == 403 and "host" in answer.text
    assert client.get("/facts", headers={"Host": "localhost:8501"}).status_code == 200  # control


def test_oversized_addresses_and_headers_are_refused_before_any_page_runs() -> None:
    _, client = _app()
    assert client.get("/facts?x=" + "a" * 10_000).status_code == 414
    assert client.get("/facts", headers={"X-Big": "b" * 40_000}).status_code == 431
    many = {f"X-H{n}": "v" for n in range(100)}
    assert client.get("/facts", headers=many).status_code == 431
    assert _refused(client, _ws_headers(), "/_stcore/stream?q=" + "a" * 10_000) == 414
    assert client.get("/facts?game=12").status_code == 200  # control


def test_the_metrics_route_is_closed() -> None:
    _, client = _app()
    for path in ("/_stcore/metrics", "/_stcore/metrics/"):
        assert client.get(path).status_code == 404
    assert client.get("/facts").status_code == 200  # control


def test_pages_may_not_be_framed_by_other_sites() -> None:
    _, client = _app()
    answer = client.get("/facts")
    assert answer.headers["x-frame-options"] == "SAMEORIGIN"
    assert answer.headers["content-security-policy"] == "frame-ancestors 'self'"


def test_one_client_gets_its_sessions_and_then_a_refusal() -> None:
    # No tarpit: its delay has a test of its own, below.
    front, client = _app(VisitorLimits(sessions_per_client=2, refusal_delay_s=0))
    with client.websocket_connect("/_stcore/stream", headers=_ws_headers()) as first:
        first.receive_json()
        with client.websocket_connect("/_stcore/stream", headers=_ws_headers()) as second:
            second.receive_json()
            assert _refused(client, _ws_headers()) == 429
            assert front.gate.open_sessions == 2
            # Control: another client is admitted meanwhile.
            other = TestClient(front, base_url=OWN, client=("198.51.100.8", 50000))
            with other.websocket_connect("/_stcore/stream", headers=_ws_headers()) as third:
                assert third.receive_json()["client"] == "198.51.100.8"
    assert front.gate.open_sessions == 0  # every closed session was released


@pytest.mark.slow
def test_a_refused_session_is_answered_only_after_the_tarpits_delay() -> None:
    """A flooder retrying at once is held back: each refusal waits (a lower bound only,
    which a busy machine cannot break)."""
    front, client = _app(VisitorLimits(sessions_per_client=1, refusal_delay_s=1))
    with client.websocket_connect("/_stcore/stream", headers=_ws_headers()) as first:
        first.receive_json()
        started = time.monotonic()
        assert _refused(client, _ws_headers()) == 429
        assert time.monotonic() - started >= 1.0
    assert front.gate.open_sessions == 0


def test_a_session_sending_far_past_its_pace_is_ended_and_others_go_on() -> None:
    """A client asking for reruns in a loop: its messages wait their turn up to a point,
    then its session ends (Streamlit is told it disconnected, and frees it)."""
    limits = VisitorLimits(messages_burst=3, messages_per_second=1, message_wait_s=0.5)
    front, client = _app(limits)
    other = TestClient(front, base_url=OWN, client=("198.51.100.8", 50000))
    with (
        client.websocket_connect("/_stcore/stream", headers=_ws_headers()) as flood,
        other.websocket_connect("/_stcore/stream", headers=_ws_headers()) as calm,
    ):
        flood.receive_json()
        calm.receive_json()
        assert front.gate.open_sessions == 2
        for n in range(10):
            flood.send_text(f"rerun {n}")
        deadline = time.monotonic() + 30
        while front.gate.open_sessions > 1:
            assert time.monotonic() < deadline, "the flooding session was never ended"
            time.sleep(0.05)
        calm.send_text("a click")  # control: the other client's session is still served
        assert front.gate.open_sessions == 1
