"""Every error the API answers: an HTTP status and ``{"code", "message"}``.

The code is stable (docs/api.md lists them), so scripts branch on it; the message is one
line for people. The arena's own exceptions map to codes here, once, so that a route
raises what the storage and submission functions raise (the CLI's and the dashboard's
refusals, in the same words) and never builds an error body itself:

* :class:`~arena.storage.tokens.TokenRefused` -> 401 with its code;
* :class:`~arena.storage.test_matches.QuotaExceeded` -> 429 ``quota_exceeded``;
* :class:`~arena.storage.users.PermissionDenied` -> 403 ``forbidden``;
* :class:`~arena.archive.ArchiveError` -> 422 ``archive_refused``;
* :class:`~arena.storage.database.StorageError` -> 503 ``unavailable`` when the database
  cannot be reached, 500 ``internal`` for another database failure, else 422 ``refused``;
* FastAPI's validation errors -> 400 ``bad_request`` (query, path, malformed JSON), 415 for
  a body that is not JSON, 422 ``invalid_request`` (a body field);
* anything else -> 500 ``internal``, logged with its traceback, saying nothing inside.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from email.message import Message
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError
from starlette.exceptions import HTTPException

from arena.archive import ArchiveError
from arena.storage.database import StorageError
from arena.storage.test_matches import QuotaExceeded
from arena.storage.tokens import TokenRefused
from arena.storage.users import PermissionDenied

LOGGER = logging.getLogger(__name__)

MAX_MESSAGE: Final = 500
STATUS_CODES: Final = {
    400: "bad_request",
    401: "missing_token",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    411: "length_required",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    503: "unavailable",
}
"""The code of an HTTP error raised without one (Starlette's 404 for an unknown route...)."""


class Error(BaseModel):
    """Every error's body."""

    code: str = Field(description="A stable code (docs/api.md, 'Errors').")
    message: str = Field(description="One line for people.")
    retry_after: int | None = Field(
        default=None, description="With 429 only: seconds to wait (also `Retry-After`)."
    )


class ApiError(Exception):
    """An answer other than success: *status*, a stable *code* and a one-line *message*."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: Mapping[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))
        if self.retry_after is not None:
            self.headers["Retry-After"] = str(self.retry_after)


def not_found(message: str) -> ApiError:
    return ApiError(404, "not_found", message)


def unauthorised(code: str, message: str) -> ApiError:
    """A 401 with the challenge RFC 6750 asks for."""
    challenge = "Bearer" if code == "missing_token" else 'Bearer error="invalid_token"'
    return ApiError(401, code, message, headers={"WWW-Authenticate": challenge})


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI description of a route's error answers (each an :class:`Error`)."""
    return {status: {"model": Error, "description": _described(status)} for status in statuses}


def _described(status: int) -> str:
    words = {
        400: "Malformed request (`bad_request`)",
        401: "No token, or a bad, expired or revoked one",
        403: "The token lacks the scope (`scope_required`), or it is another user's (`forbidden`)",
        404: "Unknown, or not yours to see (`not_found`)",
        409: "A conflict (`held_back`, `submission_running`)",
        413: "Body too large (`body_too_large`)",
        415: "Wrong content type (`unsupported_media_type`)",
        422: "Refused (`invalid_request`, `archive_refused`, `refused`)",
        429: "Too many requests (`rate_limited`) or a quota spent (`quota_exceeded`)",
        503: "The build queue is full (`busy`) or the database is down (`unavailable`)",
    }
    return words.get(status, "Error")


def error_response(error: ApiError) -> JSONResponse:
    body = Error(code=error.code, message=_one_line(error.message), retry_after=error.retry_after)
    return JSONResponse(
        body.model_dump(exclude_none=True), status_code=error.status, headers=error.headers
    )


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_MESSAGE else flat[: MAX_MESSAGE - 3] + "..."


def api_error(exc: BaseException) -> ApiError:
    """The answer to *exc*, an exception a route let escape."""
    if isinstance(exc, ApiError):
        return exc
    refusal = _refusal(exc)
    if refusal is not None:
        return refusal
    if isinstance(exc, HTTPException):
        status = exc.status_code
        code = STATUS_CODES.get(status, "internal" if status >= 500 else "bad_request")
        return ApiError(status, code, exc.detail or code.replace("_", " "), headers=exc.headers)
    # The server logs its traceback: Starlette hands it on after this answer is sent.
    return ApiError(500, "internal", "the arena failed; its log says why")


def _refusal(exc: BaseException) -> ApiError | None:
    """The answer to one of the arena's own exceptions, or ``None``."""
    if isinstance(exc, TokenRefused):
        return unauthorised(exc.code, str(exc))
    if isinstance(exc, QuotaExceeded):
        return ApiError(429, "quota_exceeded", str(exc), retry_after=_seconds_until(exc.retry_at))
    if isinstance(exc, PermissionDenied):
        return ApiError(403, "forbidden", str(exc))
    if isinstance(exc, ArchiveError):
        return ApiError(422, "archive_refused", f"archive refused: {exc}")
    if isinstance(exc, StorageError):
        return _storage_error(exc)
    return None


def _seconds_until(moment: datetime | None) -> float | None:
    if moment is None:
        return None
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return max(1.0, (aware - datetime.now(UTC)).total_seconds())


def _storage_error(exc: StorageError) -> ApiError:
    """503 when the database cannot be reached, 500 for another database failure, else
    a refusal in the storage functions' own words."""
    cause = exc.__cause__
    if isinstance(cause, OperationalError) or (
        isinstance(cause, DBAPIError) and cause.connection_invalidated
    ):
        LOGGER.warning("the database cannot be reached: %s", exc)
        return ApiError(503, "unavailable", "the arena's database cannot be reached")
    if isinstance(cause, SQLAlchemyError):
        LOGGER.error("database failure", exc_info=exc)
        return ApiError(500, "internal", "the arena failed; its log says why")
    return ApiError(422, "refused", str(exc))


def _validation(request: Request, exc: RequestValidationError) -> ApiError:
    errors = exc.errors()
    in_body = any(tuple(e.get("loc", ()))[:1] == ("body",) for e in errors)
    if in_body and request.method == "POST" and not _is_json(request):
        return ApiError(415, "unsupported_media_type", "send the body as application/json")
    first = errors[0] if errors else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "request"
    message = f"{where}: {first.get('msg', 'invalid')}"
    if not in_body or first.get("type") == "json_invalid":
        return ApiError(400, "bad_request", message)
    return ApiError(422, "invalid_request", message)


def media_type(request: Request) -> str:
    """The request's media type (``multipart/form-data``), lower case, without parameters."""
    header = Message()
    header["content-type"] = request.headers.get("content-type", "")
    return header.get_content_type()


def _is_json(request: Request) -> bool:
    return media_type(request) == "application/json"


def install(app: FastAPI) -> None:
    """Answer every error of *app* as :class:`Error`."""

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error_response(_validation(request, exc))

    async def on_error(_request: Request, exc: Exception) -> JSONResponse:
        return error_response(api_error(exc))

    app.add_exception_handler(RequestValidationError, on_validation)
    for kind in (ApiError, StorageError, ArchiveError, HTTPException, Exception):
        app.add_exception_handler(kind, on_error)


__all__ = [
    "ApiError",
    "Error",
    "api_error",
    "error_response",
    "install",
    "media_type",
    "not_found",
    "responses",
    "unauthorised",
]
