"""``GET /bots``, ``/bots/{name}`` and ``/bots/{name}/games``: the caller's own bots.

The read model is My bots' (:mod:`arena.storage.workspace`), for the token's participant:
:func:`~arena.storage.workspace.check_may_read_bot` refuses another user's bot (403), as
``arena bot logs`` does.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Path, Query

from arena.api import schemas
from arena.api.auth import Context, ReadToken
from arena.api.errors import not_found, responses
from arena.api.schemas import utc
from arena.storage.bot_games import MAX_PAGE, bot_games, bot_version_labels
from arena.storage.database import StorageError
from arena.storage.privacy import Viewer
from arena.storage.submissions import SubmissionInfo
from arena.storage.users import AmbiguousName, PermissionDenied
from arena.storage.workspace import (
    AuthorBot,
    author_bots,
    check_may_read_bot,
    unstored_submissions,
    version_of,
)

router = APIRouter()
BotName = Annotated[str, Path(min_length=1, max_length=200, description="The bot's name")]


def summary(info: SubmissionInfo) -> schemas.SubmissionSummary:
    return schemas.SubmissionSummary(
        id=info.id,
        bot=info.bot_name,
        state=info.outcome,
        message=info.message,
        submitted_at=utc(info.submitted_at),
    )


def _bot(bot: AuthorBot) -> schemas.Bot:
    return schemas.Bot(
        name=bot.name,
        owner=bot.owner,
        versions=[
            schemas.Version(
                seq=v.seq,
                label=v.label,
                submitted_at=utc(v.submitted_at),
                via=v.submitted_via,
                games=v.games,
                faulted_games=v.faulted_games,
                state=v.state,
                ladders=[
                    schemas.LadderState(tournament=p.tournament, state=p.state) for p in v.ladders
                ],
            )
            for v in bot.versions
        ],
        failed_submissions=[summary(s) for s in bot.failed],
    )


def _readable(ctx: Context, grant: ReadToken, name: str) -> AuthorBot:
    """The caller's bot *name* with its versions.

    :raises ApiError: 404 for an unknown bot; 403 (PermissionDenied) for another's.
    """
    viewer = Viewer.of(grant.actor)
    try:
        found = check_may_read_bot(ctx.engine, name, viewer)
    except (PermissionDenied, AmbiguousName):
        raise
    except StorageError as exc:
        if exc.__cause__ is not None:  # the database failed: not an unknown bot
            raise
        raise not_found(str(exc)) from None
    mine = [b for b in author_bots(ctx.engine, found.owner_id, viewer) if b.id == found.id]
    if not mine:
        raise not_found(f"no bot named {name[:70]!r}")
    return mine[0]


@router.get(
    "/bots",
    response_model=schemas.Bots,
    responses=responses(401, 403, 429, 503),
    summary="Your bots, their versions and states",
)
def list_bots(ctx: Context, grant: ReadToken) -> schemas.Bots:
    """Every bot you own with each version's state, and your failed submissions."""
    viewer = Viewer.of(grant.actor)
    bots = author_bots(ctx.engine, grant.actor.id, viewer)
    unstored = unstored_submissions(ctx.engine, grant.actor.id, viewer)
    return schemas.Bots(
        bots=[_bot(b) for b in bots], unstored_submissions=[summary(s) for s in unstored]
    )


@router.get(
    "/bots/{name}",
    response_model=schemas.Bot,
    responses=responses(400, 401, 403, 404, 429, 503),
    summary="One of your bots",
)
def get_bot(ctx: Context, grant: ReadToken, name: BotName) -> schemas.Bot:
    """403 ``forbidden`` for another user's bot, 404 for an unknown one."""
    return _bot(_readable(ctx, grant, name))


@router.get(
    "/bots/{name}/games",
    response_model=schemas.GamePage,
    responses=responses(400, 401, 403, 404, 429, 503),
    summary="Your bot's games, newest first, a page at a time",
)
def list_games(
    ctx: Context,
    grant: ReadToken,
    name: BotName,
    after: Annotated[int | None, Query(ge=1, description="Only games with a smaller id")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    version: Annotated[
        str | None, Query(max_length=80, description="Label, version or seq")
    ] = None,
) -> schemas.GamePage:
    """Games of every version (or of *version*), with the bot's seats, faults and time
    per decision; ``next`` is the next page's URL (keyset: ``after`` the last id)."""
    bot = _readable(ctx, grant, name)
    labels = bot_version_labels(ctx.engine, bot.id)
    chosen = set(labels)
    if version is not None:
        try:
            chosen = {version_of(bot, version).id}
        except StorageError as exc:
            raise not_found(str(exc)) from None
    rows = bot_games(
        ctx.engine, chosen, Viewer.of(grant.actor), labels, after=after, limit=limit + 1
    )
    page = rows[:limit]
    following = None
    if len(rows) > limit:
        query = {"after": page[-1].game_id, "limit": limit} | (
            {"version": version} if version else {}
        )
        following = f"/api/v1/bots/{quote(bot.name, safe='')}/games?{urlencode(query)}"
    return schemas.GamePage(
        games=[
            schemas.GameSummary(
                id=g.game_id,
                tournament=g.tournament,
                private=g.private,
                schedule_index=g.schedule_index,
                created_at=utc(g.created_at),
                version=g.version,
                seats=list(g.seats),
                faults=g.faults,
                timing=schemas.Timing(
                    decisions=g.timing.decisions,
                    mean_ms=g.timing.mean_ms,
                    p99_ms=g.timing.p99_ms,
                    max_ms=g.timing.max_ms,
                ),
            )
            for g in page
        ],
        next=following,
    )
