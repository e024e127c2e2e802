"""Per-bot sums of a tournament's games (``bot_tally``), kept as each game is stored.

Why: the standings, contracts and fault counts are sums over ``game_seat`` (three rows per
stored game); at a million games a sum is a scan of three million rows, seconds on every
cold page. ``bot_tally`` holds those sums, one row per entrant, and
:func:`add_seats` updates it inside :func:`arena.storage.games.record_game`'s transaction,
so it can never disagree with ``game_seat``: no game is stored without it, and nothing
deletes games. :func:`sums_from_seats` recomputes the same numbers from scratch (the
tests compare the two), and :func:`rebuild` fills the table from ``game_seat`` (migration
0016 does the same in SQL; the benchmark, after its bulk inserts).

The statistics' mean deltas per contract and trump calls per dealer are sums of the same
kind (issue 35: they were read from the latest 2,000 records on every cold page, 14 MB of
JSON). Each seat's ``delta_9/5/2`` and ``trump_s/h/d/c/nt`` are derived from the record
once, when the game is stored (:mod:`arena.storage.seat_facts`), and summed here with the
rest. They are columns of ``game_seat`` and ``bot_tally``, not a table keyed by (tournament,
bot, trump): the trump calls are a fixed set of five (the rules' ``Trump``), so columns
cost no statement at all when a game is stored (the seat rows and the tally rows are
written anyway), where a table would add up to three upserts per game; and the page reads
them in the same one row per bot. Migration 0017 adds them and fills them from the records
of the games stored before it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import (
    BigInteger,
    Connection,
    Executable,
    Select,
    Table,
    and_,
    case,
    cast,
    delete,
    func,
    insert,
    not_,
)
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased
from sqlmodel import Session, SQLModel, col

from arena.storage.models import BOARD_SIZE, BotTally, Game, GameSeat, PairBoardTally, PairTally
from arena.storage.seat_facts import DELTA_COLUMNS, TRUMP_COLUMNS

SUMS: Final = (
    "games",
    "wins",
    "score",
    "hands_9",
    "made_9",
    "hands_5",
    "made_5",
    "hands_2",
    "made_2",
    "faults",
    "clean_wins",
    "clean_score",
)
"""The standings' columns of ``bot_tally`` after its key, in this order everywhere."""
ADDED: Final = (*DELTA_COLUMNS, *TRUMP_COLUMNS)
"""The statistics' columns of ``bot_tally``: sums of the ``game_seat`` columns of the same
names (mean deltas per contract, trump calls as dealer)."""
TALLIED: Final = (*SUMS, *ADDED)
"""Every summed column of ``bot_tally``, in this order everywhere (then ``last_game_id``)."""


def seat_sums(seat: GameSeat) -> tuple[int, ...]:
    """What one stored seat adds to its bot's tally, in :data:`TALLIED` order."""
    return (
        1,
        int(seat.won),
        seat.score,
        seat.hands_9,
        seat.made_9,
        seat.hands_5,
        seat.made_5,
        seat.hands_2,
        seat.made_2,
        int(seat.faulted),
        int(seat.won and not seat.faulted),
        0 if seat.faulted else seat.score,
        *(getattr(seat, name) for name in ADDED),
    )


def add_seats(session: Session, tournament_id: int, seats: Iterable[GameSeat]) -> None:
    """Add the *seats* of one newly stored game to their bots' tallies, in *session*
    (the caller's transaction, which holds the tournament's row lock: no two writers
    update one tournament's tallies at once).

    One upsert of the three rows: no read first, so storing a game costs the same few
    statements whatever the tallies hold (an ORM read-modify-write was 3 reads, each after
    an autoflush, and 3 writes)."""
    rows = [
        {
            "tournament_id": tournament_id,
            "bot_version_id": seat.bot_version_id,
            **dict(zip(TALLIED, seat_sums(seat), strict=True)),
            "last_game_id": seat.game_id,
        }
        for seat in seats
    ]
    session.execute(_upserts(_dialect(session)).bot, rows)


SCALE: Final = 60
"""A board mean ``diff / games`` times 60 is an integer (``games`` is 1..6: 60 is their
least common multiple), so :class:`PairTally` sums it exactly."""


