"""``arena dashboard``: serve the Streamlit dashboard on the database.

The server is ``dashboard/server.py``: the pages' app (``dashboard/app.py``) with the routes
that keep a login across reloads, run by ``streamlit run`` as an ASGI application.

The dashboard runs as a ``streamlit run`` child process that gets the database as
``ARENA_DB`` and the data directory as ``ARENA_DATA``; this command opens (and migrates)
the database first so a wrong URL fails here with one line, checks the web settings
(``ARENA_PUBLIC_URL``, ``ARENA_TRUSTED_PROXIES``, the visitor limits) the same way, waits
until the server answers, prints the URL, and keeps running until Ctrl-C, which stops the
server. ``--check`` only reports how the dashboard would be exposed (:mod:`arena.web`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import FrameType
from typing import Final

import click
from sqlalchemy.engine import make_url

import arena
from arena.cli.storage_options import db_options, open_engine
from arena.storage.database import data_dir, default_url
from arena.web.clients import UVICORN_VARIABLE, forwarded_allow_ips
from arena.web.exposure import Exposure
from arena.web.limits import VisitorLimits

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8501
STARTUP_TIMEOUT_S: Final = 60.0
MAX_UPLOAD_MB: Final = 20
"""Streamlit's upload limit; the Bots page refuses bigger archives too."""
MAX_MESSAGE_MB: Final = 32
"""The largest websocket message either way (Streamlit's default is 200 MB, which one
visitor's frame could make the server buffer before anything looks at it)."""
MAX_WIDGET_STATE_MB: Final = 2
"""The largest message a visitor's page may send (widget values; Streamlit's default: 25)."""
DISCONNECTED_SESSION_S: Final = 30
"""How long a closed tab's session is kept for its reconnection before its memory is freed
(Streamlit's default: 120 s). A reload after that finds its login again in the cookie."""
ARENA_MALLOC: Final = {"MALLOC_ARENA_MAX": "2"}
"""glibc gives every thread its own heap by default and keeps what sessions freed in them;
two heaps let the server give memory back after a crowd of sessions has gone."""


def app_path() -> Path:
    """``dashboard/server.py`` beside the ``arena`` package (a source checkout)."""
    return Path(arena.__file__).resolve().parent.parent / "dashboard" / "server.py"


def _cannot_listen(host: str, port: int) -> str | None:
    """Why the server could not listen on *host*:*port*, or ``None`` if it can: a probe
    binds it first, so that a busy port, an unknown name or another machine's address is
    named, rather than reported as a server that never answers."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        return f"cannot listen on {host!r}: not an address or known host name ({exc})"
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} on {host} is in use; choose another with --port"
            return f"cannot listen on {host} port {port}: {exc.strerror or exc}"
    return None


def _listen_address(value: str) -> str:
    """``--host``: refuse an empty address, which the server would take as every interface
    while the arena showed a local one."""
    if not value.strip():
        raise click.BadParameter("give an address (0.0.0.0 listens on every interface)")
    return value


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def streamlit_command(app: Path, host: str, port: int) -> list[str]:
    """The ``streamlit run`` command line of the dashboard server."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--server.maxUploadSize",
        str(MAX_UPLOAD_MB),
        "--browser.gatherUsageStats",
        "false",
        "--theme.base",
        "light",
        "--client.toolbarMode",
        "viewer",  # no "Deploy" button or developer menu
        "--client.showErrorDetails",
        "none",  # an exception's text and stack (server paths) go to the log, not to visitors
        "--server.maxMessageSize",
        str(MAX_MESSAGE_MB),
        "--server.maxWidgetStateSize",
        str(MAX_WIDGET_STATE_MB),
        "--server.disconnectedSessionTTL",
        str(DISCONNECTED_SESSION_S),
        "--server.enableXsrfProtection",
        "true",
        # Streamlit runs a full garbage collection after every page run, holding the
        # interpreter lock over the whole heap each time: with reruns asked for in a loop
        # that was most of the server's time, and every other request waited (py-spy:
        # 62 of 82 samples in it). Python's own collector still runs as it always does.
        "--runner.postScriptGC",
        "false",
    ]


def web_settings(host: str, port: int) -> tuple[Exposure, VisitorLimits]:
    """How a dashboard on *host*:*port* is exposed and what a visitor may use of it, from
    ``ARENA_PUBLIC_URL``, ``ARENA_TRUSTED_PROXIES`` and the limit variables.

    :raises click.ClickException: one line, for a malformed setting.
    """
    try:
        return Exposure.from_environment(host, port), VisitorLimits.from_environment()
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


