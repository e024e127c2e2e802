"""Who calls, and whether they may: the bearer token, the route's scope, the rate limits.

Every route depends on one of:

* :func:`token_with` (*scope*, *kind*): a good token (401 ``missing_token``,
  ``bad_token``, ``expired_token``, ``revoked_token`` otherwise) with the route's scope
  (403 ``scope_required``), within its token's bucket of *kind* (429 ``rate_limited``);
* :func:`reader`: a public route's caller: a spectator (``None``) without a token, within
  its client key's bucket; with a token, as :func:`token_with` ("read"). When the arena is
  private (``ARENA_DASHBOARD_PRIVATE``) a token is required;
* :func:`client_only`: counted per client key only (health).

A token's actor is always a participant (:func:`arena.storage.tokens.authenticate_token`),
even an organiser's: what a route allows it is decided by the functions the CLI and the
dashboard call, for that participant. Requests whose token is refused count against their
client key, so guessing costs the guesser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPBearer

from arena.api.context import ApiContext, context
from arena.api.errors import ApiError, unauthorised
from arena.storage.tokens import TokenGrant, TokenRefused, authenticate_token
from arena.web.clients import client_key

BEARER = HTTPBearer(
    auto_error=False,
    scheme_name="token",
    description="A personal token: `Authorization: Bearer a952_...` (docs/api.md, 'Tokens').",
)
"""Only for the OpenAPI document's security scheme: the header is read here."""

Context = Annotated[ApiContext, Depends(context)]


def _charge(ctx: ApiContext, key: str, kind: str) -> None:
    """:raises ApiError: 429 when *key*'s bucket of *kind* is empty."""
    wait = ctx.limiter.take(f"{kind}:{key}", ctx.settings.rate(kind))
    if wait > 0:
        raise ApiError(
            429, "rate_limited", f"too many requests: wait {wait:.1f} s", retry_after=wait
        )


def _client(request: Request) -> str:
    return client_key(request.client.host if request.client else None)


def _secret(request: Request) -> str | None:
    """The bearer token of the request, ``None`` without an Authorization header.

    :raises ApiError: 401 ``bad_token`` for another kind of Authorization.
    """
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, secret = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise unauthorised("bad_token", "use the header Authorization: Bearer a952_...")
    return secret.strip()


def _grant(request: Request, ctx: ApiContext, secret: str | None, kind: str) -> TokenGrant:
    if secret is None:
        _charge(ctx, _client(request), "client")
        raise unauthorised(
            "missing_token", "this route needs a token: Authorization: Bearer a952_..."
        )
    try:
        grant = authenticate_token(ctx.engine, secret)
    except TokenRefused as refused:
        _charge(ctx, _client(request), "client")
        raise unauthorised(refused.code, str(refused)) from None
    _charge(ctx, f"token:{grant.token_id}", kind)
    return grant


def _scoped(grant: TokenGrant, scope: str) -> TokenGrant:
    if not grant.allows(scope):
        raise ApiError(
            403, "scope_required", f"this token lacks the {scope!r} scope (it has: "
            f"{', '.join(sorted(grant.scopes))})",
        )  # fmt: skip
    return grant


def token_with(scope: str, kind: str = "read") -> Callable[..., TokenGrant]:
    """The dependency of a route for token holders with *scope*, charged to *kind*."""

    def dependency(
        request: Request, ctx: Context, _bearer: Annotated[object, Depends(BEARER)]
    ) -> TokenGrant:
        return _scoped(_grant(request, ctx, _secret(request), kind), scope)

    return dependency


def reader(
    request: Request, ctx: Context, _bearer: Annotated[object, Depends(BEARER)]
) -> TokenGrant | None:
    """A public route's caller: ``None`` for a spectator (no token, a public arena)."""
    secret = _secret(request)
    if secret is None and not ctx.settings.private:
        _charge(ctx, _client(request), "client")
        return None
    if secret is None:
        _charge(ctx, _client(request), "client")
        raise unauthorised("missing_token", "this arena is private: send a token with 'read'")
    return _scoped(_grant(request, ctx, secret, "read"), "read")


def client_only(request: Request, ctx: Context) -> None:
    """Counted per client key, token or not."""
    _charge(ctx, _client(request), "client")


Reader = Annotated[TokenGrant | None, Depends(reader)]
ReadToken = Annotated[TokenGrant, Depends(token_with("read"))]
SubmitToken = Annotated[TokenGrant, Depends(token_with("submit", "write"))]

__all__ = [
    "BEARER",
    "Context",
    "ReadToken",
    "Reader",
    "SubmitToken",
    "client_only",
    "reader",
    "token_with",
]
