"""The observation a decision method receives: the seat's, at its own turn.

The engine's :class:`~arena.game.Observation` serves every moment of a game, so its
``request`` is ``None`` while another seat is to act. A decision is only ever asked of the
seat to act, so the SDK hands its decision methods a :class:`Turn`: the same observation
with ``request`` always set, which a bot reads without checking it first.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from arena.game import Observation, Request

# Every name the inherited fields' annotations use (strings, from arena.game.observation).
# The dataclass ``__init__`` of Turn is made in this module and reads them here, so
# ``typing.get_type_hints(Turn.__init__)`` and the SDK reference (scripts/build_reference.py)
# resolve them. All are loaded with arena.game already: no import cost.
from arena.game.cards import Card, Trump  # noqa: F401
from arena.game.ending import GameResult  # noqa: F401
from arena.game.observation import HandSummary, LegView, ShowView, TrickView  # noqa: F401
from arena.game.rules import RuleSet  # noqa: F401
from arena.game.state import Phase, Seat  # noqa: F401

_FIELDS = tuple(field.name for field in fields(Observation))


@dataclass(frozen=True, slots=True)
class Turn(Observation):
    """An :class:`~arena.game.Observation` of the seat to act: ``request`` is never ``None``.

    It is an ``Observation`` (a method that takes one takes a turn), so a bot written
    against ``Observation`` keeps working."""

    request: Request
    """The decision to take now, with its legal options."""

    @classmethod
    def of(cls, obs: Observation) -> Turn:
        """*obs* as a turn (itself if it is one already).

        :raises ValueError: if *obs* has no request (its seat is not to act).
        """
        if isinstance(obs, Turn):
            return obs
        if obs.request is None:
            raise ValueError(f"seat {obs.seat} has nothing to decide in this observation")
        return cls(*(getattr(obs, name) for name in _FIELDS))
