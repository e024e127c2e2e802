"""``POST /test-matches`` and ``GET /test-matches/{id}``.

A request goes through :func:`arena.storage.test_matches.request_test_match`, the function
``arena bot test`` and the dashboard's Test match page call: the caller's own bot only
(403), known active opponents (422 ``refused``), the boards-per-hour quota (429
``quota_exceeded`` with ``Retry-After``). The match is then played by ``arena queue run
--once`` in a process of its own (:mod:`arena.tournament.queue_starter`), unless a queue
runner already holds the queue.
"""

from __future__ import annotations

import json
import logging
from typing import Annotated

from fastapi import APIRouter, Path

from arena import storage
from arena.api import schemas
from arena.api.auth import Context, ReadToken, SubmitToken
from arena.api.errors import not_found, responses
from arena.api.schemas import utc
from arena.storage import test_matches
from arena.storage.database import StorageError
from arena.storage.models import BOARD_SIZE
from arena.storage.privacy import Viewer
from arena.storage.users import AmbiguousName, PermissionDenied
from arena.storage.workspace import check_may_read_bot

LOGGER = logging.getLogger(__name__)

router = APIRouter()


@router.post(
    "/test-matches",
    status_code=202,
    response_model=schemas.TestMatchAccepted,
    responses=responses(400, 401, 403, 404, 413, 415, 422, 429, 503),
    summary="Queue a test match of your bot",
)
def request_test_match(
    ctx: Context, grant: SubmitToken, body: schemas.TestMatchRequest
) -> schemas.TestMatchAccepted:
    """202 once queued; follow it at ``url``. 404 for an unknown bot, 403 for another
    user's."""
    try:
        check_may_read_bot(ctx.engine, body.bot, Viewer.of(grant.actor))
    except (PermissionDenied, AmbiguousName):
        raise
    except StorageError as exc:
        if exc.__cause__ is not None:
            raise
        raise not_found(str(exc)) from None
    match = test_matches.request_test_match(
        ctx.engine,
        by=grant.actor,
        bot=body.bot,
        opponents=body.opponents,
        boards=body.boards,
        ruleset=body.ruleset,
        version=body.version,
    )
    match_id = test_matches.match_id(match)
    try:
        ctx.start_queue_runner(ctx.engine, ctx.database_url, ctx.data_dir)
    except StorageError as exc:  # queued all the same: the next request or runner plays it
        LOGGER.error("test match %d: %s", match_id, exc)
    return schemas.TestMatchAccepted(
        id=match_id, state="queued", url=f"/api/v1/test-matches/{match_id}"
    )


@router.get(
    "/test-matches/{test_match_id}",
    response_model=schemas.TestMatch,
    responses=responses(400, 401, 403, 404, 429, 503),
    summary="A test match's state",
)
def get_test_match(
    ctx: Context, grant: ReadToken, test_match_id: Annotated[int, Path(ge=1)]
) -> schemas.TestMatch:
    """Yours only: 403 ``forbidden`` for another user's."""
    match = test_matches.get_test_match(ctx.engine, test_match_id)
    if match is None:
        raise not_found(f"no test match #{test_match_id}")
    if match.requested_by != grant.actor.id:
        raise PermissionDenied(f"test match #{test_match_id} is another user's")
    tested = storage.get_bot_version(ctx.engine, match.bot_version_id)
    tournament = test_matches.private_tournament(ctx.engine, match)
    stored, total = 0, match.boards * BOARD_SIZE
    if tournament is not None:
        progress = storage.progress(ctx.engine, storage.row_id(tournament))
        stored, total = progress.stored, progress.total
    return schemas.TestMatch(
        id=test_match_id,
        bot=tested.label if tested is not None else "?",
        opponents=test_matches.seated_opponents(json.loads(match.opponents)),
        boards=match.boards,
        ruleset=match.ruleset,
        state=match.status,
        queue_position=test_matches.queue_position(ctx.engine, test_match_id),
        tournament=tournament.name if tournament is not None else None,
        games_stored=stored,
        games_total=total,
        message=match.message,
        requested_at=utc(match.requested_at),
        finished_at=None if match.finished_at is None else utc(match.finished_at),
    )
