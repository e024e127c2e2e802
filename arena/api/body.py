"""The request body's size, limited before the API reads it.

A pure ASGI middleware, outside everything that reads a body:

* a declared ``Content-Length`` over the route's limit is answered 413 at once, and the
  application never runs, so not one byte of the body is read (the server's own read
  buffer, 64 KiB in uvicorn, is all it costs);
* a chunked body (no length declared) is counted as it is received, and the request is
  ended with 413 the moment it passes the limit: the application's read fails, whatever
  answer it would have made is dropped, and ours is sent;
* a malformed ``Content-Length`` is 400.

Every 413 closes the connection (``Connection: close``): the rest of the body is never
read, and the connection could not carry another request after it. The limit of
``POST /api/v1/bots`` is an archive's (:data:`arena.archive.MAX_ARCHIVE_BYTES` and its
multipart framing); every other route's is a JSON request's.
"""

from __future__ import annotations

import json
from typing import Final

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

ARCHIVE_ROUTE: Final = ("POST", "/api/v1/bots")


class BodyTooLarge(HTTPException):
    """Raised into the application's read when a chunked body passes the limit (an
    ``HTTPException``, so FastAPI's body parsing passes it on untouched)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


class BodyLimit:
    """Refuse bodies over *max_body* bytes (*max_archive_body* for a submission)."""

    def __init__(self, app: ASGIApp, *, max_body: int, max_archive_body: int) -> None:
        self.app = app
        self.max_body = max_body
        self.max_archive_body = max_archive_body

    def limit(self, scope: Scope) -> int:
        """The limit of the request *scope* describes."""
        route = (scope.get("method"), scope.get("path", "").rstrip("/"))
        return self.max_archive_body if route == ARCHIVE_ROUTE else self.max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope)
        declared = _content_length(scope)
        if declared == -1:
            await _answer(send, 400, "bad_request", "the Content-Length header is malformed")
            return
        if declared is not None and declared > limit:
            await _answer(send, 413, "body_too_large", str(BodyTooLarge(limit).detail))
            return
        received = 0
        exceeded = False
        started = False

        async def counted() -> Message:
            nonlocal received, exceeded
            if exceeded:
                raise BodyTooLarge(limit)
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise BodyTooLarge(limit)
            return message

        async def guarded(message: Message) -> None:
            nonlocal started
            if exceeded:
                return  # the application's own answer to a cut body: ours goes instead
            started = True
            await send(message)

        try:
            await self.app(scope, counted, guarded)
        except BodyTooLarge:
            if not exceeded:
                raise
        if exceeded and not started:
            await _answer(send, 413, "body_too_large", str(BodyTooLarge(limit).detail))


def _content_length(scope: Scope) -> int | None:
    """The declared length, ``None`` if none is declared, -1 if it is malformed."""
    values = [v for k, v in scope.get("headers", []) if k.lower() == b"content-length"]
    if not values:
        return None
    text = values[0].strip()
    if len(set(values)) > 1 or not text.isdigit() or len(text) > 18:
        return -1
    return int(text)


async def _answer(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"code": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


__all__ = ["BodyLimit", "BodyTooLarge"]