def board_mean60(games: int, diff: int) -> int:
    """``60 * diff / games``, exact."""
    return SCALE * diff // games


def add_pairs(
    session: Session, tournament_id: int, schedule_index: int, seats: Sequence[GameSeat]
) -> None:
    """Add one newly stored game to the head-to-head tallies of its three pairs of bots
    (same transaction and lock as :func:`add_seats`). A pair's board mean changes as the
    board fills up: the old mean's terms leave the pair's sums and the new one's enter.

    Two upserts: the board cells first, which return what they now hold (the old cell is
    that less this game), then the pairs' sums by the difference of the two means."""
    board = schedule_index // BOARD_SIZE
    diffs: dict[tuple[int, int], int] = {}
    for first, second in ((0, 1), (0, 2), (1, 2)):
        one, other = sorted((seats[first], seats[second]), key=lambda s: s.bot_version_id)
        diffs[one.bot_version_id, other.bot_version_id] = one.score - other.score
    upserts = _upserts(_dialect(session))
    returned = session.execute(
        upserts.cell,
        [
            {"tournament_id": tournament_id, "bot_a": a, "bot_b": b, "board": board, "diff": diff}
            for (a, b), diff in diffs.items()
        ],
    ).all()
    changes = []
    for a, b, games, diff in returned:
        new = board_mean60(games, diff)
        old = board_mean60(games - 1, diff - diffs[a, b]) if games > 1 else 0
        changes.append(
            {
                "tournament_id": tournament_id,
                "bot_a": a,
                "bot_b": b,
                "boards": int(games == 1),
                "mean60_sum": new - old,
                "mean60_squares": new * new - old * old,
            }
        )
    session.execute(upserts.pair, changes)


@dataclass(frozen=True, slots=True)
class _Upserts:
    """The three tally upserts of one dialect, built once: built for every game, a
    statement cost more than its execution (SQLAlchemy derives its cache key from every
    element of it)."""

    bot: Executable
    cell: Executable
    pair: Executable


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name


@functools.cache
def _upserts(dialect: str) -> _Upserts:
    """``INSERT ... ON CONFLICT DO UPDATE`` for each tally table, in *dialect* (the arena
    runs on SQLite and PostgreSQL, which both have it, in the same words)."""
    insert_into = postgresql.insert if dialect == "postgresql" else sqlite.insert
    bots, cells, pairs = _table(BotTally), _table(PairBoardTally), _table(PairTally)

    bot = insert_into(bots)
    new = bot.excluded
    bot_upsert = bot.on_conflict_do_update(
        index_elements=[bots.c.tournament_id, bots.c.bot_version_id],
        set_={
            **{name: bots.c[name] + new[name] for name in TALLIED},
            "last_game_id": case(
                (new.last_game_id > bots.c.last_game_id, new.last_game_id),
                else_=bots.c.last_game_id,
            ),
        },
    )
    cell = insert_into(cells).values(games=1)
    cell_upsert = cell.on_conflict_do_update(
        index_elements=[cells.c.tournament_id, cells.c.bot_a, cells.c.bot_b, cells.c.board],
        set_={"games": cells.c.games + 1, "diff": cells.c.diff + cell.excluded.diff},
    ).returning(cells.c.bot_a, cells.c.bot_b, cells.c.games, cells.c.diff)
    pair = insert_into(pairs).values(games=1)
    pair_upsert = pair.on_conflict_do_update(
        index_elements=[pairs.c.tournament_id, pairs.c.bot_a, pairs.c.bot_b],
        set_={
            name: pairs.c[name] + pair.excluded[name]
            for name in ("games", "boards", "mean60_sum", "mean60_squares")
        },
    )
    return _Upserts(bot_upsert, cell_upsert, pair_upsert)


def _table(model: type[SQLModel]) -> Table:
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


