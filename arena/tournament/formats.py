"""Tournament formats: small classes that turn entrants into a fixed schedule of games
(cutechess-style: the format only pairs, it never plays or stores).

A schedule is deterministic: the same entrants, boards and board seeds give the same games
in the same order, which is what lets a killed tournament resume exactly where it stopped.
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final

MAX_GAMES: Final = 100_000
"""The longest schedule the arena makes (a schedule is held in memory; at about a second a
game this is already days of play): larger tournaments are refused before anything is made."""

BoardSeeds = Callable[[int], int]
"""Board number -> the board's seed (its deal key)."""
TableSeeds = Callable[[int, int], int]
"""(table index, board number) -> the seed of that table's board: the same for every table
when a board is dealt alike everywhere, its own for each table otherwise
(:func:`arena.tournament.deals.table_seeds`)."""

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
    """The board's seed (deal key): the same deals under every seating of the board."""
    first_dealer: int
    entrants: tuple[int, int, int]
    """Per seat, the position of the entrant in the tournament's entry list."""


class TournamentFormat(ABC):
    """Base of all formats: a name and a schedule."""

    name: ClassVar[str]
    board_size: ClassVar[int] = len(SEATINGS)
    """Games per board (ratings per board use consecutive blocks of this size)."""
    fixed_schedule: ClassVar[bool] = True
    """The whole schedule follows from the settings (:meth:`schedule`); ``False`` for a
    format that chooses its tables while it plays and stores each before playing it."""

    @abstractmethod
    def tables(self, entrants: int) -> list[tuple[int, int, int]]:
        """The 3-entrant tables, as positions in the entry list."""

    def table_count(self, entrants: int) -> int:
        """How many tables :meth:`tables` gives, without listing them."""
        return len(self.tables(entrants))

    def games_total(self, entrants: int, boards: int) -> int:
        """How many games the schedule has, by arithmetic (nothing is listed).

        :raises ValueError: if the schedule would exceed :data:`MAX_GAMES` games.
        """
        total = self.table_count(entrants) * boards * self.board_size
        if total > MAX_GAMES:
            raise ValueError(
                f"{boards} board(s) would make {total} games; the limit is {MAX_GAMES} "
                "(use fewer boards or bots)"
            )
        return total

    def schedule(self, entrants: int, boards: int, seed: TableSeeds | int) -> list[ScheduledGame]:
        """Every game: board by board, each board on every table, each under 6 seatings.

        Board-major order spreads every table over the whole run, so standings shown while
        a tournament runs are fair to all entrants. *seed* gives each table's board its
        seed (see :func:`arena.tournament.deals.table_seeds`); a plain integer ``s`` is the
        legacy rule, board seed ``s + board`` at every table.

        :raises ValueError: as :meth:`games_total` does.
        """
        self.games_total(entrants, boards)
        seed_of = _legacy_seeds(seed) if isinstance(seed, int) else seed
        tables = self.tables(entrants)
        games: list[ScheduledGame] = []
        for board in range(boards):
            for table_index, table in enumerate(tables):
                board_seed = seed_of(table_index, board)
                games.extend(board_games(len(games), table_index, board, board_seed, table))
        return games


def board_games(
    start: int, table_index: int, board: int, seed: int, table: tuple[int, int, int]
) -> list[ScheduledGame]:
    """The 6 games of one board on one table (schedule indexes from *start*): the same
    deals (*seed*) under every seating, the first dealer turning with the board."""
    return [
        ScheduledGame(
            schedule_index=start + seating_index,
            table_index=table_index,
            board_index=board,
            seating_index=seating_index,
            seed=seed,
            first_dealer=board % 3,
            entrants=(table[seating[0]], table[seating[1]], table[seating[2]]),
        )
        for seating_index, seating in enumerate(SEATINGS)
    ]


def _legacy_seeds(seed: int) -> TableSeeds:
    return lambda _table, board: seed + board


class RoundRobin(TournamentFormat):
    """Every combination of three entrants meets at a table."""

    name = "round_robin"

    def tables(self, entrants: int) -> list[tuple[int, int, int]]:
        if entrants < 3:
            raise ValueError(f"a round robin needs at least 3 bots, got {entrants}")
        return [(a, b, c) for a, b, c in itertools.combinations(range(entrants), 3)]

    def table_count(self, entrants: int) -> int:
        if entrants < 3:
            raise ValueError(f"a round robin needs at least 3 bots, got {entrants}")
        return math.comb(entrants, 3)


class Ladder(TournamentFormat):
    """A standing competition: each match is one board (6 games) on a table the matchmaker
    (:mod:`arena.tournament.matchmaker`) chooses from the current ratings, stored before it
    is played (:mod:`arena.tournament.ladder`). Match *m* is board *m*, on table *m*, with
    schedule indexes ``6m .. 6m + 5``."""

    name = "ladder"
    fixed_schedule = False

    def tables(self, entrants: int) -> list[tuple[int, int, int]]:
        raise ValueError("a ladder chooses its tables while it plays; it has no fixed list")

    def check_entrants(self, entrants: int) -> None:
        """:raises ValueError: for fewer than 3 entrants."""
        if entrants < 3:
            raise ValueError(f"a ladder needs at least 3 bots, got {entrants}")

    def match_games(
        self, match_index: int, seed: int, table: tuple[int, int, int]
    ) -> list[ScheduledGame]:
        """The games of match *match_index* on *table* (entry positions), whose board seed
        is *seed*."""
        start = match_index * self.board_size
        return board_games(start, match_index, match_index, seed, table)


FORMATS: dict[str, type[TournamentFormat]] = {RoundRobin.name: RoundRobin, Ladder.name: Ladder}
"""Formats by name (Swiss or gauntlet formats subclass TournamentFormat and register here)."""


def get_format(name: str) -> TournamentFormat:
    """The format called *name*.

    :raises ValueError: for an unknown format.
    """
    try:
        return FORMATS[name]()
    except KeyError:
        raise ValueError(f"unknown format {name!r}; choose from: {', '.join(FORMATS)}") from None
