"""Keep a login across page reloads (the session token in an HttpOnly cookie), and let the
browser prove later that it has logged in before (its device token, in another).

A Streamlit session lives as long as its browser tab's connection, so a reload used to log
the visitor out. The token cannot simply be written into a cookie from the page: a script
that can write it can read it, and so can any script injected into the page. Instead:

1. After a login the page gets a **ticket**: 256 random bits, valid once, for
   :data:`TICKET_SECONDS`, kept only in this server process's memory.
2. A small script in the page posts the ticket to ``/arena/session`` (a route of the
   server, :func:`routes`), which answers with the session token in a cookie that is
   ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other site's page or
   connection carries it), for the longest a session may last; over HTTPS it is also
   ``Secure`` and named with the ``__Host-`` prefix, which browsers keep from being set
   by any other host (a sibling subdomain cannot plant one) or over plain HTTP. The same
   answer sets the **device cookie** (same attributes, a year long): the token that makes
   this browser's later logins trusted by the throttle (:mod:`arena.accounts.throttle`).
3. A new Streamlit session (a reload, a second tab) reads the cookie from its connection
   (``st.context.cookies``) and checks the token like any other: it counts only while the
   arena session is alive, so logout, idle and age limits, a disabled user and a new
   password end it wherever its cookie is.

Both routes refuse a request without the ``X-Requested-With`` header the page's script
sends: another site's form cannot set it, and its scripts cannot send it without a CORS
permission this server never grants. Before them, :mod:`dashboard.guard` refuses any
request whose origin is not the dashboard's own. A session found through its cookie also
counts only from the origin it was made on (:func:`arena.accounts.logins.current`).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

COOKIE: Final = "arena952_session"
"""The session cookie's name over plain HTTP (over HTTPS: :data:`SECURE_PREFIX` + it)."""
DEVICE_COOKIE: Final = "arena952_device"
"""The device cookie's name over plain HTTP."""
SECURE_PREFIX: Final = "__Host-"
"""Browsers accept a cookie named so only with ``Secure``, ``Path=/`` and no ``Domain``,
set over HTTPS by the exact host: no other host (a sibling subdomain) can plant it."""
DEVICE_SECONDS: Final = 365 * 24 * 3600
"""How long a browser keeps its device cookie."""
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


@dataclass(frozen=True)
class Tokens:
    """What a ticket stands for: a session token and, after a login, a device token."""

    session: str
    device: str | None = None


def cookie_name(name: str, secure: bool) -> str:
    """*name* as the cookie is called over HTTPS (*secure*) or plain HTTP."""
    return SECURE_PREFIX + name if secure else name


def is_secure_origin(origin: str | None) -> bool:
    """Was the page served over HTTPS (its origin, as :mod:`dashboard.guard` checked it)?"""
    return bool(origin) and str(origin).startswith("https://")


class Tickets:
    """One-time tickets for session tokens, in memory (thread-safe: Streamlit's script
    threads issue them, the server's event loop redeems them)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        # Oldest first: every ticket lives TICKET_SECONDS on a monotonic clock, so the
        # order of issue is also the order of expiry, and both ends are O(1).
        self._tickets: OrderedDict[str, tuple[Tokens, float]] = OrderedDict()

    def issue(self, token: str, device: str | None = None) -> str:
        """A new ticket for session *token* (and the browser's *device* token)."""
        ticket = secrets.token_urlsafe(32)
        with self._lock:
            self._drop_expired()
            if len(self._tickets) >= MAX_TICKETS:
                self._tickets.popitem(last=False)  # the oldest
            self._tickets[ticket] = (Tokens(token, device), self._clock() + TICKET_SECONDS)
        return ticket

    def redeem(self, ticket: str) -> Tokens | None:
        """The tokens of *ticket*, once; ``None`` for an unknown, used or expired ticket."""
        with self._lock:
            found = self._tickets.pop(ticket, None)
        if found is None:
            return None
        tokens, expires = found
        return tokens if self._clock() < expires else None

    def _drop_expired(self) -> None:
        """Drop the expired tickets, oldest first; stop at the first live one (a scan of
        all of them at every issue made a full store cost 10,000 steps a login)."""
        now = self._clock()
        while self._tickets:
            _, (_, expires) = next(iter(self._tickets.items()))
            if expires > now:
                return
            self._tickets.popitem(last=False)


TICKETS: Final = Tickets()
"""This server process's tickets (the page and the routes run in the same process)."""


def routes(max_age_seconds: int, tickets: Tickets = TICKETS) -> list[Route]:
    """The two routes of the dashboard's server; the session cookie lasts *max_age_seconds*
    (the longest session, ``LoginPolicy.lifetime``), though the arena session may end
    sooner; the device cookie lasts :data:`DEVICE_SECONDS`."""

    async def set_cookie(request: Request) -> Response:
        if request.headers.get(HEADER) != HEADER_VALUE:
            return Response("missing header", status_code=403)
        body = await _read_at_most(request, MAX_BODY)
        if body is None:
            return Response("ticket too long", status_code=413)
        tokens = tickets.redeem(body.decode("ascii", "replace"))
        if tokens is None:
            return Response("unknown or used ticket", status_code=403)
        secure = request.url.scheme == "https"
        response = Response(status_code=204)
        _set(response, cookie_name(COOKIE, secure), tokens.session, max_age_seconds, secure)
        if tokens.device is not None:
            _set(
                response, cookie_name(DEVICE_COOKIE, secure), tokens.device, DEVICE_SECONDS, secure
            )
        return response

    async def forget(request: Request) -> Response:
        if request.headers.get(HEADER) != HEADER_VALUE:
            return Response("missing header", status_code=403)
        secure = request.url.scheme == "https"
        response = Response(status_code=204)
        response.delete_cookie(cookie_name(COOKIE, secure), path="/", httponly=True,
                               samesite="strict", secure=secure)  # fmt: skip
        return response

    return [
        Route(SESSION_PATH, set_cookie, methods=["POST"]),
        Route(FORGET_PATH, forget, methods=["POST"]),
    ]


def _set(response: Response, name: str, value: str, max_age: int, secure: bool) -> None:
    response.set_cookie(name, value, max_age=max_age, path="/", httponly=True,
                        samesite="strict", secure=secure)  # fmt: skip


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
