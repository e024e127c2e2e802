"""The dashboard's front door: an ASGI middleware that runs before Streamlit sees a request.

It applies :mod:`arena.web` to every request:

1. **Sizes** (:class:`~arena.web.limits.VisitorLimits`): an oversized target, query string
   or header set is refused (414, 431) before any page runs.
2. **Closed routes**: ``/_stcore/metrics`` (session counts, cache sizes and their growth:
   a map of the server's load for whoever wants to time an attack) answers 404.
3. **Origin and host** (:class:`~arena.web.exposure.Exposure`): a request that names an
   origin must name the dashboard's own; a websocket or a request that changes something
   (not GET, HEAD or OPTIONS) must name one; and the ``Host`` must be one the dashboard
   is served under. Everything else is refused (403), before Streamlit's own, looser
   check (any port of localhost) could accept it.
4. **Who is asking**: the headers ``X-Arena-Client`` (the client key, from the address
   uvicorn saw after the trusted proxies) and ``X-Arena-Origin`` (the origin just checked)
   are set here, replacing anything the visitor sent under those names, with
   ``X-Arena-Guard`` (this process's random token), so the pages read them from
   ``st.context.headers`` as facts (:func:`facts`), and ignore them if no guard set them.
5. **Sessions** (:class:`~arena.web.limits.SessionGate`): websockets per client and in
   all, new ones per client over time; each client's messages are paced, and a session
   that sends faster than its pace for long is ended; a refused websocket is answered
   after a delay (a tarpit), so retrying at once gains nothing.
6. **Response headers**: no framing by other sites (clickjacking the organiser's buttons),
   no MIME sniffing, no referrer to other sites.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from arena.web.clients import client_key
from arena.web.exposure import Exposure
from arena.web.limits import SessionGate, VisitorLimits

LOGGER = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

CLIENT_HEADER: Final = b"x-arena-client"
ORIGIN_HEADER: Final = b"x-arena-origin"
GUARD_HEADER: Final = b"x-arena-guard"
GUARD_TOKEN: Final = secrets.token_hex(16)
"""Set beside the facts, so a page knows they come from this process's guard and not from a
visitor of an app served without it (``streamlit run dashboard/app.py``)."""
FACT_HEADERS: Final = (CLIENT_HEADER, ORIGIN_HEADER, GUARD_HEADER)
CLOSED_PATHS: Final = ("/_stcore/metrics",)
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
SECURITY_HEADERS: Final = (
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"content-security-policy", b"frame-ancestors 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
LOG_EVERY_S: Final = 60.0
"""A refusal is logged at most once a minute per client and reason (a flood of refusals
must not become a flood of log lines)."""


class Guard:
    """ASGI middleware in front of Streamlit's app (see the module)."""

    def __init__(self, app: App, exposure: Exposure, gate: SessionGate) -> None:
        self.app = app
        self.exposure = exposure
        self.gate = gate
        self._logged: dict[tuple[str, str], float] = {}

    @property
    def limits(self) -> VisitorLimits:
        return self.gate.limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = client_key(scope["client"][0] if scope.get("client") else None)
        status, reason = self._refusal(scope)
        if reason is not None:
            self._log(client, reason)
            if kind == "websocket":
                await self._refuse_slowly(client, scope, receive, send, reason, status)
            else:
                await _refuse(scope, receive, send, status, reason)
            return
        scope = _with_facts(scope, client, _single(scope, b"origin") or "")
        if kind == "http":
            await self.app(scope, receive, _with_security_headers(send))
            return
        refused = self.gate.admit(client)
        if refused is not None:
            self._log(client, refused)
            await self._refuse_slowly(client, scope, receive, send, refused)
            return
        try:
            await self.app(scope, self._paced(receive, client), send)
        finally:
            self.gate.release(client)

    def _refusal(self, scope: Scope) -> tuple[int, str | None]:
        """The status and reason to refuse *scope* with, or ``(200, None)``."""
        path: str = scope.get("path", "")
        if any(path.rstrip("/").endswith(closed) for closed in CLOSED_PATHS):
            return 404, "not found"
        sized = self._size_refusal(scope)
        if sized is not None:
            return sized
        reason = self._origin_refusal(scope)
        return (403, reason) if reason is not None else (200, None)

    def _size_refusal(self, scope: Scope) -> tuple[int, str] | None:
        limits = self.limits
        path: str = scope.get("path", "")
        query: bytes = scope.get("query_string", b"")
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        if len(query) > limits.max_query_bytes or len(path) + len(query) > limits.max_target_bytes:
            return 414, "the address is too long"
        if (
            len(headers) > limits.max_headers
            or sum(len(k) + len(v) for k, v in headers) > limits.max_header_bytes
        ):
            return 431, "the request's headers are too large"
        return None

    def _origin_refusal(self, scope: Scope) -> str | None:
        origins = [v for k, v in scope.get("headers", []) if k == b"origin"]
        if len(origins) > 1:
            return "more than one origin"
        origin = bytes(origins[0]).decode("latin-1") if origins else None
        host = _single(scope, b"host")
        reason = self.exposure.refusal(origin, host, scope.get("scheme", "http"))
        if reason is not None:
            return reason
        needs_origin = scope["type"] == "websocket" or scope.get("method") not in SAFE_METHODS
        if needs_origin and origin is None:
            return "a request that opens a session or changes something must name its origin"
        return None

    async def _refuse_slowly(
        self,
        client: str,
        scope: Scope,
        receive: Receive,
        send: Send,
        reason: str,
        status: int = 429,
    ) -> None:
        """Refuse a websocket after ``refusal_delay_s`` (while the client has fewer than
        ``held_refusals_per_client`` waiting): a flooder that retries at once then costs
        the server a sleeping task per retry, not a stream of handshakes."""
        if self.gate.hold(client):
            try:
                await asyncio.sleep(self.limits.refusal_delay_s)
            finally:
                self.gate.unhold(client)
        await _refuse(scope, receive, send, status, reason)

    def _paced(self, receive: Receive, client: str) -> Receive:
        """*receive*, with each message of *client* handed on at its pace; a session that
        would have to wait too long is ended (Streamlit is told it disconnected, so it
        frees the session; the server closes the connection when the app returns)."""

        async def paced() -> Message:
            message = await receive()
            if message.get("type") == "websocket.receive":
                delay = self.gate.message_delay(client)
                if delay is None:
                    self._log(client, "too many messages: the session was ended")
                    return {"type": "websocket.disconnect", "code": 1008}
                if delay > 0:
                    await asyncio.sleep(delay)
            return message

        return paced

    def _log(self, client: str, reason: str) -> None:
        now = time.monotonic()
        key = (client, reason.split(":", 1)[0])
        if now - self._logged.get(key, -LOG_EVERY_S) < LOG_EVERY_S:
            return
        if len(self._logged) > 10_000:
            self._logged.clear()
        self._logged[key] = now
        LOGGER.warning("refused a request from %s: %s", client, reason)


