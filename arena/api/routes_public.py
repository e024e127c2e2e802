"""The public routes: ``GET /games/{id}`` and ``GET /tournaments/{name}/standings``.

Anyone may read them without a token, as a spectator, unless the arena is private
(``ARENA_DASHBOARD_PRIVATE``: a token with ``read`` then). With a token, the caller reads
as its participant: a game's record through
:func:`arena.storage.workspace.viewable_record` (their own seats' logs and fault details,
everyone else's hidden), and a private tournament (a test match) only if it is theirs; to
anyone else it does not exist (404). A game's cards are held back while games dealt alike
are unplayed (409 ``held_back``, :mod:`arena.tournament.held_back`), for every caller.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from arena import storage
from arena.api import schemas
from arena.api.auth import Context, Reader
from arena.api.errors import ApiError, not_found, responses
from arena.storage.database import StorageError
from arena.storage.privacy import Viewer
from arena.storage.standings import standings_json, without_retired
from arena.storage.workspace import viewable_record
from arena.tournament.held_back import game_held_back

router = APIRouter()


@router.get(
    "/games/{game_id}",
    response_model=schemas.GameRecord,
    responses=responses(400, 401, 403, 404, 409, 429, 503),
    summary="A game's record, as you may read it",
)
def get_game(ctx: Context, grant: Reader, game_id: Annotated[int, Path(ge=1)]) -> Any:
    """The ``arena952.game/1`` record: the logs and fault details of your own bots' seats
    only (none without a token). 409 ``held_back`` while its cards are held back."""
    viewer = Viewer.of(grant.actor if grant is not None else None)
    try:
        record = viewable_record(ctx.engine, game_id, viewer)
    except StorageError as exc:
        if exc.__cause__ is not None:  # the database failed: not an unknown game
            raise
        raise not_found(f"no game with id {game_id}") from None
    held = game_held_back(ctx.engine, game_id)
    if held is not None:
        raise ApiError(409, "held_back", held.notice())
    return record


@router.get(
    "/tournaments/{name}/standings",
    response_model=schemas.Standings,
    responses=responses(400, 401, 403, 404, 429, 503),
    summary="A tournament's standings (arena standings NAME --json)",
)
def get_standings(
    ctx: Context,
    grant: Reader,
    name: Annotated[str, Path(min_length=1, max_length=200)],
    show_all: Annotated[
        bool, Query(alias="all", description="Retired ladder versions too (--all)")
    ] = False,
) -> Any:
    """Exactly ``arena standings NAME --json``'s object (``?all=true``: with ``--all``).
    A private tournament (a test match's) is 404 unless it is yours."""
    try:
        tournament = storage.get_tournament(ctx.engine, name)
    except StorageError as exc:
        if exc.__cause__ is not None:
            raise
        raise not_found(f"no tournament named {name[:70]!r}") from None
    private_to = tournament.private_to
    if private_to is not None and (grant is None or grant.actor.id != private_to):
        raise not_found(f"no tournament named {name[:70]!r}")
    tournament_id = storage.row_id(tournament)
    rows = storage.standings(ctx.engine, tournament_id)
    progress = storage.progress(ctx.engine, tournament_id)
    hidden = 0 if show_all else sum(row.retired for row in rows)
    if hidden:
        rows = without_retired(rows)
    return standings_json(tournament.name, rows, tournament.arena_faults, progress, hidden)
