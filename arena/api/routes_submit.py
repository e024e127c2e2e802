"""``POST /bots`` (submit an archive) and ``GET /submissions/{id}`` (follow it).

A submission is checked in the order that costs least first: the token and its scope,
the content type, a place in the build pool (one per user, a bounded queue), then the body
is read (its size already capped by :mod:`arena.api.body`) and unpacked by
:func:`arena.archive.extract_bot_archive`, the dashboard's upload check, so a zip bomb, a
path escaping the folder or a link is refused (422 ``archive_refused``) before anything is
stored. A bot name another user owns is refused too (403, from the manifest, by
:func:`arena.storage.bots.check_may_submit`). Neither leaves a submission row: the archive
was never a submission. Then the row is started (``via="api"``), the answer is 202 with
its id, and :func:`arena.submission.submit_bot` continues that row in the background
(:mod:`arena.api.builds`), with every check of ``arena bot submit`` again (manifest,
name, quota, build, smoke game); its outcome and log are what ``GET /submissions/{id}``
shows.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Final

from fastapi import APIRouter, Request
from fastapi import Path as PathParam
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from arena.api import schemas
from arena.api.auth import Context, ReadToken, SubmitToken
from arena.api.builds import Place
from arena.api.context import ApiContext
from arena.api.errors import ApiError, media_type, not_found, responses
from arena.api.schemas import utc
from arena.archive import MAX_ARCHIVE_BYTES, extract_bot_archive
from arena.referee.manifest import ManifestError, load_manifest
from arena.storage import submissions
from arena.storage.bots import check_may_submit, get_bot_version
from arena.storage.users import Actor, PermissionDenied
from arena.submission import SubmitError, submit_bot

LOGGER = logging.getLogger(__name__)

router = APIRouter()
FIELD: Final = "archive"
ARCHIVE_BODY: Final[dict[str, Any]] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": [FIELD],
                    "properties": {
                        FIELD: {
                            "type": "string",
                            "contentMediaType": "application/octet-stream",
                            "description": "The bot's folder as a .zip or .tar.gz (bot.toml at "
                            "its top or in its one top folder), at most 20 MiB.",
                        }
                    },
                }
            }
        },
    }
}


@router.post(
    "/bots",
    status_code=202,
    response_model=schemas.SubmissionAccepted,
    openapi_extra=ARCHIVE_BODY,
    responses=responses(400, 401, 403, 409, 413, 415, 422, 429, 503),
    summary="Submit a bot: built and smoke-tested in the background",
)
async def submit(request: Request, ctx: Context, grant: SubmitToken) -> schemas.SubmissionAccepted:
    """202 with the submission's id once the archive is unpacked; follow it at ``url``."""
    if media_type(request) != "multipart/form-data":
        raise ApiError(
            415, "unsupported_media_type", f"send the archive as multipart/form-data ({FIELD!r})"
        )
    with ctx.builds.reserve(grant.actor.id) as place:
        data, filename = await _archive(request)
        return await run_in_threadpool(_accept, ctx, grant.actor, place, data, filename)


async def _archive(request: Request) -> tuple[bytes, str]:
    """The archive's bytes and file name from the multipart body.

    :raises ApiError: 422 ``invalid_request`` without a file field :data:`FIELD`.
    """
    form = await request.form(max_files=1, max_fields=8)
    try:
        upload = form.get(FIELD)
        if not isinstance(upload, UploadFile):
            raise ApiError(422, "invalid_request", f"send the archive as the file field {FIELD!r}")
        data = await upload.read(MAX_ARCHIVE_BYTES + 1)
        name = PurePosixPath((upload.filename or "").replace("\\", "/")).name or "archive"
    finally:
        await form.close()
    return data, name


def _accept(
    ctx: ApiContext, actor: Actor, place: Place, data: bytes, filename: str
) -> schemas.SubmissionAccepted:
    """Unpack, check the name, start the row and queue the build (in a worker thread)."""
    scratch = Path(tempfile.mkdtemp(prefix="arena-api-"))
    try:
        root = extract_bot_archive(data, filename, scratch / "bot")
        name = _claimed_name(ctx, actor, root) or filename
        submission_id = submissions.start_submission(
            ctx.engine, user_id=actor.id, bot_name=name, via="api"
        )
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    job = partial(_build, ctx, actor, root, submission_id, scratch)
    place.start(submission_id, job, cleanup=partial(shutil.rmtree, scratch, ignore_errors=True))
    LOGGER.info("%s submitted %s through the API (submission %d)", actor.name, name, submission_id)
    return schemas.SubmissionAccepted(
        submission_id=submission_id, state="running", url=f"/api/v1/submissions/{submission_id}"
    )


def _claimed_name(ctx: ApiContext, actor: Actor, root: Path) -> str | None:
    """The bot name the manifest claims, if it parses (else the build refuses it, with
    its reason in the row).

    :raises PermissionDenied: if the name is another user's (or looks like a stored one).
    """
    try:
        manifest = load_manifest(root)
    except ManifestError:
        return None
    check_may_submit(ctx.engine, actor, manifest.name)
    return manifest.name


def _build(ctx: ApiContext, actor: Actor, root: Path, submission_id: int, scratch: Path) -> None:
    """The background part: ``arena bot submit``'s steps, finishing row *submission_id*."""
    try:
        submit_bot(
            ctx.engine,
            root,
            ctx.data_dir,
            submitter=actor,
            via="api",
            submission_id=submission_id,
            build_timeout_s=ctx.settings.build_timeout_s,
        )
    except SubmitError:
        pass  # the row holds the outcome, its one line and its log
    except Exception:
        LOGGER.exception("submission %d failed in the arena", submission_id)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@router.get(
    "/submissions/{submission_id}",
    response_model=schemas.Submission,
    responses=responses(400, 401, 403, 404, 429, 503),
    summary="A submission's state and log",
)
def get_submission(
    ctx: Context, grant: ReadToken, submission_id: Annotated[int, PathParam(ge=1)]
) -> schemas.Submission:
    """Yours only: 403 ``forbidden`` for another user's."""
    info = submissions.get_submission(ctx.engine, submission_id)
    if info is None:
        raise not_found(f"no submission with id {submission_id}")
    if info.user_id != grant.actor.id:
        raise PermissionDenied(f"submission {submission_id} is another user's")
    version = (
        None if info.bot_version_id is None else get_bot_version(ctx.engine, info.bot_version_id)
    )
    return schemas.Submission(
        id=info.id,
        bot=info.bot_name,
        version=info.version,
        via=info.via,
        state=info.outcome,
        message=info.message,
        log=info.log,
        label=None if version is None else version.label,
        submitted_at=utc(info.submitted_at),
        finished_at=None if info.finished_at is None else utc(info.finished_at),
    )
