"""Per-bot sums of a tournament's games (``bot_tally``), kept as each game is stored.

Why: the standings, contracts and fault counts are sums over ``game_seat`` (three rows per
stored game); at a million games a sum is a scan of three million rows, seconds on every
cold page. ``bot_tally`` holds those sums, one row per entrant, and
:func:`add_seats` updates it inside :func:`arena.storage.games.record_game`'s transaction,
so it can never disagree with ``game_seat``: no game is stored without it, and nothing
deletes games. :func:`sums_from_seats` recomputes the same numbers from scratch (the
tests compare the two), and :func:`rebuild` fills the table from ``game_seat`` (migration
0016 does the same in SQL; the benchmark, after its bulk inserts).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from sqlalchemy import (
    BigInteger,
    Connection,
    Select,
    and_,
    case,
    cast,
    delete,
    func,
    insert,
    not_,
)
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from arena.storage.models import BOARD_SIZE, BotTally, Game, GameSeat, PairBoardTally, PairTally

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
"""The columns of ``bot_tally`` after its key, in this order everywhere."""


def seat_sums(seat: GameSeat) -> tuple[int, ...]:
    """What one stored seat adds to its bot's tally, in :data:`SUMS` order."""
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
    )


def add_seats(session: Session, tournament_id: int, seats: Iterable[GameSeat]) -> None:
    """Add the *seats* of one newly stored game to their bots' tallies, in *session*
    (the caller's transaction, which holds the tournament's row lock: no two writers
    update one tournament's tallies at once)."""
    for seat in seats:
        tally = session.get(BotTally, (tournament_id, seat.bot_version_id))
        if tally is None:
            tally = BotTally(tournament_id=tournament_id, bot_version_id=seat.bot_version_id)
            session.add(tally)
        for name, value in zip(SUMS, seat_sums(seat), strict=True):
            setattr(tally, name, getattr(tally, name) + value)
        tally.last_game_id = max(tally.last_game_id, seat.game_id)


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
    board fills up: the old mean's terms leave the pair's sums and the new one's enter."""
    board = schedule_index // BOARD_SIZE
    for first, second in ((0, 1), (0, 2), (1, 2)):
        one, other = sorted((seats[first], seats[second]), key=lambda s: s.bot_version_id)
        a, b = one.bot_version_id, other.bot_version_id
        pair = session.get(PairTally, (tournament_id, a, b))
        if pair is None:
            pair = PairTally(tournament_id=tournament_id, bot_a=a, bot_b=b)
            session.add(pair)
        cell = session.get(PairBoardTally, (tournament_id, a, b, board))
        if cell is None:
            cell = PairBoardTally(tournament_id=tournament_id, bot_a=a, bot_b=b, board=board)
            session.add(cell)
            pair.boards += 1
        else:
            old = board_mean60(cell.games, cell.diff)
            pair.mean60_sum -= old
            pair.mean60_squares -= old * old
        cell.games += 1
        cell.diff += one.score - other.score
        new = board_mean60(cell.games, cell.diff)
        pair.mean60_sum += new
        pair.mean60_squares += new * new
        pair.games += 1


def sums_from_seats(tournament_id: int | None = None) -> Select[tuple[int, int, int]]:
    """``(tournament_id, bot_version_id, *SUMS, last_game_id)`` recomputed from
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
            ["tournament_id", "bot_version_id", *SUMS, "last_game_id"],
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
