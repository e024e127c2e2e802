"""``/health``, ``/me`` and the OpenAPI document."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

import arena
from arena.api import schemas
from arena.api.auth import Context, ReadToken, client_only
from arena.api.errors import ApiError, responses, unauthorised
from arena.storage.tokens import list_tokens

router = APIRouter()


@router.get(
    "/health",
    response_model=schemas.Health,
    dependencies=[Depends(client_only)],
    responses=responses(429, 503),
    summary="Whether the server and its database answer",
)
def health(ctx: Context) -> schemas.Health:
    """Public, even in a private arena; limited per client only. 503 ``unavailable`` when
    the database does not answer."""
    try:
        with ctx.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError:
        raise ApiError(503, "unavailable", "the arena's database cannot be reached") from None
    return schemas.Health(status="ok", database="ok", version=arena.__version__)


@router.get(
    "/me",
    response_model=schemas.Me,
    responses=responses(401, 403, 429, 503),
    summary="Who the token acts for",
)
def me(ctx: Context, grant: ReadToken) -> schemas.Me:
    """The token's user (always as a participant) and the token's own name, scopes and
    expiry."""
    mine = list_tokens(ctx.engine, grant.actor, grant.actor.name)
    token = next((t for t in mine if t.id == grant.token_id), None)
    if token is None:  # deleted since it was checked
        raise unauthorised("bad_token", "unknown token")
    return schemas.Me(
        user=grant.actor.name,
        token=schemas.TokenView(
            name=token.name, scopes=sorted(grant.scopes), expires_at=token.expires_at
        ),
    )


@router.get(
    "/openapi.json",
    include_in_schema=False,
    dependencies=[Depends(client_only)],
)
def openapi(request: Request) -> JSONResponse:
    """This API's OpenAPI 3.1 document (public; limited per client)."""
    document: dict[str, Any] = request.app.openapi()
    return JSONResponse(document)
