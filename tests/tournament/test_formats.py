"""Round-robin schedules: every 3-bot table, duplicate boards under all 6 seatings."""

from __future__ import annotations

import itertools

import pytest

from arena.tournament.formats import SEATINGS, RoundRobin, get_format


@pytest.mark.parametrize(("bots", "tables"), [(3, 1), (4, 4), (5, 10), (6, 20)])
def test_every_combination_is_a_table(bots: int, tables: int) -> None:
    assert len(RoundRobin().tables(bots)) == tables
    schedule = RoundRobin().schedule(bots, boards=2, seed=100)
    assert len(schedule) == tables * 2 * 6
    assert [g.schedule_index for g in schedule] == list(range(len(schedule)))


def test_a_board_is_one_seed_under_all_six_seatings() -> None:
    schedule = RoundRobin().schedule(4, boards=3, seed=7)
    for (table, board), group in itertools.groupby(
        sorted(schedule, key=lambda g: (g.table_index, g.board_index)),
        key=lambda g: (g.table_index, g.board_index),
    ):
        games = list(group)
        assert len(games) == 6
        assert {g.seed for g in games} == {7 + board}
        assert len({g.first_dealer for g in games}) == 1  # only the seating changes
        assert {g.entrants for g in games} == {
            tuple(RoundRobin().tables(4)[table][i] for i in seating) for seating in SEATINGS
        }
        for entrant in set(RoundRobin().tables(4)[table]):
            assert sorted(g.entrants.index(entrant) for g in games) == [0, 0, 1, 1, 2, 2]


def test_table_seeds_give_each_table_its_own_boards() -> None:
    schedule = RoundRobin().schedule(4, boards=2, seed=lambda table, board: 100 * table + board)
    for game in schedule:
        assert game.seed == 100 * game.table_index + game.board_index
    assert len({g.seed for g in schedule}) == 4 * 2
    # Control: the legacy integer seed deals board n alike at every table.
    assert len({g.seed for g in RoundRobin().schedule(4, boards=2, seed=7)}) == 2


def test_schedule_is_deterministic_and_board_major() -> None:
    a = RoundRobin().schedule(4, boards=2, seed=1)
    assert a == RoundRobin().schedule(4, boards=2, seed=1)
    assert [g.board_index for g in a[:24]] == [0] * 24  # board 0 on every table first


def test_too_few_bots_and_unknown_format() -> None:
    with pytest.raises(ValueError, match="at least 3 bots"):
        RoundRobin().schedule(2, boards=1, seed=0)
    with pytest.raises(ValueError, match="unknown format"):
        get_format("swiss-ish")
