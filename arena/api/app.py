"""The API's application: :func:`create_app` puts the routes, the error answers, the body
limit and the background work (builds, the sweep of abandoned submissions) together.

``arena api`` serves it with uvicorn (:mod:`arena.cli.api`); tests drive it in-process with
Starlette's ``TestClient``. FastAPI's ``/docs`` and ``/redoc`` pages are off: they load
their scripts from a CDN. The OpenAPI document is at ``/api/v1/openapi.json``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI
from sqlalchemy.engine import Engine

import arena
from arena.api import (
    errors,
    routes_bots,
    routes_meta,
    routes_public,
    routes_submit,
    routes_test_matches,
)
from arena.api.body import BodyLimit
from arena.api.builds import Builds
from arena.api.context import ApiContext, QueueStarter
from arena.api.limits import RateLimiter
from arena.api.settings import ApiSettings
from arena.api.sweep import Sweeper
from arena.tournament.queue_starter import start_queue_runner

LOGGER = logging.getLogger(__name__)

PREFIX: Final = "/api/v1"
DESCRIPTION: Final = (
    "Submit, follow and test bots of a 952 Arena with a personal token "
    "(`Authorization: Bearer a952_...`). Every error is `{code, message}` with a stable "
    "code; docs/api.md has examples and the codes."
)


class ArenaApi(FastAPI):
    """FastAPI, whose OpenAPI document describes the API's own errors only: the 422 that
    FastAPI adds to every route with parameters (its ``HTTPValidationError``) is not what
    this API answers (a bad path or query value is 400 ``bad_request``, a body field 422
    ``invalid_request``, both :class:`arena.api.errors.Error`)."""

    def openapi(self) -> dict[str, Any]:
        document = super().openapi()
        for item in document.get("paths", {}).values():
            for operation in item.values():
                answer = operation.get("responses", {}).get("422")
                if answer is not None and "HTTPValidationError" in str(answer):
                    del operation["responses"]["422"]
        schemas = document.get("components", {}).get("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            schemas.pop(name, None)
        return document


def create_app(
    engine: Engine,
    data_dir: Path,
    settings: ApiSettings | None = None,
    *,
    queue_starter: QueueStarter = start_queue_runner,
) -> ArenaApi:
    """The API on *engine* (opened and migrated by the caller) and *data_dir*, with
    *settings* (default: from the environment, :meth:`ApiSettings.from_environment`).

    *queue_starter* starts the test-match queue runner (a stand-in in tests).

    :raises ValueError: for a malformed ``ARENA_API_*`` setting.
    """
    chosen = settings or ApiSettings.from_environment()
    builds = Builds(engine, builds=chosen.builds, queue=chosen.build_queue)
    state = ApiContext(
        engine=engine,
        data_dir=data_dir,
        database_url=engine.url.render_as_string(hide_password=False),
        settings=chosen,
        limiter=RateLimiter(chosen.tracked_callers),
        builds=builds,
        start_queue_runner=queue_starter,
    )
    sweeper = Sweeper(
        engine, chosen.abandoned_after_s, chosen.sweep_every_s, keep=lambda: builds.held
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        finished = sweeper.start()
        if finished:
            LOGGER.warning("submissions %s were left running by a stopped server", finished)
        try:
            yield
        finally:
            sweeper.stop()
            builds.shutdown()

    app = ArenaApi(
        title="952 Arena API",
        version=arena.__version__,
        description=DESCRIPTION,
        openapi_url=None,  # served by routes_meta, limited per client like every route
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.arena = state
    errors.install(app)
    for module in (routes_meta, routes_bots, routes_submit, routes_public, routes_test_matches):
        app.include_router(module.router, prefix=PREFIX)
    app.add_middleware(
        BodyLimit, max_body=chosen.max_body, max_archive_body=chosen.max_archive_body
    )
    return app


__all__ = ["PREFIX", "create_app"]
