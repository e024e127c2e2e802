"""Travellers, swings and the by-contract measure against values computed here by hand
from the stored records, on a 4-bot round robin whose tables have their own deals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.analysis import analyse, to_json
from arena.storage.models import BOARD_DEALS
from arena.storage.privacy import ORGANISER
from arena.storage.travellers import duplicate_games
from tests.analysis.support import Cup, cup_url, make_cup


def _never(*_: Any) -> bool:
    return False


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Cup:
    return make_cup(cup_url(tmp_path_factory.mktemp("cup")))


def _expected_travellers(cup: Cup, bot: str, games: list[int]) -> dict[tuple[int, int], Any]:
    """(first schedule index of the group, seat) -> rows and field mean, by hand: the games
    *games* (schedule indexes) form one group; every seat the bot held in it."""
    out = {}
    for seat in range(3):
        rows = []
        for index in games:
            record = cup.records[index]
            player = record["players"][seat]
            rows.append(
                (
                    player,
                    record["result"]["scores"][seat],
                    [h["tricks_won"][seat] for h in record["hands"]],
                    [h["contracts"][seat] for h in record["hands"]],
                    player.startswith(bot + "@"),
                )
            )
        if any(r[4] for r in rows):
            field = [r[1] for r in rows if not r[4]]
            out[(games[0], seat)] = (rows, sum(field) / len(field))
    return out


def test_travellers_match_the_hand_computed_ones(cup: Cup) -> None:
    gathered = duplicate_games(cup.engine, "cup", "alpha", ORGANISER, _never)
    result = analyse(gathered.games, gathered.versions, bot="alpha", tournament="cup")
    # Per-table deals: table t's board is schedule indexes 6t .. 6t+5; alpha sits at
    # tables 0, 1, 2 (entrant 0 is at every table of 4 choose 3 that contains it).
    expected: dict[tuple[int, int], Any] = {}
    for table in range(4):
        expected |= _expected_travellers(cup, "alpha", list(range(6 * table, 6 * table + 6)))
    assert len(expected) == 9  # 3 tables x 3 seats
    got = {}
    for t in result.travellers:
        rows = [(r.player, r.score, list(r.tricks), list(r.contracts), r.mine) for r in t.rows]
        got[(min(r.game.schedule_index for r in t.rows), t.seat)] = (rows, t.field_mean())
    assert got == expected
    # Swings: alpha's score minus its traveller's field mean, every alpha row.
    swings = sorted(
        round(row[1] - mean, 9) for rows, mean in expected.values() for row in rows if row[4]
    )
    assert sorted(round(s.swing, 9) for s in result.swings) == swings
    assert [s.swing for s in result.swings] == sorted(s.swing for s in result.swings)
    # The control: grouping every seating of the board alike (ignoring the tables, wrong
    # for per-table deals) gives other travellers, which the comparison above would catch.
    wrong = _expected_travellers(cup, "alpha", list(range(24)))
    assert {k[1]: v[1] for k, v in wrong.items()} != {
        k[1]: v[1] for k, v in expected.items() if k[0] == 0
    }


def test_same_cards_in_the_same_seat(cup: Cup) -> None:
    """Every row of a traveller was dealt the same cards in its seat in every hand both
    games played; the games of another table were not (the control)."""
    gathered = duplicate_games(cup.engine, "cup", "alpha", ORGANISER, _never)
    result = analyse(gathered.games, gathered.versions, bot="alpha", tournament="cup")
    for t in result.travellers:
        first = t.rows[0].game.record["hands"]
        for row in t.rows[1:]:
            for a, b in zip(first, row.game.record["hands"], strict=False):
                assert sorted(a["deal"][t.seat]) == sorted(b["deal"][t.seat])
                assert a["contracts"] == b["contracts"]
    other_table = cup.records[6]["hands"][0]["deal"][0]
    assert sorted(other_table) != sorted(cup.records[0]["hands"][0]["deal"][0])


def test_by_contract_matches_the_hand_computed_edge(cup: Cup) -> None:
    gathered = duplicate_games(cup.engine, "cup", "charlie", ORGANISER, _never)
    result = analyse(gathered.games, gathered.versions, bot="charlie", tournament="cup")
    mine: dict[int, list[float]] = {9: [], 5: [], 2: []}
    field: dict[int, list[float]] = {9: [], 5: [], 2: []}
    for table in range(4):
        group = [cup.records[i] for i in range(6 * table, 6 * table + 6)]
        for seat in range(3):
            for record in group:
                if not record["players"][seat].startswith("charlie@"):
                    continue
                for number, hand in enumerate(record["hands"]):
                    others = [
                        g["hands"][number]["tricks_won"][seat]
                        - g["hands"][number]["contracts"][seat]
                        for g in group
                        if not g["players"][seat].startswith("charlie@")
                        and number < len(g["hands"])
                    ]
                    if others:
                        contract = hand["contracts"][seat]
                        mine[contract].append(hand["tricks_won"][seat] - contract)
                        field[contract].append(sum(others) / len(others))
    for line in result.contracts:
        assert line.hands == len(mine[line.contract])
        if mine[line.contract]:
            edge = sum(mine[line.contract]) / len(mine[line.contract]) - sum(
                field[line.contract]
            ) / len(field[line.contract])
            assert line.edge == pytest.approx(edge)


def test_json_is_plain_and_stable(cup: Cup) -> None:
    gathered = duplicate_games(cup.engine, "cup", "alpha", ORGANISER, _never)
    result = analyse(gathered.games, gathered.versions, bot="alpha", tournament="cup")
    data = to_json(result)
    assert list(data) == [
        "schema",
        "bot",
        "tournament",
        "held_back_games",
        "unreplayable_games",
        "travellers",
        "swings",
        "by_contract",
        "by_decision",
        "pairs",
    ]
    assert data["schema"] == "arena952.analysis/1"
    assert [k["kind"] for k in data["by_decision"]] == ["exchange", "trump", "discard", "play"]
    # 9 travellers, each with 2 alpha rows and 4 field rows: 8 pairs each.
    assert len(data["pairs"]) == 72
    assert data["unreplayable_games"] == []


def test_board_deals_make_one_traveller_across_the_tables(tmp_path: Path) -> None:
    """With ``board`` deals board 0 is dealt alike at all 4 tables: one traveller per seat
    holds all 24 games (alpha's 6 among them); with per-table deals (the fixture) a
    traveller holds one table's 6 (the control: ``test_travellers_match...``)."""
    cup = make_cup(cup_url(tmp_path), deal_scope=BOARD_DEALS)
    gathered = duplicate_games(cup.engine, "cup", "alpha", ORGANISER, _never)
    result = analyse(gathered.games, gathered.versions, bot="alpha", tournament="cup")
    assert [(t.seat, len(t.rows), len(t.mine)) for t in result.travellers] == [
        (0, 24, 6),
        (1, 24, 6),
        (2, 24, 6),
    ]
    for t in result.travellers:
        dealt = {tuple(sorted(r.game.record["hands"][0]["deal"][t.seat])) for r in t.rows}
        assert len(dealt) == 1
