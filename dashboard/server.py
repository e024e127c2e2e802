"""The dashboard's server: Streamlit's app (``app.py``) behind the arena's guard
(:mod:`dashboard.guard`), plus the routes that keep a login across reloads
(:mod:`dashboard.remember`).

``arena dashboard`` serves this file with ``streamlit run``, which finds the ``app`` below
and serves it as an ASGI application (Streamlit's ``st.App``, on Starlette and uvicorn).

uvicorn rewrites a request's client address from ``X-Forwarded-For`` before any of this
runs, for the peers its ``FORWARDED_ALLOW_IPS`` names, and trusts loopback when that is
unset. ``arena dashboard`` sets it from ``ARENA_TRUSTED_PROXIES``; started any other way
with another list, this module refuses to serve rather than count visitors under
addresses they chose.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

CACHE_CHECK_LOGGER = "streamlit.runtime.caching.cache_data_api"
"""The logger that says "No runtime found, using MemoryCacheStorageManager"."""


@contextlib.contextmanager
def _runtime_not_started_yet() -> Iterator[None]:
    """Quiet Streamlit's cache check while this module imports the pages' modules.

    This module is imported before Streamlit starts its runtime, and ``@st.cache_data``
    checks its settings against a cache store when a function is *decorated*: without a
    runtime it checks them against a throwaway in-memory store and logs "No runtime found,
    using MemoryCacheStorageManager", once per cached function of :mod:`dashboard.data`
    (fourteen lines on every start). The check is harmless (the real store is chosen at a
    function's first call, inside the runtime), so the warning is held back for these
    imports only: a cached function *called* without a runtime later still says so.
    """
    checker = logging.getLogger(CACHE_CHECK_LOGGER)
    level = checker.level
    checker.setLevel(logging.ERROR)
    try:
        yield
    finally:
        checker.setLevel(level)


with _runtime_not_started_yet():
    from arena.web.clients import UVICORN_VARIABLE, forwarded_allow_ips
    from arena.web.exposure import Exposure
    from arena.web.limits import SessionGate, VisitorLimits
    from dashboard import auth, memory, remember  # (needs the sys.path entry above)
    from dashboard.guard import Guard


class _DenialIsNoError(logging.Filter):
    """uvicorn's websockets implementation answers a handshake refused with an HTTP status
    (the ASGI denial-response extension, :mod:`dashboard.guard`) correctly, then logs
    "ASGI callable returned without completing handshake" as an error anyway: one line
    per refused session, so a flood of refusals became a flood of log lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "ASGI callable returned without completing handshake."


logging.getLogger("uvicorn.error").addFilter(_DenialIsNoError())


def served_exposure() -> Exposure:
    """The exposure of the server Streamlit is starting (its address, port and TLS).

    :raises RuntimeError: one line, when the environment is malformed or uvicorn would
        trust other proxies than ``ARENA_TRUSTED_PROXIES`` names.
    """
    try:
        exposure = Exposure.from_environment(
            str(st.config.get_option("server.address") or "0.0.0.0"),  # Streamlit: all interfaces
            int(st.config.get_option("server.port")),
            tls=bool(st.config.get_option("server.sslCertFile")),
        )
    except ValueError as exc:
        raise RuntimeError(f"dashboard: {exc}") from None
    wanted = forwarded_allow_ips(exposure.trusted_proxies)
    if os.environ.get(UVICORN_VARIABLE) != wanted:
        raise RuntimeError(
            f"dashboard: uvicorn trusts forwarded headers from "
            f"{os.environ.get(UVICORN_VARIABLE, '127.0.0.1,::1 (its default)')!r}, not from "
            f"{wanted or 'nobody'!r} as ARENA_TRUSTED_PROXIES says: start it with `arena dashboard`"
        )
    return exposure


memory.start_trimming()

app = st.App(
    Path(__file__).resolve().parent / "app.py",
    routes=remember.routes(int(auth.policy().lifetime.total_seconds())),
    middleware=[
        Middleware(
            Guard,
            exposure=served_exposure(),
            gate=SessionGate(VisitorLimits.from_environment()),
        )
    ],
)
