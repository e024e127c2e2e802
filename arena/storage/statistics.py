"""The dashboard's statistics: head-to-head score differences, contracts made, per-contract
deltas and trump calls, and faults (their detail and the bot's stderr only for its owner
and organisers: :mod:`arena.storage.privacy`).

Sums come from the tallies kept as games are stored (``bot_tally``, ``pair_tally``:
:mod:`arena.storage.tallies`), one row per bot or pair, over every stored game: per-contract
deltas and trump calls included (taken from each record once, when it was stored). Records
are read only for fault details, and only those of faulted games.

:raises StorageError: from every function, for a database failure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Engine, and_, func
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased
from sqlmodel import col

from arena.storage.bots import version_labels
from arena.storage.database import database_errors, read_rows
from arena.storage.models import (
    BOARD_SIZE,
    CONTRACTS,
    TRUMPS,
    BotTally,
    BotVersion,
    Game,
    GameSeat,
    PairTally,
    Tournament,
)
from arena.storage.privacy import Viewer, owners_of_versions, redact_record
from arena.storage.seat_facts import DELTA_COLUMNS, TRUMP_COLUMNS
from arena.storage.tallies import SCALE

_T_975: Final = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""Student's t 97.5% quantiles for 1..30 degrees of freedom (then 1.96)."""


def t_quantile(df: int) -> float:
    """The two-sided 95% critical value of Student's t with *df* degrees of freedom."""
    if df < 1:
        return math.nan
    return _T_975[df - 1] if df <= len(_T_975) else 1.96


