"""``arena api``: serve the HTTP API (:mod:`arena.api`) on the arena database.

The database is opened (and migrated) first, so a wrong URL fails here with one line, and
so do a malformed ``ARENA_API_*`` limit, a malformed ``ARENA_TRUSTED_PROXIES`` and a port in
use. uvicorn then serves the application in this process until Ctrl-C or SIGTERM (it
finishes the requests in progress; a build already running finishes, queued ones are
marked interrupted). It believes ``X-Forwarded-For`` only from the proxies
``ARENA_TRUSTED_PROXIES`` names (none by default), as the dashboard does, so a caller
cannot escape its per-client limit by naming another address.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import click
import uvicorn
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from arena.api.app import PREFIX, create_app
from arena.api.settings import ApiSettings
from arena.cli.dashboard import _cannot_listen, _listen_address
from arena.cli.storage_options import data_dir, db_options, open_engine
from arena.web.clients import forwarded_allow_ips, trusted_proxies_from_environment

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
GRACEFUL_SHUTDOWN_S: Final = 10


def server_config(
    app: FastAPI, host: str, port: int, settings: ApiSettings, trusted: str
) -> uvicorn.Config:
    """uvicorn's settings for the API: proxy headers from *trusted* proxies only (none:
    off), the head size, the keep-alive and the connections of *settings*."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http="h11",  # h11_max_incomplete_event_size caps the request's head
        h11_max_incomplete_event_size=settings.max_header_bytes,
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
        limit_concurrency=settings.connections,
        timeout_keep_alive=settings.keep_alive_s,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        server_header=False,
        lifespan="on",
        log_level="info",
    )


@click.command("api")
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True)
@click.option(
    "--host",
    default=DEFAULT_HOST,
    show_default=True,
    help="Address to listen on. Submissions build and run uploaded code: put a proxy with "
    "TLS in front before listening on 0.0.0.0 (docs/api.md).",
    callback=lambda _ctx, _param, value: _listen_address(value),
)
@db_options
def api_command(port: int, host: str, db: str | None, data: Path | None) -> None:
    """Serve the HTTP API (/api/v1) on the arena database until Ctrl-C."""
    try:
        settings = ApiSettings.from_environment()
        trusted = forwarded_allow_ips(trusted_proxies_from_environment())
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    engine = open_engine(db, data)  # fails fast, and migrates an empty database
    refusal = _cannot_listen(host, port)
    if refusal is not None:
        engine.dispose()
        raise click.ClickException(refusal)
    folder = (data or data_dir()).resolve()
    app = create_app(engine, folder, settings)
    shown_host = f"[{host}]" if ":" in host else host
    shown_db = make_url(str(engine.url)).render_as_string(hide_password=True)
    click.echo(
        f"952 Arena API: http://{shown_host}:{port}{PREFIX}  (database {shown_db}; Ctrl-C to stop)"
    )
    server = uvicorn.Server(server_config(app, host, port, settings, trusted))
    try:
        server.run()
    finally:
        engine.dispose()
    if not server.started:
        raise click.ClickException(f"the API server could not start on {host} port {port}")
