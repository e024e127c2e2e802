"""``bot_tally``, the per-bot sums kept as games are stored (issue 35), on SQLite and
PostgreSQL: after games are stored through ``record_game`` it must equal the sums
recomputed from scratch from ``game_seat``, for every tournament; the progress and the
tournament list, which count games from it, must equal a count of the ``game`` table; and
migration 0016 must fill it from the games stored before it. The same for the
head-to-head tallies (``pair_board_tally``, ``pair_tally``), and the head-to-head read
from them must equal the one computed from the seats; and ``tallies.rebuild`` (the
benchmark's bulk path) must give back what ``record_game`` kept.

Control: the comparison itself is shown to fail on a tally one win off, on a tally row
that is missing, and on a board tally one point off (so that "equal" above is a real check, not an empty one).
"""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, func, select, text
from sqlmodel import col

from arena import storage
from arena.storage import tallies
from arena.storage.database import MIGRATIONS_DIR, migrate
from arena.storage.models import BOARD_SIZE, BotTally, Game, GameSeat, PairBoardTally, PairTally
from arena.storage.statistics import _head_to_head_rows
from arena.storage.tallies import (
    SUMS,
    TALLIED,
    pair_boards_from_seats,
    pairs_from_boards,
    sums_from_seats,
)
from tests.storage.helpers import (
    store_two_tournaments,
)


def _tallies(engine: Engine) -> dict[tuple[int, int], tuple[Any, ...]]:
    """``bot_tally`` as stored: (tournament, bot) -> sums, then the newest game id."""
    columns = [getattr(BotTally, name) for name in (*TALLIED, "last_game_id")]
    with engine.connect() as connection:
        rows = connection.execute(
            select(col(BotTally.tournament_id), col(BotTally.bot_version_id), *columns)
        ).all()
    return {(row[0], row[1]): tuple(int(v) for v in row[2:]) for row in rows}


def _recomputed(engine: Engine) -> dict[tuple[int, int], tuple[Any, ...]]:
    """The same, summed from scratch over ``game_seat``."""
    with engine.connect() as connection:
        rows = connection.execute(sums_from_seats()).all()
    return {(row[0], row[1]): tuple(int(v) for v in row[2:]) for row in rows}


def _pairs(engine: Engine) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """``pair_board_tally`` and ``pair_tally`` as stored."""
    with engine.connect() as connection:
        cells = connection.execute(select(PairBoardTally.__table__)).all()  # type: ignore[call-overload]
        pairs = connection.execute(select(PairTally.__table__)).all()  # type: ignore[call-overload]
    return {tuple(int(v) for v in row) for row in cells}, {
        tuple(int(v) for v in row) for row in pairs
    }


def _pairs_recomputed(engine: Engine) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """The same, from ``game_seat`` (the cells) and from the cells (the pairs)."""
    with engine.connect() as connection:
        cells = connection.execute(pair_boards_from_seats()).all()
        pairs = connection.execute(pairs_from_boards()).all()
    return {tuple(int(v) for v in row) for row in cells}, {
        tuple(int(v) for v in row) for row in pairs
    }


def test_tallies_equal_the_sums_recomputed_from_the_stored_seats(engine: Engine) -> None:
    store_two_tournaments(engine)
    kept = _tallies(engine)
    assert len(kept) == 8  # 4 bots in t1, 4 in t2
    assert kept == _recomputed(engine)
    # The data: faults were stored and counted (clean wins below wins somewhere).
    assert sum(v[SUMS.index("faults")] for v in kept.values()) == 3
    assert any(v[SUMS.index("clean_score")] != v[SUMS.index("score")] for v in kept.values())
    cells, pairs = _pairs(engine)
    assert (cells, pairs) == _pairs_recomputed(engine)
    assert len(pairs) == 6 + 6  # 4 bots in each tournament: 6 pairs each
    assert any(cell[5] % cell[4] for cell in cells)  # boards whose mean is no integer