# ------------------------------------------------------------------------ head to head


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two bots that shared tables: how many points per game *a* scored more than *b*."""

    a: int
    b: int
    bot_a: str
    bot_b: str
    games: int
    boards: int
    """Independent units: a duplicate board (6 seatings of one deal sequence) at one table."""
    mean_diff: float
    """Mean of ``score_a - score_b`` per game played together."""
    ci_low: float
    """95% confidence interval of the mean (Student's t over boards); NaN with one board."""
    ci_high: float

    def flipped(self) -> HeadToHead:
        """The same pair seen from *b*."""
        return HeadToHead(
            self.b,
            self.a,
            self.bot_b,
            self.bot_a,
            self.games,
            self.boards,
            -self.mean_diff,
            -self.ci_high,
            -self.ci_low,
        )


@database_errors
def head_to_head(
    engine: Engine, tournament_id: int, board_size: int = BOARD_SIZE
) -> list[HeadToHead]:
    """For each pair of bots of a tournament, their mean score difference with a 95% CI.

    The games of a duplicate board replay the same deals under every seating, so they are
    not independent: the interval treats each board at a table as one observation (its
    per-game mean difference), which is what the duplicate format is for.
    """
    rows: Sequence[Any]
    if board_size == BOARD_SIZE:
        # Kept as games are stored (arena.storage.tallies): one row per pair.
        pair = PairTally
        rows = [
            (a, b, boards, games, total / SCALE, squares / SCALE**2)
            for a, b, boards, games, total, squares in read_rows(
                engine,
                sa_select(
                    col(pair.bot_a),
                    col(pair.bot_b),
                    col(pair.boards),
                    col(pair.games),
                    col(pair.mean60_sum),
                    col(pair.mean60_squares),
                )
                .where(col(pair.tournament_id) == tournament_id)
                .order_by(col(pair.bot_a), col(pair.bot_b)),
            )
        ]
    else:
        rows = _head_to_head_rows(engine, tournament_id, board_size)
    labels = version_labels(engine)
    pairs = []
    for a, b, boards, games, total, squares in rows:
        mean = float(total) / boards
        if boards > 1:
            variance = max(0.0, (float(squares) - boards * mean * mean) / (boards - 1))
            half = t_quantile(boards - 1) * math.sqrt(variance / boards)
        else:
            half = math.nan
        pairs.append(
            HeadToHead(
                a,
                b,
                labels.get(a, str(a)),
                labels.get(b, str(b)),
                int(games),
                int(boards),
                mean,
                mean - half,
                mean + half,
            )
        )
    return pairs


def _head_to_head_rows(engine: Engine, tournament_id: int, board_size: int) -> list[Any]:
    """``(a, b, boards, games, sum of board means, sum of their squares)`` per pair, from
    ``game_seat`` (for a board size other than the one the tallies keep)."""
    seat_a, seat_b = aliased(GameSeat, name="sa"), aliased(GameSeat, name="sb")
    per_board = (
        sa_select(
            col(seat_a.bot_version_id).label("a"),
            col(seat_b.bot_version_id).label("b"),
            func.count().label("n"),
            # True division of integers (SQLAlchemy casts on either backend).
            (func.sum(col(seat_a.score) - col(seat_b.score)) / func.count()).label("m"),
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
        .where(col(Game.tournament_id) == tournament_id)
        .group_by(
            col(seat_a.bot_version_id),
            col(seat_b.bot_version_id),
            col(Game.schedule_index) // board_size,
        )
        .subquery("boards")
    )
    board = per_board.c
    return read_rows(
        engine,
        sa_select(
            board.a,
            board.b,
            func.count(),
            func.sum(board.n),
            func.sum(board.m),
            func.sum(board.m * board.m),
        )
        .group_by(board.a, board.b)
        .order_by(board.a, board.b),
    )


# --------------------------------------------------------------------------- contracts


@dataclass(frozen=True, slots=True)
class ContractStats:
    """How a bot did in one contract seat (9, 5 or 2)."""

    bot_version_id: int
    bot: str
    contract: int
    hands: int
    made: int
    """Hands where it took at least its contract."""

    @property
    def made_rate(self) -> float | None:
        """Share of hands made; ``None`` before any hand."""
        return self.made / self.hands if self.hands else None


@database_errors
def contract_stats(engine: Engine, tournament_id: int) -> list[ContractStats]:
    """Per bot and contract: hands played and made, over every stored game (from
    ``bot_tally``, kept as games are stored: :mod:`arena.storage.tallies`)."""
    tally = BotTally
    rows = read_rows(
        engine,
        sa_select(
            col(tally.bot_version_id),
            col(BotVersion.label),
            col(tally.hands_9),
            col(tally.made_9),
            col(tally.hands_5),
            col(tally.made_5),
            col(tally.hands_2),
            col(tally.made_2),
        )
        .join(BotVersion, col(BotVersion.id) == col(tally.bot_version_id))
        .where(col(tally.tournament_id) == tournament_id, col(tally.games) > 0)
        .order_by(col(BotVersion.label)),
    )
    out = []
    for bot, label, h9, m9, h5, m5, h2, m2 in rows:
        for contract, hands, made in ((9, h9, m9), (5, h5, m5), (2, h2, m2)):
            out.append(ContractStats(bot, label, contract, int(hands or 0), int(made or 0)))
    return out


@dataclass(frozen=True, slots=True)
class RecordStats:
    """The statistics that once needed the records (mean deltas per contract and trump calls
    per dealer), over every stored game of a tournament, from ``bot_tally``."""

    games: int
    """Games they are over: every stored game of the tournament."""
    deltas: tuple[tuple[str, int, int, float], ...]
    """``(bot, contract, hands, mean delta)``: tricks won minus contract, per hand."""
    trumps: tuple[tuple[str, str, int], ...]
    """``(bot, trump call, count)`` over the hands the bot dealt."""


@database_errors
def record_stats(engine: Engine, tournament_id: int) -> RecordStats:
    """Per-contract mean deltas and trump calls per bot, over every stored game.

    One row per entrant of ``bot_tally``: each seat's deltas per contract and its trump calls
    as dealer were taken from the record when the game was stored
    (:mod:`arena.storage.seat_facts`) and summed there; no record is read.
    """
    tally = BotTally
    hands = [getattr(tally, f"hands_{contract}") for contract in CONTRACTS]
    rows = read_rows(
        engine,
        sa_select(
            col(tally.bot_version_id),
            col(tally.games),
            *hands,
            *(getattr(tally, name) for name in (*DELTA_COLUMNS, *TRUMP_COLUMNS)),
        ).where(col(tally.tournament_id) == tournament_id, col(tally.games) > 0),
    )
    labels = version_labels(engine) if rows else {}
    deltas, trumps, seats = [], [], 0
    width = len(CONTRACTS)
    for bot, games, *sums in rows:
        label = labels.get(bot, str(bot))
        seats += int(games)
        counts, delta_sums, calls = sums[:width], sums[width : 2 * width], sums[2 * width :]
        for contract, count, delta in zip(CONTRACTS, counts, delta_sums, strict=True):
            if count:
                deltas.append((label, contract, int(count), int(delta) / int(count)))
        for trump, count in zip(TRUMPS, calls, strict=True):
            if count:
                trumps.append((label, trump, int(count)))
    return RecordStats(games=seats // 3, deltas=tuple(sorted(deltas)), trumps=tuple(sorted(trumps)))


# ----------------------------------------------------------------------------- faults


@dataclass(frozen=True, slots=True)
class FaultRow:
    """One fault of one bot in one stored game."""

    game_id: int
    tournament: str
    schedule_index: int
    seat: int
    bot_version_id: int
    bot: str
    hand: int
    decision: str
    kind: str
    detail: str
    autopilot: bool
    stderr_tail: str
    hidden: bool = False
    """The viewer may not read this fault's detail and stderr (:mod:`arena.storage.privacy`):
    ``detail`` says so and ``stderr_tail`` is empty."""


@dataclass(frozen=True, slots=True)
class FaultCount:
    """A bot's games and faulted games in a tournament."""

    bot_version_id: int
    bot: str
    games: int
    faulted_games: int


@database_errors
def fault_counts(engine: Engine, tournament_id: int) -> list[FaultCount]:
    """Per bot of a tournament: games played and games with at least one fault (from
    ``bot_tally``)."""
    rows = read_rows(
        engine,
        sa_select(
            col(BotTally.bot_version_id),
            col(BotVersion.label),
            col(BotTally.games),
            col(BotTally.faults),
        )
        .join(BotVersion, col(BotVersion.id) == col(BotTally.bot_version_id))
        .where(col(BotTally.tournament_id) == tournament_id, col(BotTally.games) > 0)
        .order_by(col(BotVersion.label)),
    )
    return [FaultCount(b, label, int(n), int(f or 0)) for b, label, n, f in rows]


@database_errors
def faults(
    engine: Engine,
    *,
    tournament_id: int | None = None,
    bot_version_ids: Sequence[int] | None = None,
    limit: int = 100,
    viewer: Viewer,
) -> list[FaultRow]:
    """Faults of the latest faulted games (newest first), of some bots or of a tournament,
    as *viewer* may read them: the detail and stderr of a bot's faults only for its owner
    and organisers (:func:`arena.storage.privacy.redact_record`).

    Only the records of faulted games are read (found through ``game_seat.faulted``), at
    most *limit* of them.
    """
    if bot_version_ids is not None and not bot_version_ids:
        return []
    faulted = (
        sa_select(col(GameSeat.game_id))
        .distinct()
        .join(Game, col(Game.id) == col(GameSeat.game_id))
        .where(col(GameSeat.faulted))
    )
    if bot_version_ids is not None:
        faulted = faulted.where(col(GameSeat.bot_version_id).in_(list(bot_version_ids)))
    if tournament_id is not None:
        # "+ 0": never drive this from the tournament's games (a million index entries);
        # the partial index of faulted seats (a few) comes first, the game by its key.
        faulted = faulted.where(col(Game.tournament_id) + 0 == tournament_id)
    faulted = faulted.order_by(col(GameSeat.game_id).desc()).limit(max(0, limit))
    game_ids = [row[0] for row in read_rows(engine, faulted)]
    if not game_ids:
        return []
    labels = version_labels(engine)
    wanted = None if bot_version_ids is None else set(bot_version_ids)
    rows = read_rows(
        engine,
        sa_select(
            col(Game.id),
            col(Tournament.name),
            col(Game.schedule_index),
            col(Game.seats),
            col(Game.record),
        )
        .join(Tournament, col(Tournament.id) == col(Game.tournament_id))
        .where(col(Game.id).in_(game_ids))
        .order_by(col(Game.id).desc()),
    )
    owners = owners_of_versions(engine, {version for row in rows for version in json.loads(row[3])})
    out: list[FaultRow] = []
    for game_id, name, index, seats_text, record_text in rows:
        seats = json.loads(seats_text)
        record = redact_record(
            json.loads(record_text), viewer, [owners.get(version) for version in seats]
        )
        for fault in record.get("faults") or []:
            seat = fault.get("seat")
            if seat not in (0, 1, 2) or (wanted is not None and seats[seat] not in wanted):
                continue
            out.append(
                FaultRow(
                    game_id=game_id,
                    tournament=name,
                    schedule_index=index,
                    seat=seat,
                    bot_version_id=seats[seat],
                    bot=labels.get(seats[seat], str(seats[seat])),
                    hand=int(fault.get("hand") or 0),
                    decision=str(fault.get("decision", "")),
                    kind=str(fault.get("kind", "")),
                    detail=str(fault.get("detail", "")),
                    autopilot=bool(fault.get("autopilot", False)),
                    stderr_tail=str(fault.get("stderr_tail") or ""),
                    hidden=bool(fault.get("hidden", False)),
                )
            )
    return out