def _single(scope: Scope, name: bytes) -> str | None:
    """The first value of header *name*, or ``None``."""
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _with_facts(scope: Scope, client: str, origin: str) -> Scope:
    """*scope* with the guard's own ``X-Arena-Client`` and ``X-Arena-Origin``, whatever the
    visitor sent under those names."""
    headers = [(k, v) for k, v in scope.get("headers", []) if k not in FACT_HEADERS]
    headers += [
        (CLIENT_HEADER, client.encode("latin-1")),
        (ORIGIN_HEADER, origin.encode("latin-1")),
        (GUARD_HEADER, GUARD_TOKEN.encode("ascii")),
    ]
    return {**scope, "headers": headers}


def _with_security_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message.get("type") == "http.response.start":
            present = {k.lower() for k, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, reason: str) -> None:
    """Answer *status* with *reason* as plain text; a websocket gets it as its handshake's
    HTTP answer where the server can send one, else a policy-violation close."""
    body = f"{reason}\n".encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        *SECURITY_HEADERS,
    ]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    await receive()  # websocket.connect
    if "websocket.http.response" in scope.get("extensions", {}):
        await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})


def facts(headers: Any) -> tuple[str | None, str | None]:
    """``(client key, origin)`` as this process's guard set them in a request's *headers*
    (a mapping such as ``st.context.headers``); ``(None, None)`` when no guard did."""
    if headers.get(GUARD_HEADER.decode()) != GUARD_TOKEN:
        return None, None
    client = headers.get(CLIENT_HEADER.decode())
    origin = headers.get(ORIGIN_HEADER.decode())
    return (
        client if isinstance(client, str) and client else None,
        origin if isinstance(origin, str) and origin else None,
    )