def test_head_to_head_from_the_tallies_equals_the_one_from_the_seats(engine: Engine) -> None:
    seen = []
    for tournament_id in store_two_tournaments(engine):
        kept = storage.head_to_head(engine, tournament_id)
        raw = _head_to_head_rows(engine, tournament_id, BOARD_SIZE)
        assert [(h.a, h.b, h.boards, h.games) for h in kept] == [
            (int(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in raw
        ]
        # The seats' query divides in SQL (about 11 digits on SQLite); the tallies are exact.
        for h, r in zip(kept, raw, strict=True):
            assert h.mean_diff == pytest.approx(float(r[4]) / int(r[2]), rel=1e-9, abs=1e-9)
        seen += kept
    assert any(h.boards > 1 and h.ci_low < h.ci_high for h in seen)  # intervals, not NaN
    assert any(h.boards == 1 for h in seen)


def test_progress_and_tournament_list_count_games_like_the_game_table(engine: Engine) -> None:
    ids = store_two_tournaments(engine)
    listed = {t.id: t.games_stored for t in storage.tournament_overview(engine)}
    for tournament_id in ids:
        with engine.connect() as connection:
            count, last = connection.execute(
                select(func.count(), func.max(col(Game.id))).where(
                    col(Game.tournament_id) == tournament_id
                )
            ).one()
        progress = storage.progress(engine, tournament_id)
        assert (progress.stored, progress.last_game_id) == (count, last)
        assert listed[tournament_id] == count
        assert storage.game_count(engine, tournament_id) == count
        for bot in {s for g in storage.game_page(engine, tournament_id, limit=99) for s in g.seats}:
            with engine.connect() as connection:
                sat = connection.execute(
                    select(func.count())
                    .select_from(GameSeat)
                    .join(Game, col(Game.id) == col(GameSeat.game_id))
                    .where(
                        col(Game.tournament_id) == tournament_id,
                        col(GameSeat.bot_version_id) == bot,
                    )
                ).scalar_one()
            assert storage.game_count(engine, tournament_id, bot) == sat > 0
    assert sorted(listed.values()) == [6, 12]
    assert storage.game_count(engine, 999) == 0  # control: an unknown tournament has none


def test_bot_overview_counts_each_versions_games_over_every_tournament(engine: Engine) -> None:
    store_two_tournaments(engine)
    with engine.connect() as connection:
        seats = dict(
            connection.execute(
                select(col(GameSeat.bot_version_id), func.count()).group_by(
                    col(GameSeat.bot_version_id)
                )
            ).all()
        )
        faulted = dict(
            connection.execute(
                select(col(GameSeat.bot_version_id), func.count())
                .where(col(GameSeat.faulted))
                .group_by(col(GameSeat.bot_version_id))
            ).all()
        )
    shown = {
        v.id: (v.games, v.faulted_games) for b in storage.bot_overview(engine) for v in b.versions
    }
    assert shown == {v: (n, faulted.get(v, 0)) for v, n in seats.items()}
    assert len(set(seats.values())) > 1 and faulted  # the bots differ; some faulted


def test_rebuild_from_the_seats_gives_the_tallies_record_game_kept(engine: Engine) -> None:
    ids = store_two_tournaments(engine)
    kept, kept_pairs = _tallies(engine), _pairs(engine)
    with engine.begin() as connection:
        connection.execute(text("UPDATE bot_tally SET games = 0"))  # spoil both tournaments
        tallies.rebuild(connection, ids[0])
    spoiled = _tallies(engine)
    assert {k: v for k, v in spoiled.items() if k[0] == ids[0]} == {
        k: v for k, v in kept.items() if k[0] == ids[0]
    }
    assert spoiled != kept  # control: the other tournament was left as spoiled
    with engine.begin() as connection:
        tallies.rebuild(connection, ids[1])
    assert (_tallies(engine), _pairs(engine)) == (kept, kept_pairs)


def test_migration_0016_fills_the_tallies_from_games_stored_before_it(engine: Engine) -> None:
    store_two_tournaments(engine)
    expected = _recomputed(engine)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    expected_pairs = _pairs(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0015")
    migrate(engine)
    assert _tallies(engine) == expected
    assert _pairs(engine) == expected_pairs


def test_control_the_comparison_sees_a_tally_one_win_off_or_missing(engine: Engine) -> None:
    ids = store_two_tournaments(engine)
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE bot_tally SET wins = wins + 1 WHERE tournament_id = :t"), {"t": ids[0]}
        )
    assert _tallies(engine) != _recomputed(engine)
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE bot_tally SET wins = wins - 1 WHERE tournament_id = :t"), {"t": ids[0]}
        )
    assert _tallies(engine) == _recomputed(engine)  # back in step: the check is exact
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM bot_tally WHERE tournament_id = :t"), {"t": ids[1]})
    assert _tallies(engine) != _recomputed(engine)
    with engine.begin() as connection:
        connection.execute(text("UPDATE pair_board_tally SET diff = diff + 1 WHERE board = 0"))
    cells, _ = _pairs(engine)
    recomputed_cells, _ = _pairs_recomputed(engine)
    assert cells != recomputed_cells
