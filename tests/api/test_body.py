"""The body limit (arena/api/body.py) at the ASGI level and in the application: a declared
length over the route's limit is refused before the application runs (so before any of
the body is read), a chunked body as soon as it passes the limit (the application's own
answer dropped), a malformed length is 400; each with its control, a body under the limit
that goes through whole."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

from arena.api.body import BodyLimit
from arena.api.settings import ApiSettings
from tests.api.support import World, assert_error, upload

LIMIT = 1000


class Echo:
    """An application that reads the whole body and answers its length."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1
        size, more = 0, True
        while more:
            message = await receive()
            size += len(message.get("body", b""))
            more = message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": str(size).encode()})


def _run(
    app: Any, method: str, path: str, headers: list[tuple[bytes, bytes]], chunks: list[bytes]
) -> tuple[list[dict[str, Any]], int]:
    """Drive *app* (behind the limit) with *chunks*; what it sent, and how many chunks it
    asked for."""
    limited = BodyLimit(app, max_body=LIMIT, max_archive_body=LIMIT * 10)
    scope = {"type": "http", "method": method, "path": path, "headers": headers}
    pending = iter(chunks)
    asked = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        chunk = next(pending, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(limited(scope, receive, send))
    return sent, asked


def _status(sent: list[dict[str, Any]]) -> int:
    (start,) = [m for m in sent if m["type"] == "http.response.start"]
    return int(start["status"])


def _body(sent: list[dict[str, Any]]) -> dict[str, Any]:
    data = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    parsed: dict[str, Any] = json.loads(data)
    return parsed


def test_a_declared_length_over_the_limit_is_refused_before_the_app_runs() -> None:
    app = Echo()
    declared = [(b"content-length", str(2**30).encode())]
    sent, asked = _run(app, "POST", "/api/v1/test-matches", declared, [b"x" * 100] * 10)
    assert _status(sent) == 413 and _body(sent)["code"] == "body_too_large"
    assert (b"connection", b"close") in sent[0]["headers"]
    assert app.calls == 0 and asked == 0  # not one chunk was read
    # The submission route's limit is its own: the same length under it goes through.
    sent, _ = _run(app, "POST", "/api/v1/bots", [(b"content-length", b"5000")], [b"x" * 5000])
    assert _status(sent) == 200 and sent[1]["body"] == b"5000"


def test_a_chunked_body_is_cut_as_soon_as_it_passes_the_limit() -> None:
    app = Echo()
    sent, asked = _run(app, "POST", "/api/v1/test-matches", [], [b"x" * 300] * 1000)
    assert _status(sent) == 413 and len(sent) == 2  # ours only: the app's answer dropped
    assert asked == 4  # 1,200 bytes: the fourth chunk passed the limit
    # Control: a chunked body under the limit reaches the application whole.
    sent, _ = _run(app, "POST", "/api/v1/test-matches", [], [b"x" * 300] * 3)
    assert _status(sent) == 200 and sent[1]["body"] == b"900"


def test_a_malformed_length_is_400() -> None:
    for value in (b"12a", b"-1", b"1" * 30):
        sent, _ = _run(Echo(), "POST", "/api/v1/bots", [(b"content-length", value)], [])
        assert _status(sent) == 400 and _body(sent)["code"] == "bad_request"
    two = [(b"content-length", b"10"), (b"content-length", b"20")]
    assert _status(_run(Echo(), "POST", "/api/v1/bots", two, [])[0]) == 400


def test_in_the_application_the_refused_request_never_reaches_its_route(
    sqlite_world: World,
) -> None:
    """With one write a token, an upload refused for its size leaves it unspent: the
    route (and its token check) never ran."""
    world = sqlite_world
    settings = ApiSettings(write_burst=1, write_per_second=0.001)
    alice = world.auth("alice")
    too_big = {**alice, "Content-Type": "application/json", "Content-Length": str(70 * 1024)}
    with world.client(settings) as client:
        refused = client.post("/api/v1/test-matches", headers=too_big, content=b"x" * (70 * 1024))
        assert_error(refused, 413, "body_too_large")

        def chunks() -> Iterator[bytes]:
            for _ in range(100):
                yield b" " * 1024

        streamed = client.post(
            "/api/v1/test-matches",
            headers={**alice, "Content-Type": "application/json"},
            content=chunks(),
        )
        assert_error(streamed, 413, "body_too_large")
        # Control: the token's one write is still there, and a body under the limit is read.
        under = {"bot": "b" * 100, "opponents": ["o" * 100], "version": None}
        answer = client.post("/api/v1/test-matches", headers=alice, json=under)
        assert_error(answer, 404, "not_found")  # read, parsed, and the bot looked up
        assert_error(upload(client, alice, b"x"), 429, "rate_limited")  # now it is spent
