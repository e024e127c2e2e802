"""Deal groups: which games of a tournament are dealt from the same deal key.

A duplicate board is played under every seating on the same deals, so the cards of one
stored game are the cards of the games of its group still to be played. Whoever shows
stored games while a tournament with secret deals runs (the dashboard's Replays page) asks
here which schedule indexes a game shares its deals with, and holds its cards back until
all of them are stored. Pure arithmetic on the schedule's layout, no I/O.
"""

from __future__ import annotations

from arena.storage.models import BOARD_DEALS, TABLE_DEALS
from arena.tournament import compare
from arena.tournament.formats import Ladder, RoundRobin


def deal_group(format_name: str, deal_scope: str, entrants: int, schedule_index: int) -> range:
    """The schedule indexes (a half-open range) dealt from the same key as game
    *schedule_index* of a tournament of format *format_name* with *deal_scope* and
    *entrants* entrants (which fixes a round robin's table count).

    - round robin, ``table`` deals: one table's board, its 6 seatings ``6k .. 6k + 5``;
    - round robin, ``board`` deals: board *n* at every table, the board's whole block of
      ``6 * tables`` indexes (the schedule is board-major);
    - ladder: match *m*, indexes ``6m .. 6m + 5`` (each match is its own board);
    - version test: board *b*, both tables, indexes ``12b .. 12b + 11``.

    :raises ValueError: for an unknown format or scope, a negative index, or a round robin
        of fewer than 3 entrants.
    """
    if schedule_index < 0:
        raise ValueError(f"a schedule index is not negative, got {schedule_index}")
    size = _group_size(format_name, deal_scope, entrants)
    start = schedule_index - schedule_index % size
    return range(start, start + size)


def _group_size(format_name: str, deal_scope: str, entrants: int) -> int:
    """Games per deal key; the groups tile the schedule from index 0."""
    if format_name == RoundRobin.name:
        if deal_scope == TABLE_DEALS:
            return RoundRobin.board_size
        if deal_scope == BOARD_DEALS:
            return RoundRobin.board_size * RoundRobin().table_count(entrants)
        raise ValueError(f"unknown deal scope {deal_scope!r}")
    if format_name == Ladder.name:
        return Ladder.board_size  # deal_scope is "board", but each board is one match
    if format_name == compare.FORMAT:
        return compare.GAMES_PER_BOARD
    raise ValueError(f"no deal groups known for format {format_name!r}")


__all__ = ["deal_group"]
