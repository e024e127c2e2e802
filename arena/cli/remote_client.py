"""The HTTP side of ``arena remote``: one client for the arena's API v1 (docs/api.md).

Every way a request can fail becomes one :class:`RemoteError` line (exit status 1): the
server's own errors as ``CODE: message (HTTP status)``, and what the network or a proxy
in between does as a plain sentence: a connection refused, a timeout, a TLS failure, an
answer that is not the API's JSON (a proxy's HTML error page, a wrong ``--server``), a
redirect (followed never: the token would go wherever it points). The token is sent in
the ``Authorization`` header and appears in no message.
"""

from __future__ import annotations

import ipaddress
import re
import ssl
import time
from collections.abc import Mapping
from typing import Any, Final

import click
import httpx

from arena import __version__

API: Final = "/api/v1"
TIMEOUT: Final = httpx.Timeout(connect=15.0, read=60.0, write=300.0, pool=15.0)
"""Reads answer in well under a second; the write covers a 20 MiB upload on a slow line."""
USER_AGENT: Final = f"arena-remote/{__version__} (952 Arena; httpx/{httpx.__version__})"
MAX_WAIT_S: Final = 60.0
"""The longest a ``Retry-After`` is waited out before asking again."""
PATIENCE: Final = 5
"""How many answers of 429 or 503 a patient request waits out before giving up."""
_CODE: Final = re.compile(r"[a-z_]{1,40}")


class RemoteError(click.ClickException):
    """A request failed; the message is one line (status 1, like a refused submission)."""


class ServerUrl(click.ParamType[str]):
    """The API server's address, ``http(s)://HOST[:PORT][/PREFIX]``, without a trailing
    slash. No user name or password in it (they would be sent and logged), no query."""

    name = "URL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value).strip()
        try:
            url = httpx.URL(text)
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            self.fail(f"{text!r} is not a URL: {exc}", param, ctx)
        if url.scheme not in ("http", "https") or not url.host:
            self.fail(f"{text!r}: give http(s)://HOST[:PORT] (for example {EXAMPLE})", param, ctx)
        if url.userinfo:
            self.fail("no user name or password in the URL: the token says who you are", param, ctx)
        if url.query or url.fragment:
            self.fail(f"{text!r}: no query or fragment in the server's address", param, ctx)
        path = url.path.rstrip("/")
        if path.endswith(API):  # the API's own base given: take it as the server's
            path = path[: -len(API)]
        return str(url.copy_with(path=path or "/")).rstrip("/")


EXAMPLE: Final = "https://arena.example.org"


def is_loopback(server: str) -> bool:
    """True if *server* names this machine (plain HTTP is fine there)."""
    host = httpx.URL(server).host
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def clean_token(token: str) -> str:
    """*token* without surrounding whitespace (``$(cat token)`` keeps a newline), or a
    usage error that never shows it."""
    secret = token.strip()
    if not secret:
        raise click.UsageError("the token is empty: set ARENA_TOKEN (or --token)")
    if not secret.isascii() or not secret.isprintable() or any(c.isspace() for c in secret):
        raise click.UsageError("the token holds characters no token has (copy it again)")
    return secret


class ApiClient:
    """Requests to one arena's API v1 with one token."""

    def __init__(self, server: str, token: str, transport: httpx.BaseTransport | None = None):
        self.server = server
        self.http = httpx.Client(
            base_url=server + API,
            headers={
                "Authorization": f"Bearer {token}",
                "User-Agent": USER_AGENT,
                "Accept": "application/json",
            },
            timeout=TIMEOUT,
            follow_redirects=False,
            transport=transport,
        )

    def __enter__(self) -> ApiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """The JSON of ``GET path``; 429 and 503 are waited out (reads are safe to repeat)."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        return self._send("GET", path, patient=True, params=query)

    def post_json(self, path: str, body: Mapping[str, Any]) -> Any:
        """The JSON of ``POST path`` with a JSON *body* (never repeated: it queues work)."""
        return self._send("POST", path, patient=False, json=dict(body))

    def post_archive(self, path: str, filename: str, data: bytes) -> Any:
        """The JSON of ``POST path`` with *data* as the multipart file field ``archive``."""
        files = {"archive": (filename, data, "application/zip")}
        return self._send("POST", path, patient=False, files=files)

    def _send(self, method: str, path: str, *, patient: bool, **options: Any) -> Any:
        for attempt in range(PATIENCE + 1):
            response = self._request(method, path, **options)
            if response.status_code in (429, 503) and patient and attempt < PATIENCE:
                time.sleep(_retry_after(response))
                continue
            return self._answer(response)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _request(self, method: str, path: str, **options: Any) -> httpx.Response:
        try:
            return self.http.request(method, path, **options)
        except httpx.TimeoutException:
            raise RemoteError(
                f"{self.server} did not answer in time (timeout): is the server up and "
                "reachable from here?"
            ) from None
        except httpx.ConnectError as exc:
            tls = _tls_failure(exc)
            if tls is not None:
                hint = " (is it plain http?)" if "WRONG_VERSION_NUMBER" in tls else ""
                raise RemoteError(f"TLS failed with {self.server}: {tls}{hint}") from None
            raise RemoteError(f"cannot connect to {self.server}: {_reason(exc)}") from None
        except httpx.HTTPError as exc:
            raise RemoteError(f"the connection to {self.server} failed: {_reason(exc)}") from None

    def _answer(self, response: httpx.Response) -> Any:
        """The JSON of a success, or one line for anything else."""
        status = response.status_code
        if 300 <= status < 400:
            where = response.headers.get("location", "elsewhere")
            raise RemoteError(
                f"the server redirects (HTTP {status}) to {where[:200]}: give --server as "
                "the address the API answers on"
            )
        body = _json(response)
        if status < 300 and body is not None:
            return body
        if isinstance(body, dict) and isinstance(body.get("code"), str):
            code = body["code"] if _CODE.fullmatch(body["code"]) else repr(body["code"][:40])
            message = " ".join(str(body.get("message", "")).split())[:500]
            wait = f"; retry after {body['retry_after']} s" if "retry_after" in body else ""
            raise RemoteError(f"{code}: {message} (HTTP {status}{wait})")
        kind = response.headers.get("content-type", "no content type").split(";")[0]
        raise RemoteError(
            f"{self.server} answered HTTP {status} with {kind[:60]}, not the arena API's "
            "JSON: is --server the arena's API address (or a proxy in between failing)?"
        )


def _json(response: httpx.Response) -> Any:
    if "json" not in response.headers.get("content-type", ""):
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _retry_after(response: httpx.Response) -> float:
    try:
        seconds = float(response.headers.get("retry-after", "1"))
    except ValueError:
        seconds = 1.0
    return min(max(seconds, 0.5), MAX_WAIT_S)


def _tls_failure(exc: BaseException) -> str | None:
    """The TLS error behind a failed connection, in one line, if that is what it was."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return getattr(seen, "verify_message", None) or seen.reason or str(seen)
        seen = seen.__cause__ or seen.__context__
    if "SSL" in str(exc) or "TLS" in str(exc):
        return _reason(exc)
    return None


def _reason(exc: BaseException) -> str:
    """The last line worth reading of an httpx error (``[Errno 111] Connection refused``)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1][:300] if lines else type(exc).__name__