def exposure_lines(exposure: Exposure, limits: VisitorLimits) -> list[str]:
    """The report of ``--check`` (and of ``arena doctor``): a line per finding, then the
    limits on one visitor."""
    lines = [
        f"  {'WARNING' if finding.level == 'warning' else 'ok':<7}  {finding.text}"
        for finding in exposure.report()
    ]
    lines.append("  ok       /_stcore/metrics is closed (404); other sites may not frame its pages")
    lines.append(f"  ok       one visitor (one address, or one IPv6 /64): {limits.describe()}")
    return lines


@click.command("dashboard")
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True)
@click.option(
    "--host",
    default=DEFAULT_HOST,
    show_default=True,
    help="Address to listen on. The Bots page builds and runs uploaded code: "
    "listen on 0.0.0.0 only on a trusted network.",
    callback=lambda _ctx, _param, value: _listen_address(value),
)
@click.option(
    "--check",
    is_flag=True,
    help="Only report how the dashboard would be exposed (origins, proxies, cookies, "
    "limits); exit 1 if there is a warning.",
)
@db_options
def dashboard_command(port: int, host: str, check: bool, db: str | None, data: Path | None) -> None:
    """Serve the dashboard on the arena database until Ctrl-C."""
    exposure, limits = web_settings(host, port)
    if check:
        _report(host, port, exposure, limits)
        return
    engine = open_engine(db, data)  # fails fast, and migrates an empty database
    engine.dispose()
    url = db or default_url()
    app = app_path()
    if not app.is_file():
        raise click.ClickException(
            f"dashboard files not found at {app} (run arena from a source checkout)"
        )
    refusal = _cannot_listen(host, port)
    if refusal is not None:
        raise click.ClickException(refusal)
    env = dict(
        os.environ,
        ARENA_DB=url,
        ARENA_DATA=str(data_dir().resolve()),
        STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
        **{UVICORN_VARIABLE: forwarded_allow_ips(exposure.trusted_proxies)},
        **ARENA_MALLOC,
    )
    server = subprocess.Popen(streamlit_command(app, host, port), env=env, stdin=subprocess.DEVNULL)
    _watch(server, exposure, url)


def _report(host: str, port: int, exposure: Exposure, limits: VisitorLimits) -> None:
    """``--check``: the exposure report; exit 1 if it warns."""
    click.echo(f"dashboard on {host}:{port}:")
    click.echo("\n".join(exposure_lines(exposure, limits)))
    if any(finding.level == "warning" for finding in exposure.report()):
        raise click.exceptions.Exit(1)


def _watch(server: subprocess.Popen[bytes], exposure: Exposure, url: str) -> None:
    """Wait until *server* answers, print where, and run until Ctrl-C (or SIGTERM) or its
    end; the server never outlives this command."""
    host, port = exposure.host, exposure.port
    shown_host = "127.0.0.1" if exposure.everywhere else f"[{host}]" if ":" in host else host
    address = f"http://{shown_host}:{port}"

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # SIGTERM stops the server the same way as Ctrl-C

    # Handled explicitly: a shell starts background jobs with SIGINT ignored, and the
    # dashboard must still stop on Ctrl-C (the server child is stopped in ``finally``).
    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _healthy(address):
            if server.poll() is not None:
                raise click.ClickException(f"the dashboard server exited with {server.returncode}")
            if time.monotonic() > deadline:
                raise click.ClickException(f"the dashboard did not answer at {address}")
            time.sleep(0.2)
        shown_db = make_url(url).render_as_string(hide_password=True)
        reach = f"listening on every interface ({host}); " if exposure.everywhere else ""
        public = f"public address {exposure.public_origin}; " if exposure.public_origin else ""
        click.echo(
            f"952 Arena dashboard: {address}  ({reach}{public}database {shown_db}; Ctrl-C to stop)"
        )
        server.wait()
        if server.returncode not in (0, -signal.SIGINT, -signal.SIGTERM):
            raise click.ClickException(f"the dashboard server exited with {server.returncode}")
    except KeyboardInterrupt:
        click.echo("stopping the dashboard", err=True)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        with contextlib.suppress(OSError):
            sys.stdout.flush()