def sums_from_seats(tournament_id: int | None = None) -> Select[tuple[int, int, int]]:
    """``(tournament_id, bot_version_id, *TALLIED, last_game_id)`` recomputed from
    ``game_seat`` (of one tournament, or of all): what ``bot_tally`` must hold."""
    won, faulted = col(GameSeat.won), col(GameSeat.faulted)
    statement = (
        sa_select(
            col(Game.tournament_id),
            col(GameSeat.bot_version_id),
            func.count(),
            func.sum(case((won, 1), else_=0)),
            func.sum(col(GameSeat.score)),
            func.sum(col(GameSeat.hands_9)),
            func.sum(col(GameSeat.made_9)),
            func.sum(col(GameSeat.hands_5)),
            func.sum(col(GameSeat.made_5)),
            func.sum(col(GameSeat.hands_2)),
            func.sum(col(GameSeat.made_2)),
            func.sum(case((faulted, 1), else_=0)),
            func.sum(case((and_(won, not_(faulted)), 1), else_=0)),
            func.sum(case((faulted, 0), else_=col(GameSeat.score))),
            *(func.sum(getattr(GameSeat, name)) for name in ADDED),
            func.max(col(GameSeat.game_id)),
        )
        .join(Game, col(Game.id) == col(GameSeat.game_id))
        .group_by(col(Game.tournament_id), col(GameSeat.bot_version_id))
    )
    if tournament_id is not None:
        statement = statement.where(col(Game.tournament_id) == tournament_id)
    return statement  # type: ignore[return-value]


def rebuild(connection: Connection, tournament_id: int) -> None:
    """Replace a tournament's tallies by the sums of its ``game_seat`` rows (for rows
    written in bulk, bypassing :func:`add_seats`: the benchmark's)."""
    for table in (BotTally, PairBoardTally, PairTally):
        connection.execute(delete(table).where(col(table.tournament_id) == tournament_id))
    connection.execute(
        insert(BotTally).from_select(
            ["tournament_id", "bot_version_id", *TALLIED, "last_game_id"],
            sums_from_seats(tournament_id),
        )
    )
    connection.execute(
        insert(PairBoardTally).from_select(
            ["tournament_id", "bot_a", "bot_b", "board", "games", "diff"],
            pair_boards_from_seats(tournament_id),
        )
    )
    connection.execute(
        insert(PairTally).from_select(
            ["tournament_id", "bot_a", "bot_b", "games", "boards", "mean60_sum", "mean60_squares"],
            pairs_from_boards(tournament_id),
        )
    )


def pair_boards_from_seats(tournament_id: int | None = None) -> Select[tuple[int, int, int]]:
    """``(tournament_id, bot_a, bot_b, board, games, diff)`` recomputed from ``game_seat``:
    what ``pair_board_tally`` must hold."""
    seat_a, seat_b = aliased(GameSeat, name="sa"), aliased(GameSeat, name="sb")
    board = col(Game.schedule_index) // BOARD_SIZE
    statement = (
        sa_select(
            col(Game.tournament_id),
            col(seat_a.bot_version_id),
            col(seat_b.bot_version_id),
            board,
            func.count(),
            func.sum(col(seat_a.score) - col(seat_b.score)),
        )
        .select_from(Game)
        .join(seat_a, col(seat_a.game_id) == col(Game.id))
        .join(
            seat_b,
            and_(
                col(seat_b.game_id) == col(Game.id),
                col(seat_a.bot_version_id) < col(seat_b.bot_version_id),
            ),
        )
        .group_by(
            col(Game.tournament_id), col(seat_a.bot_version_id), col(seat_b.bot_version_id), board
        )
    )
    if tournament_id is not None:
        statement = statement.where(col(Game.tournament_id) == tournament_id)
    return statement  # type: ignore[return-value]


def pairs_from_boards(tournament_id: int | None = None) -> Select[tuple[int, int, int]]:
    """``(tournament_id, bot_a, bot_b, games, boards, mean60_sum, mean60_squares)`` summed
    from ``pair_board_tally``: what ``pair_tally`` must hold."""
    cell = PairBoardTally
    # Exact: games divides 60; BIGINT, since squares pass 2**31 on long boards' sums.
    mean60 = cast((SCALE * col(cell.diff)) // col(cell.games), BigInteger)
    statement = sa_select(
        col(cell.tournament_id),
        col(cell.bot_a),
        col(cell.bot_b),
        func.sum(col(cell.games)),
        func.count(),
        func.sum(mean60),
        func.sum(mean60 * mean60),
    ).group_by(col(cell.tournament_id), col(cell.bot_a), col(cell.bot_b))
    if tournament_id is not None:
        statement = statement.where(col(cell.tournament_id) == tournament_id)
    return statement  # type: ignore[return-value]
