"""A person's games against bots on the Play page (docs/play.md): one row per game.

The row is the meeting point of the page (the person's browser session, in the dashboard's
process) and the game's runner (its own process, :mod:`arena.play.runner`). It holds only
what the person's seat may know: ``view`` and ``pending`` are built from
``observe(state, seat)`` alone (:mod:`arena.play.view`), never from the state. Its finished
``record`` is an ordinary ``arena952.game/1`` record whose player is ``human:USER``; it is
kept here, not in ``game``, so it enters no tournament, rating or standings.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Text
from sqlmodel import Field, SQLModel

from arena.storage.models.columns import utc_field


class PlayGame(SQLModel, table=True):
    """One person's game at the Play page's table."""

    __tablename__ = "play_game"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="arena_user.id", index=True)
    opponents: str = Field(sa_type=Text)
    """JSON list of the two opponents as chosen (bot names or ``builtin:...``)."""
    players: str | None = Field(default=None, sa_type=Text, nullable=True)
    """JSON list of the three seats' labels once the game started (bot names: escape)."""
    ruleset: str = Field(max_length=64)
    seat: int
    """The person's seat, 0 to 2."""
    decision_seconds: int
    """The person's time per decision."""
    status: str = Field(max_length=16, default="starting")
    """``starting``, ``playing``, ``finished`` or ``failed``."""
    message: str = Field(default="", sa_type=Text)
    """One line: why it failed, or how it ended."""
    runner_pid: int | None = Field(default=None, nullable=True)
    view: str | None = Field(default=None, sa_type=Text, nullable=True)
    """JSON of the seat's latest view (:func:`arena.play.view.seat_view`)."""
    request_no: int = 0
    """The number of the latest decision asked of the person (0: none yet)."""
    pending: str | None = Field(default=None, sa_type=Text, nullable=True)
    """JSON of the decision asked now (its number, kind, options, deadline); ``None`` while
    the person has nothing to decide."""
    answer_no: int = 0
    """The request number :attr:`answer` answers."""
    answer: str | None = Field(default=None, sa_type=Text, nullable=True)
    """The person's decision as text (``play TS``), written by the page."""
    record: str | None = Field(default=None, sa_type=Text, nullable=True)
    """The finished game's ``arena952.game/1`` record (JSON)."""
    house_bot: str | None = Field(default=None, max_length=64, nullable=True)
    """The house bot that plays the same deal in the person's seat afterwards, against the
    same opponents (duplicate for people), or ``None``."""
    house_record: str | None = Field(default=None, sa_type=Text, nullable=True)
    """That game's record (JSON), once played."""
    house_message: str = Field(default="", sa_type=Text)
    """One line when the house bot's game could not be played."""
    created_at: datetime = utc_field()
    updated_at: datetime = utc_field()
    finished_at: datetime | None = utc_field(nullable=True)
