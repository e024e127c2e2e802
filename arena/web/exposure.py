"""Where the dashboard is reached from: the one web origin its sessions belong to.

Browsers keep cookies per host, not per port, and ``SameSite=Strict`` treats every port
of one host as the same site. So a page served from another port of 127.0.0.1 (any local
program's, or a notebook's) carries the organiser's login cookie when it opens the
dashboard's websocket, and Streamlit's own check accepts websockets from localhost and
127.0.0.1 on any port. The dashboard therefore accepts a websocket, and any request that
names an origin, only from its own **origin** (scheme, host and port), and only for the
host names it is served under (against DNS rebinding, where a hostile name resolves to
127.0.0.1):

* with ``ARENA_PUBLIC_URL`` (``https://arena.example.org``): that origin only;
* else, listening on one address: that address and port (for a loopback address, also
  ``localhost``, ``127.0.0.1`` and ``[::1]`` on that port: the same server);
* else, listening on every interface: the origin must be the host the request itself was
  sent to (its ``Host`` header), on the scheme it arrived by. That stops other ports and
  other sites, not DNS rebinding: set ``ARENA_PUBLIC_URL`` for a public deployment
  (``arena dashboard --check`` says so).

:func:`Exposure.report` is what ``arena dashboard --check`` and ``arena doctor`` print.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit

from arena.web.clients import Network, trusted_proxies_from_environment

PUBLIC_URL_VARIABLE: Final = "ARENA_PUBLIC_URL"
"""The address visitors use (``https://arena.example.org``): its origin is the only one the
dashboard accepts, and with ``https`` its cookies are ``Secure`` and ``__Host-``."""
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_WILDCARDS: Final = frozenset({"", "0.0.0.0", "::", "[::]"})
_LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "[::1]")

Level = Literal["ok", "warning"]


def origin_of(url: str) -> str:
    """The origin of *url* as a browser writes it in an ``Origin`` header: lower-case
    scheme and host, the port only when it is not the scheme's default.

    :raises ValueError: for anything that is not an ``http``/``https`` URL with a host.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"{url[:80]!r} is not an http:// or https:// address with a host")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{url[:80]!r} has an invalid port") from None
    return f"{scheme}://{_netloc(parts.hostname, port, scheme)}"


def _netloc(host: str, port: int | None, scheme: str) -> str:
    host = host.lower().strip("[]")
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return host
    return f"{host}:{port}"


