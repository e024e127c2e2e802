"""Deal groups: the games dealt from one key, checked against the real schedules (the
schedule's board seeds are the deal keys, so games with equal seeds share their deals)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from arena.game.dealing import HMAC_SHUFFLE
from arena.storage.models import BOARD_DEALS, TABLE_DEALS
from arena.tournament import compare
from arena.tournament.deal_groups import deal_group
from arena.tournament.deals import board_seeds, table_seeds
from arena.tournament.formats import Ladder, RoundRobin, ScheduledGame

SECRET = "ab" * 32


def _groups_by_seed(games: Iterable[ScheduledGame]) -> dict[int, set[int]]:
    """Seed -> schedule indexes dealt from it."""
    groups: dict[int, set[int]] = {}
    for game in games:
        groups.setdefault(game.seed, set()).add(game.schedule_index)
    return groups


def _check(games: list[ScheduledGame], format_name: str, scope: str, entrants: int) -> None:
    by_seed = _groups_by_seed(games)
    assert len(by_seed) > 1  # several groups, or the check would be empty
    for game in games:
        group = deal_group(format_name, scope, entrants, game.schedule_index)
        assert set(group) == by_seed[game.seed], (format_name, scope, game.schedule_index)


@pytest.mark.parametrize("entrants", [3, 4, 5])
@pytest.mark.parametrize("scope", [TABLE_DEALS, BOARD_DEALS])
def test_round_robin_groups_are_the_games_with_the_same_deal_key(entrants: int, scope: str) -> None:
    seeds = table_seeds(HMAC_SHUFFLE, None, SECRET, scope)
    games = RoundRobin().schedule(entrants, 3, seeds)
    _check(games, RoundRobin.name, scope, entrants)


def test_round_robin_group_sizes() -> None:
    # 5 entrants: 10 tables, so a board dealt alike everywhere is 60 games.
    assert deal_group(RoundRobin.name, TABLE_DEALS, 5, 13) == range(12, 18)
    assert deal_group(RoundRobin.name, BOARD_DEALS, 5, 61) == range(60, 120)


def test_ladder_groups_are_its_matches() -> None:
    seeds = board_seeds(HMAC_SHUFFLE, None, SECRET)
    tables = [(0, 1, 2), (1, 3, 4), (0, 2, 4), (2, 3, 5)]
    games = [
        game
        for match, table in enumerate(tables)
        for game in Ladder().match_games(match, seeds(match), table)
    ]
    # Ladders are stored with board deals; each match is still its own board.
    _check(games, Ladder.name, BOARD_DEALS, 6)


def test_version_test_groups_are_both_tables_of_a_board() -> None:
    seeds = board_seeds(HMAC_SHUFFLE, None, SECRET)
    games = [game for board in range(3) for game in compare.board_schedule(board, seeds(board))]
    _check(games, compare.FORMAT, BOARD_DEALS, 4)
    assert deal_group(compare.FORMAT, BOARD_DEALS, 4, 23) == range(12, 24)


@pytest.mark.parametrize(
    ("format_name", "scope", "entrants", "index", "message"),
    [
        ("swiss", BOARD_DEALS, 4, 0, "no deal groups known"),
        (RoundRobin.name, "planet", 4, 0, "unknown deal scope"),
        (RoundRobin.name, TABLE_DEALS, 4, -1, "not negative"),
        (RoundRobin.name, BOARD_DEALS, 2, 0, "at least 3 bots"),
    ],
)
def test_what_has_no_group_is_refused(
    format_name: str, scope: str, entrants: int, index: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        deal_group(format_name, scope, entrants, index)
