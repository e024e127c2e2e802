"""A person's games against bots (docs/play.md): the rows the Play page and the game's
runner share.

The page (the person's browser session) writes only two things: a new game, and the
person's answer to the decision the runner asked, checked against the asking request's
number and the game's owner. The runner writes the rest: the seat's view, the decision
asked, the end. Everything the page shows comes from these rows, which hold only the
person's own seat's view (:mod:`arena.play.view`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta
from typing import Final

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from arena.storage.database import StorageError, database_errors, read_session, write_session
from arena.storage.models import PlayGame, row_id, utcnow
from arena.storage.settings import get_int
from arena.storage.users import Actor

OPEN: Final = ("starting", "playing")
"""A game in these states has a runner (or is about to)."""
QUOTA_WINDOW: Final = timedelta(hours=1)
"""The test-match quota's window (:mod:`arena.storage.test_matches`): a person's game
counts as one board of the same ``test_boards_per_hour``."""


STALE_MARGIN: Final = timedelta(minutes=2)
"""How much longer than a decision's time an open game may stay silent before it counts as
lost (its runner killed, its host gone): the person may then start another."""


class PlayRefused(StorageError):
    """The game cannot start (a game already open, the quota spent); one line."""


@database_errors
def create_play_game(
    engine: Engine,
    by: Actor,
    *,
    opponents: Sequence[str],
    ruleset: str,
    seat: int,
    decision_seconds: int,
    house_bot: str | None = None,
) -> int:
    """Store a new game for *by* (not yet started); its id.

    :raises PlayRefused: if *by* has a game open already, or (a participant) has spent the
        hour's test-match quota (``test_boards_per_hour``: a game counts as one board).
    """
    quota = None if by.is_organiser else get_int(engine, "test_boards_per_hour")
    with write_session(engine) as session:
        mine = select(PlayGame).where(PlayGame.user_id == by.id)
        for game in session.exec(mine.where(col(PlayGame.status).in_(OPEN))).all():
            if not is_stale(game):
                raise PlayRefused("you have a game open already: finish it (or let it time out)")
            game.status, game.message = "failed", "its runner stopped without ending it"
            game.pending, game.finished_at = None, utcnow()
            session.add(game)
        if quota is not None:
            since = utcnow() - QUOTA_WINDOW
            used = session.exec(
                select(func.count())
                .select_from(PlayGame)
                .where(PlayGame.user_id == by.id, col(PlayGame.created_at) > since)
            ).one()
            if used >= quota:
                raise PlayRefused(
                    f"quota: {quota} game(s) or test board(s) per hour, all used; try later"
                )
        game = PlayGame(
            user_id=by.id,
            opponents=json.dumps(list(opponents)),
            ruleset=ruleset,
            seat=seat,
            decision_seconds=decision_seconds,
            house_bot=house_bot,
        )
        session.add(game)
        session.commit()
        return row_id(game)


def is_stale(game: PlayGame) -> bool:
    """An open game whose runner has written nothing for longer than a person's decision
    may take (plus :data:`STALE_MARGIN`) has lost its runner: a live runner's person would
    have timed out by then, and the autopilot finishes a game in seconds."""
    return utcnow() - game.updated_at > timedelta(seconds=game.decision_seconds) + STALE_MARGIN


@database_errors
def get_play_game(engine: Engine, game_id: int) -> PlayGame | None:
    """The game's row, or ``None``."""
    with read_session(engine) as session:
        return session.get(PlayGame, game_id)


@database_errors
def list_play_games(engine: Engine, user_id: int, limit: int = 20) -> list[PlayGame]:
    """The person's games, newest first."""
    with read_session(engine) as session:
        statement = (
            select(PlayGame)
            .where(PlayGame.user_id == user_id)
            .order_by(col(PlayGame.id).desc())
            .limit(limit)
        )
        return list(session.exec(statement).all())


def _update(engine: Engine, game_id: int, **values: object) -> PlayGame:
    with write_session(engine) as session:
        game = session.get(PlayGame, game_id)
        if game is None:
            raise StorageError(f"no game {game_id} on the Play page")
        for name, value in values.items():
            setattr(game, name, value)
        game.updated_at = utcnow()
        session.add(game)
        session.commit()
        return game


@database_errors
def set_runner(engine: Engine, game_id: int, pid: int) -> None:
    """The runner process playing the game."""
    _update(engine, game_id, runner_pid=pid)


@database_errors
def set_players(engine: Engine, game_id: int, players: Sequence[str]) -> None:
    """The game has started with these three labels."""
    _update(engine, game_id, players=json.dumps(list(players)), status="playing")


@database_errors
def set_view(engine: Engine, game_id: int, view: str) -> None:
    """The seat's latest view (JSON)."""
    _update(engine, game_id, view=view)


@database_errors
def ask(engine: Engine, game_id: int, request_no: int, pending: str) -> None:
    """Ask the person decision *request_no* (its JSON); any older answer is void."""
    _update(engine, game_id, request_no=request_no, pending=pending)


@database_errors
def take_answer(engine: Engine, game_id: int, request_no: int) -> str | None:
    """The person's answer to *request_no*, once it is there (then nothing is pending)."""
    with write_session(engine) as session:
        game = session.get(PlayGame, game_id)
        if game is None or game.answer_no != request_no or game.answer is None:
            return None
        answer = game.answer
        game.pending = None
        game.updated_at = utcnow()
        session.add(game)
        session.commit()
        return answer


@database_errors
def withdraw_question(engine: Engine, game_id: int) -> None:
    """Nothing is asked of the person any more (their time ran out)."""
    _update(engine, game_id, pending=None)


@database_errors
def give_answer(engine: Engine, game_id: int, by: Actor, request_no: int, answer: str) -> bool:
    """The page writes the person's *answer* to decision *request_no*; whether it was taken
    (``False``: not their game, or that decision is no longer asked)."""
    with write_session(engine) as session:
        game = session.get(PlayGame, game_id)
        if game is None or game.user_id != by.id or game.status != "playing":
            return False
        if game.pending is None or game.request_no != request_no or game.answer_no == request_no:
            return False
        game.answer_no, game.answer = request_no, answer
        game.updated_at = utcnow()
        session.add(game)
        session.commit()
        return True


@database_errors
def finish_play_game(
    engine: Engine, game_id: int, status: str, message: str, record: str | None = None
) -> None:
    """The game ended (``finished``) or could not be played (``failed``)."""
    _update(
        engine,
        game_id,
        status=status,
        message=message,
        record=record,
        pending=None,
        finished_at=utcnow(),
    )


@database_errors
def set_house_game(engine: Engine, game_id: int, record: str | None, message: str = "") -> None:
    """The house bot's game on the same deal: its record, or why it could not be played."""
    _update(engine, game_id, house_record=record, house_message=message)