def _normal_host(header: str, scheme: str) -> str | None:
    """A ``Host`` header as :func:`_netloc` writes it, or ``None`` if it is malformed."""
    try:
        parts = urlsplit(f"//{header.strip()}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.username is not None or parts.password is not None:
        return None
    return _netloc(parts.hostname, port, scheme)


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Finding:
    """One line of an exposure report."""

    level: Level
    text: str


@dataclass(frozen=True)
class Exposure:
    """How the dashboard is served, and so which requests belong to it."""

    host: str
    """The address it listens on (``0.0.0.0`` or ``::``: every interface)."""
    port: int
    public_origin: str | None = None
    """The origin of ``ARENA_PUBLIC_URL``, if set."""
    trusted_proxies: tuple[Network, ...] = ()
    tls: bool = False
    """Whether the server itself speaks HTTPS (Streamlit's ``server.sslCertFile``)."""

    @classmethod
    def from_environment(cls, host: str, port: int, tls: bool = False) -> Exposure:
        """The exposure of a server on *host*:*port*, with ``ARENA_PUBLIC_URL`` and
        ``ARENA_TRUSTED_PROXIES`` from the environment.

        :raises ValueError: one line, for a malformed public URL or proxy list.
        """
        raw = os.environ.get(PUBLIC_URL_VARIABLE, "").strip()
        try:
            public = origin_of(raw) if raw else None
        except ValueError as exc:
            raise ValueError(f"${PUBLIC_URL_VARIABLE}: {exc}") from None
        return cls(host, port, public, trusted_proxies_from_environment(), tls)

    @property
    def everywhere(self) -> bool:
        """Does it listen on every interface?"""
        return self.host in _WILDCARDS

    @property
    def loopback(self) -> bool:
        """Does it listen on a loopback address only (this machine)?"""
        return _is_loopback(self.host)

    def served_hosts(self) -> frozenset[str]:
        """The ``Host`` values of requests sent straight to the server: its address and
        port, or every loopback name of that port when it listens on loopback or on
        every interface (a request from this machine)."""
        names = {f"{name}:{self.port}" for name in _LOOPBACK_NAMES}
        if not self.everywhere and not self.loopback:
            names = {_netloc(self.host, self.port, "")}
        return frozenset(names)

    def allowed_hosts(self) -> frozenset[str] | None:
        """The ``Host`` headers the dashboard answers (``None``: any, see the module)."""
        if self.public_origin is not None:
            public = urlsplit(self.public_origin).netloc
            return self.served_hosts() | {public}
        if self.everywhere:
            return None
        return self.served_hosts()

    def refusal(self, origin: str | None, host: str | None, scheme: str) -> str | None:
        """Why a request with these ``Origin`` and ``Host`` headers, arriving by *scheme*
        (``http``, ``https``, ``ws``, ``wss``), is not the dashboard's own; ``None`` if it
        is. A request without an origin passes here: the caller decides whether it needs
        one."""
        web = "https" if scheme in ("https", "wss") else "http"
        seen = _normal_host(host, web) if host else None
        hosts = self.allowed_hosts()
        if hosts is not None and (seen is None or seen not in hosts):
            return f"host {(host or '')[:80]!r} is not this dashboard's"
        if origin is None:
            return None
        try:
            named = origin_of(origin)
        except ValueError:
            return f"origin {origin[:80]!r} is not a web origin"
        if named != origin:
            return f"origin {origin[:80]!r} is not written as browsers write it"
        if named in self.allowed_origins(web, seen):
            return None
        return f"origin {named} is not this dashboard's"

    def allowed_origins(self, web_scheme: str, host: str | None) -> frozenset[str]:
        """The origins accepted for a request sent by *web_scheme* to *host*."""
        if self.public_origin is not None:
            return frozenset({self.public_origin})
        if self.everywhere:
            return frozenset({f"{web_scheme}://{host}"}) if host else frozenset()
        return frozenset(f"{web_scheme}://{name}" for name in self.served_hosts())

    def secure_cookies(self) -> bool:
        """Are its pages reached over HTTPS (so cookies can be ``Secure`` and
        ``__Host-``)?"""
        if self.public_origin is not None:
            return self.public_origin.startswith("https://")
        return self.tls

    def report(self) -> list[Finding]:
        """How the dashboard is exposed, one finding a line (warnings say what to do)."""
        return [
            self._listening(),
            self._origins(),
            self._proxies(),
            self._cookies(),
            *self._scheme_mismatch(),
        ]

    def _listening(self) -> Finding:
        if self.everywhere:
            return Finding(
                "ok",
                f"listens on every interface, port {self.port}: "
                "anyone who can reach this machine can open it",
            )
        where = ": this machine only" if self.loopback else ""
        return Finding("ok", f"listens on {self.host}:{self.port}{where}")

    def _origins(self) -> Finding:
        if self.public_origin is not None:
            return Finding(
                "ok",
                f"its sessions and cookies belong to {self.public_origin} ($ARENA_PUBLIC_URL) only",
            )
        if self.everywhere:
            return Finding(
                "warning",
                "no $ARENA_PUBLIC_URL: a request's origin is checked only against the host "
                "it was sent to, which does not stop DNS rebinding; "
                "set ARENA_PUBLIC_URL=https://your.host",
            )
        shown = ", ".join(sorted(self.allowed_origins("https" if self.tls else "http", None)))
        return Finding("ok", f"its sessions and cookies belong to {shown} only")

    def _proxies(self) -> Finding:
        if self.trusted_proxies:
            shown = ", ".join(str(network) for network in self.trusted_proxies)
            return Finding(
                "ok",
                f"X-Forwarded-For and -Proto honoured from {shown} ($ARENA_TRUSTED_PROXIES) only",
            )
        return Finding(
            "ok",
            "X-Forwarded-For and -Proto honoured from nobody: a visitor is the address it "
            "connects from (behind a proxy, set ARENA_TRUSTED_PROXIES)",
        )

    def _cookies(self) -> Finding:
        if self.secure_cookies():
            return Finding("ok", "login cookies: __Host- prefix, Secure, HttpOnly, SameSite=Strict")
        if self.loopback:
            return Finding(
                "ok", "login cookies: HttpOnly, SameSite=Strict (plain HTTP, this machine)"
            )
        return Finding(
            "warning",
            "served over plain HTTP beyond this machine: passwords and login cookies cross "
            "the network in clear; put an HTTPS proxy in front (docs/security.md) and set "
            "ARENA_PUBLIC_URL=https://...",
        )

    def _scheme_mismatch(self) -> list[Finding]:
        public_https = self.public_origin is not None and self.public_origin.startswith("https:")
        if not public_https or self.trusted_proxies or self.tls:
            return []
        return [
            Finding(
                "warning",
                "ARENA_PUBLIC_URL is https but the server speaks plain HTTP and trusts no "
                "proxy to say otherwise: set ARENA_TRUSTED_PROXIES to the HTTPS proxy's address",
            )
        ]
