"""Tournament formats: small classes that turn entrants into a fixed schedule of games
(cutechess-style: the format only pairs, it never plays or stores).

A schedule is deterministic: the same entrants, boards and seed give the same games in the
same order, which is what lets a killed tournament resume exactly where it stopped.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

SEATINGS: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (0, 2, 1),
    (1, 0, 2),
    (1, 2, 0),
    (2, 0, 1),
    (2, 1, 0),
)
"""The 6 ways to seat a table's three bots (``itertools.permutations`` order); seating
``s`` puts table bot ``SEATINGS[s][i]`` in seat ``i``."""


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of a tournament, fully determined before anything is played."""

    schedule_index: int
    """Position in the schedule, from 0; ratings are applied in this order."""
    table_index: int
    board_index: int
    seating_index: int
    seed: int
    """The board's seed: the same deals under every seating of the board."""
    first_dealer: int
    entrants: tuple[int, int, int]
    """Per seat, the position of the entrant in the tournament's entry list."""


class TournamentFormat(ABC):
    """Base of all formats: a name and a schedule."""

    name: ClassVar[str]
    board_size: ClassVar[int] = len(SEATINGS)
    """Games per board (ratings per board use consecutive blocks of this size)."""

    @abstractmethod
    def tables(self, entrants: int) -> list[tuple[int, int, int]]:
        """The 3-entrant tables, as positions in the entry list."""

    def schedule(self, entrants: int, boards: int, seed: int) -> list[ScheduledGame]:
        """Every game: board by board, each board on every table, each under 6 seatings.

        Board-major order spreads every table over the whole run, so standings shown while
        a tournament runs are fair to all entrants.
        """
        tables = self.tables(entrants)
        games: list[ScheduledGame] = []
        for board in range(boards):
            for table_index, table in enumerate(tables):
                for seating_index, seating in enumerate(SEATINGS):
                    games.append(
                        ScheduledGame(
                            schedule_index=len(games),
                            table_index=table_index,
                            board_index=board,
                            seating_index=seating_index,
                            seed=seed + board,
                            first_dealer=board % 3,
                            entrants=(table[seating[0]], table[seating[1]], table[seating[2]]),
                        )
                    )
        return games


class RoundRobin(TournamentFormat):
    """Every combination of three entrants meets at a table."""

    name = "round_robin"

    def tables(self, entrants: int) -> list[tuple[int, int, int]]:
        if entrants < 3:
            raise ValueError(f"a round robin needs at least 3 bots, got {entrants}")
        return [(a, b, c) for a, b, c in itertools.combinations(range(entrants), 3)]


FORMATS: dict[str, type[TournamentFormat]] = {RoundRobin.name: RoundRobin}
"""Formats by name (Swiss or gauntlet formats subclass TournamentFormat and register here)."""


def get_format(name: str) -> TournamentFormat:
    """The format called *name*.

    :raises ValueError: for an unknown format.
    """
    try:
        return FORMATS[name]()
    except KeyError:
        raise ValueError(f"unknown format {name!r}; choose from: {', '.join(FORMATS)}") from None
