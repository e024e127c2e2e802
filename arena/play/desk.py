"""The person's desk in the database: the referee's side of the Play page.

:class:`DatabaseDesk` is the :class:`~arena.referee.human_seat.PersonDesk` of a game on the
Play page. It writes the seat's view after every decision and, when the seat must decide,
a pending decision holding only that seat's options; then it polls the row for the answer
the page writes. The referee bounds the wait by the person's time control and applies the
answer through the engine's own check, so a forged answer is refused there like a bot's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Final

from sqlalchemy.engine import Engine

from arena.game.actions import Decision, parse_decision
from arena.game.cards import InvalidCardError
from arena.game.observation import Observation
from arena.play.view import pending_decision, seat_view
from arena.referee.errors import BotProtocolError
from arena.storage import play_games

LOGGER = logging.getLogger(__name__)

POLL_SECONDS: Final = 0.05
"""How often the runner looks for the person's answer (a read of one row by key)."""


class DatabaseDesk:
    """Game *game_id*'s seat, shown and asked through its ``play_game`` row."""

    def __init__(self, engine: Engine, game_id: int, players: list[str]) -> None:
        self.engine = engine
        self.game_id = game_id
        self.players = players
        self.asked = 0
        """Decisions asked so far (the request numbers)."""
        self._previous: Observation | None = None
        self.answered_at: list[float] = []
        """When each answer was read (``time.time()``), for the latency benchmark."""

    def show(self, observation: Observation) -> None:
        view = seat_view(observation, self.players, self._previous)
        self._previous = observation
        play_games.set_view(self.engine, self.game_id, json.dumps(view))

    async def decide(self, observation: Observation, deadline_s: float) -> Decision:
        self.asked += 1
        number = self.asked
        pending = pending_decision(observation, number, time.time() + deadline_s, self.players)
        play_games.ask(self.engine, self.game_id, number, json.dumps(pending))
        try:
            while True:
                answer = play_games.take_answer(self.engine, self.game_id, number)
                if answer is not None:
                    break
                await asyncio.sleep(POLL_SECONDS)
        except asyncio.CancelledError:  # the person's time ran out: nothing is asked now
            play_games.withdraw_question(self.engine, self.game_id)
            raise
        self.answered_at.append(time.time())
        try:
            return parse_decision(answer)
        except InvalidCardError as exc:
            raise BotProtocolError(f"malformed answer: {exc}") from None
