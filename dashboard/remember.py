"""Keep a login across page reloads: the arena session token in an HttpOnly cookie.

A Streamlit session lives as long as its browser tab's connection, so a reload used to log
the visitor out. The token cannot simply be written into a cookie from the page: a script
that can write it can read it, and so can any script injected into the page. Instead:

1. After a login the page gets a **ticket**: 256 random bits, valid once, for
   :data:`TICKET_SECONDS`, kept only in this server process's memory.
2. A small script in the page posts the ticket to ``/arena/session`` (a route of the
   server, :func:`routes`), which answers with the session token in a cookie that is
   ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other site's page or
   connection carries it) and ``Secure`` over HTTPS, for the longest a session may last.
3. A new Streamlit session (a reload, a second tab) reads the cookie from its connection
   (``st.context.cookies``) and checks the token like any other: it counts only while the
   arena session is alive, so logout, idle and age limits, a disabled user and a new
   password end it wherever its cookie is.

Both routes refuse a request without the ``X-Requested-With`` header the page's script
sends: another site's form cannot set it, and its scripts cannot send it without a CORS
permission this server never grants.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

COOKIE: Final = "arena952_session"
"""The cookie's name."""
SESSION_PATH: Final = "/arena/session"
"""POST a ticket: the cookie is set."""
FORGET_PATH: Final = "/arena/session/forget"
"""POST: the cookie is cleared."""
HEADER: Final = "X-Requested-With"
HEADER_VALUE: Final = "arena952"
TICKET_SECONDS: Final = 60.0
"""How long a ticket waits for the page's script to redeem it."""
MAX_TICKETS: Final = 10_000
"""Tickets kept at most (each needs a successful login, which is rate-limited)."""
MAX_BODY: Final = 128
"""Bytes of a request body read at most: a ticket is 43 characters."""


class Tickets:
    """One-time tickets for session tokens, in memory (thread-safe: Streamlit's script
    threads issue them, the server's event loop redeems them)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tickets: dict[str, tuple[str, float]] = {}

    def issue(self, token: str) -> str:
        """A new ticket for *token*."""
        ticket = secrets.token_urlsafe(32)
        with self._lock:
            self._drop_expired()
            if len(self._tickets) >= MAX_TICKETS:
                self._tickets.pop(next(iter(self._tickets)))  # the oldest
            self._tickets[ticket] = (token, self._clock() + TICKET_SECONDS)
        return ticket

    def redeem(self, ticket: str) -> str | None:
        """The token of *ticket*, once; ``None`` for an unknown, used or expired ticket."""
        with self._lock:
            found = self._tickets.pop(ticket, None)
        if found is None:
            return None
        token, expires = found
        return token if self._clock() < expires else None

    def _drop_expired(self) -> None:
        now = self._clock()
        for ticket in [t for t, (_, expires) in self._tickets.items() if expires <= now]:
            del self._tickets[ticket]


TICKETS: Final = Tickets()
"""This server process's tickets (the page and the routes run in the same process)."""


def routes(max_age_seconds: int, tickets: Tickets = TICKETS) -> list[Route]:
    """The two routes of the dashboard's server; the cookie lasts *max_age_seconds* (the
    longest session, ``LoginPolicy.lifetime``), though the arena session may end sooner."""

    async def set_cookie(request: Request) -> Response:
        if request.headers.get(HEADER) != HEADER_VALUE:
            return Response("missing header", status_code=403)
        body = await _read_at_most(request, MAX_BODY)
        if body is None:
            return Response("ticket too long", status_code=413)
        token = tickets.redeem(body.decode("ascii", "replace"))
        if token is None:
            return Response("unknown or used ticket", status_code=403)
        response = Response(status_code=204)
        response.set_cookie(COOKIE, token, max_age=max_age_seconds, path="/", httponly=True,
                            samesite="strict", secure=request.url.scheme == "https")  # fmt: skip
        return response

    async def forget(request: Request) -> Response:
        if request.headers.get(HEADER) != HEADER_VALUE:
            return Response("missing header", status_code=403)
        response = Response(status_code=204)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict",
                               secure=request.url.scheme == "https")  # fmt: skip
        return response

    return [
        Route(SESSION_PATH, set_cookie, methods=["POST"]),
        Route(FORGET_PATH, forget, methods=["POST"]),
    ]


async def _read_at_most(request: Request, limit: int) -> bytes | None:
    """The request's body, or ``None`` as soon as it is longer than *limit* bytes (declared
    or sent): a visitor cannot make the server hold a large body in memory."""
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > limit:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return body


def post_script(path: str, body: str = "") -> str:
    """The page's script that posts *body* to *path* of this server (run in an ``st.iframe``
    frame, which has the page's origin)."""
    return (
        f"<script>fetch({_js(path)}, {{method: 'POST', credentials: 'same-origin', "
        f"headers: {{{_js(HEADER)}: {_js(HEADER_VALUE)}, 'Content-Type': 'text/plain'}}, "
        f"body: {_js(body)}}});</script>"
    )


def _js(text: str) -> str:
    """*text* as a JavaScript string literal that cannot end the ``<script>`` element."""
    return json.dumps(text).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
