"""A person's seat: the referee asks a desk, not a process, and checks the answer the same way.

A person plays through a :class:`PersonDesk` (the Play page's, :mod:`arena.play.desk`, goes
through the database). The game loop (:mod:`arena.referee.gameloop`) treats the seat like a
bot's in everything that matters to the game: the desk is given only
``observe(state, seat)`` (the seat's own observation, as a bot's request is built from),
the answer is applied through the same engine check (an illegal one is an ``illegal``
fault), a malformed one is a ``protocol`` fault, and a decision slower than the seat's own
time control is a ``timeout`` fault; after any fault the autopilot plays the seat to the end
of the game, exactly as for a bot (docs/protocol.md section 6.1). Only the clock differs: a
person has minutes per decision (:attr:`HumanSeat.time_control`), the bots of the same game
keep the match's milliseconds.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol

from arena.game.actions import Decision
from arena.game.observation import Observation
from arena.referee.errors import BotTimeout
from arena.referee.timecontrol import Clock, TimeControl

HUMAN_PREFIX = "human:"
"""The label of a person's seat in a record: ``human:USER``."""


class PersonDesk(Protocol):
    """Where a person's seat meets the person (the Play page's database rows)."""

    def show(self, observation: Observation) -> None:
        """The seat's observation after every decision of the game (and at its start and
        end), so that the person follows the table between their own turns. Must return at
        once; it is told nothing the seat may not know."""

    async def decide(self, observation: Observation, deadline_s: float) -> Decision:
        """The person's decision on *observation*'s request, as they gave it; the referee
        cancels the call at the deadline (*deadline_s* is given so the page can show it).

        :raises arena.referee.errors.BotProtocolError: if the answer is not a decision.
        """
        ...


@dataclass(frozen=True)
class HumanSeat:
    """A seat played by the logged-in person *user* through *desk*."""

    user: str
    desk: PersonDesk
    time_control: TimeControl
    """The person's own limits (minutes per decision); the bots keep the match's."""

    @property
    def label(self) -> str:
        """``human:USER``: how the record names the player."""
        return HUMAN_PREFIX + self.user


async def ask_person(
    seat: HumanSeat, observation: Observation, clock: Clock
) -> tuple[Decision, float]:
    """The person's decision and the seconds it took, within the seat's clock.

    :raises BotTimeout: if no decision came within the allowance (the person left or ran
        out of time: the autopilot plays the seat on, as for a bot).
    :raises arena.referee.errors.BotProtocolError: from the desk, for a malformed answer.
    """
    limit_s = clock.deadline_ms / 1000
    start = time.perf_counter()
    try:
        decision = await asyncio.wait_for(seat.desk.decide(observation, limit_s), limit_s)
    except TimeoutError:
        raise BotTimeout(
            f"no decision in {_duration(limit_s)}: the person left the table or ran out of time"
        ) from None
    elapsed = time.perf_counter() - start
    clock.charge(elapsed * 1000)
    return decision, elapsed


def _duration(seconds: float) -> str:
    """``5 min`` or ``12 s``: a person's limit as people say it."""
    if seconds >= 120:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"
