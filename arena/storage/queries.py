"""Read-only queries behind the dashboard: fast on 100,000 stored games.

Everything here reads; nothing writes. Results are small frozen dataclasses of plain values
(picklable, so the dashboard can keep them in ``st.cache_data``). Aggregates come from the
narrow ``game_seat`` and ``rating_snapshot`` tables with SQL doing the sums, never from
loading game records: a record is ~7 kB of JSON, and 100,000 of them are most of the
database. Only three things need records, and they read a bounded number of them: one
game's replay, per-contract deltas and trump calls (from a sample of the most recent
games, whose size the result states), and fault details (from faulted games only).

The SQL is the portable subset SQLite and PostgreSQL share (window functions, ``CASE``,
integer division of integers), so both backends answer the same.

:raises arena.storage.database.StorageError: from every function, for a database failure.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, ParamSpec, TypeVar

from sqlalchemy import Engine, bindparam, text
from sqlalchemy.exc import SQLAlchemyError

from arena.game.dealing import HMAC_SHUFFLE
from arena.ratings import trueskill_model
from arena.storage import service
from arena.storage.database import StorageError, one_line
from arena.storage.service import StandingRow

LOGGER = logging.getLogger(__name__)

BOARD_SIZE: Final = service.DEFAULT_BOARD_SIZE
"""Consecutive schedule indexes that make one duplicate board (the 6 seatings)."""
CONTRACTS: Final = (9, 5, 2)
TRUMPS: Final = ("S", "H", "D", "C", "NT")
DEFAULT_SAMPLE: Final = 2000
"""Games read for the record-based statistics (per-contract deltas, trump calls)."""
_T_975: Final = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""Student's t 97.5% quantiles for 1..30 degrees of freedom (then 1.96)."""

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _database_errors(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Turn a database failure into a one-line :class:`StorageError`."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except SQLAlchemyError as exc:
            raise StorageError(f"{function.__name__}: database error: {one_line(exc)}") from exc

    return wrapper


def _rows(engine: Engine, sql: str, **params: Any) -> list[Any]:
    """Run one read-only statement; list parameters expand into ``IN (...)``."""
    statement = text(sql)
    for name, value in params.items():
        if isinstance(value, (list, tuple)):
            statement = statement.bindparams(bindparam(name, expanding=True))
    with engine.connect() as connection:
        return list(connection.execute(statement, params).all())


def t_quantile(df: int) -> float:
    """The two-sided 95% critical value of Student's t with *df* degrees of freedom."""
    if df < 1:
        return math.nan
    return _T_975[df - 1] if df <= len(_T_975) else 1.96


# ------------------------------------------------------------------------ tournaments


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """A tournament with how far it has got."""

    id: int
    name: str
    ruleset: str
    format: str
    boards: int
    seed: int | None
    """The explicit seed of a reproducible run; ``None`` when the deals are secret."""
    rating_mode: str
    time_control: str
    status: str
    games_total: int
    games_stored: int
    created_at: datetime
    finished_at: datetime | None
    entrants: tuple[str, ...]
    """Bot version labels in entry order."""
    entrant_ids: tuple[int, ...]
    shuffle: str = HMAC_SHUFFLE
    arena_faults: int = 0
    """Games the arena itself failed (replayed, never rated)."""

    @property
    def predictable(self) -> bool:
        """True when the deals follow from a known seed (an explicit ``--seed``, or a
        tournament made before secret deals): fine for research, not for a fair contest."""
        return self.seed is not None

    @property
    def deals(self) -> str:
        """How the deals were made, in words, for status lines."""
        if self.seed is None:
            return "secret deals"
        return f"seed {self.seed} (deals are predictable)"

    @property
    def fraction(self) -> float:
        """Share of the schedule stored, 0.0 to 1.0."""
        return self.games_stored / self.games_total if self.games_total else 1.0


@_database_errors
def tournaments(engine: Engine) -> list[TournamentInfo]:
    """Every tournament, newest first, with its entrants and stored game count."""
    stored = dict(_rows(engine, "SELECT tournament_id, COUNT(*) FROM game GROUP BY tournament_id"))
    entrants: dict[int, list[tuple[int, str]]] = {}
    for tournament_id, version_id, label in _rows(
        engine,
        "SELECT e.tournament_id, v.id, v.label FROM entry e "
        "JOIN bot_version v ON v.id = e.bot_version_id ORDER BY e.tournament_id, e.position",
    ):
        entrants.setdefault(tournament_id, []).append((version_id, label))
    return [
        TournamentInfo(
            id=service.row_id(t),
            name=t.name,
            ruleset=t.ruleset,
            format=t.format,
            boards=t.boards,
            seed=t.seed,
            rating_mode=t.rating_mode,
            time_control=t.time_control,
            status=t.status,
            games_total=t.games_total,
            games_stored=int(stored.get(t.id, 0)),
            created_at=t.created_at,
            finished_at=t.finished_at,
            entrants=tuple(label for _, label in entrants.get(service.row_id(t), [])),
            entrant_ids=tuple(i for i, _ in entrants.get(service.row_id(t), [])),
            shuffle=t.shuffle,
            arena_faults=t.arena_faults,
        )
        for t in service.list_tournaments(engine)
    ]


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a tournament has got; also the key that says its data changed."""

    status: str
    stored: int
    total: int
    last_game_id: int
    """Largest stored game id (0 before the first game)."""
    arena_faults: int = 0
    """Games the arena itself failed so far (replayed, never rated)."""

    @property
    def fraction(self) -> float:
        """Share of the schedule stored, 0.0 to 1.0."""
        return self.stored / self.total if self.total else 1.0


@_database_errors
def progress(engine: Engine, tournament_id: int) -> Progress:
    """Status and stored games of a tournament (index-only: cheap enough to poll).

    :raises StorageError: for an unknown tournament.
    """
    head = _rows(
        engine,
        "SELECT status, games_total, arena_faults FROM tournament WHERE id = :t",
        t=tournament_id,
    )
    if not head:
        raise StorageError(f"no tournament with id {tournament_id}")
    (count, last), *_ = _rows(
        engine,
        "SELECT COUNT(*), MAX(id) FROM game WHERE tournament_id = :t",
        t=tournament_id,
    )
    status, total, arena_faults = head[0]
    return Progress(str(status), int(count), int(total), int(last or 0), int(arena_faults))


@_database_errors
def standings(engine: Engine, tournament_id: int) -> list[StandingRow]:
    """The standings of a tournament, best first (the same as ``arena standings``)."""
    return service.standings(engine, tournament_id)


# ---------------------------------------------------------------------------- ratings


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's rating after some number of its games."""

    bot_version_id: int
    bot: str
    games: int
    schedule_index: int
    """The game after which this rating holds (-1 for the prior)."""
    mu: float
    sigma: float


@_database_errors
def rating_history(
    engine: Engine,
    tournament_id: int,
    bot_version_ids: Sequence[int] | None = None,
    max_points: int = 300,
) -> list[RatingPoint]:
    """Each bot's rating over its games, at most about *max_points* points per bot.

    Starts with the prior at 0 games and always ends with the latest snapshot; in between
    every k-th snapshot is kept, so a chart of 100,000 games stays light.
    """
    labels = dict(_rows(engine, "SELECT id, label FROM bot_version"))
    where = "tournament_id = :t"
    params: dict[str, Any] = {"t": tournament_id, "m": max(1, max_points)}
    if bot_version_ids is not None:
        if not bot_version_ids:
            return []
        where += " AND bot_version_id IN :ids"
        params["ids"] = list(bot_version_ids)
    rows = _rows(
        engine,
        "SELECT bot_version_id, games, schedule_index, mu, sigma FROM ("
        " SELECT bot_version_id, games, schedule_index, mu, sigma,"
        "  ROW_NUMBER() OVER (PARTITION BY bot_version_id ORDER BY schedule_index DESC) AS back,"
        "  COUNT(*) OVER (PARTITION BY bot_version_id) AS n"
        f" FROM rating_snapshot WHERE {where}"
        ") picked WHERE (back - 1) % ((n + :m - 1) / :m) = 0"
        " ORDER BY bot_version_id, schedule_index",
        **params,
    )
    prior = trueskill_model.DEFAULT_MODEL.initial()
    points: list[RatingPoint] = []
    seen: set[int] = set()
    for bot, games, index, mu, sigma in rows:
        if bot not in seen:
            seen.add(bot)
            points.append(RatingPoint(bot, labels.get(bot, str(bot)), 0, -1, prior.mu, prior.sigma))
        points.append(RatingPoint(bot, labels.get(bot, str(bot)), games, index, mu, sigma))
    return points


# ------------------------------------------------------------------------- statistics


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


@_database_errors
def head_to_head(
    engine: Engine, tournament_id: int, board_size: int = BOARD_SIZE
) -> list[HeadToHead]:
    """For each pair of bots of a tournament, their mean score difference with a 95% CI.

    The games of a duplicate board replay the same deals under every seating, so they are
    not independent: the interval treats each board at a table as one observation (its
    per-game mean difference), which is what the duplicate format is for.
    """
    labels = dict(_rows(engine, "SELECT id, label FROM bot_version"))
    rows = _rows(
        engine,
        "SELECT a, b, COUNT(*), SUM(n), SUM(m), SUM(m * m) FROM ("
        " SELECT sa.bot_version_id AS a, sb.bot_version_id AS b, COUNT(*) AS n,"
        "  SUM(sa.score - sb.score) * 1.0 / COUNT(*) AS m"
        " FROM game g"
        " JOIN game_seat sa ON sa.game_id = g.id"
        " JOIN game_seat sb ON sb.game_id = g.id AND sa.bot_version_id < sb.bot_version_id"
        " WHERE g.tournament_id = :t"
        " GROUP BY sa.bot_version_id, sb.bot_version_id, g.schedule_index / :size"
        ") boards GROUP BY a, b ORDER BY a, b",
        t=tournament_id,
        size=board_size,
    )
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


@_database_errors
def contract_stats(engine: Engine, tournament_id: int) -> list[ContractStats]:
    """Per bot and contract: hands played and made, over every stored game (SQL sums)."""
    rows = _rows(
        engine,
        "SELECT s.bot_version_id, v.label, SUM(s.hands_9), SUM(s.made_9), SUM(s.hands_5),"
        " SUM(s.made_5), SUM(s.hands_2), SUM(s.made_2)"
        " FROM game_seat s JOIN game g ON g.id = s.game_id"
        " JOIN bot_version v ON v.id = s.bot_version_id"
        " WHERE g.tournament_id = :t GROUP BY s.bot_version_id, v.label ORDER BY v.label",
        t=tournament_id,
    )
    out = []
    for bot, label, h9, m9, h5, m5, h2, m2 in rows:
        for contract, hands, made in ((9, h9, m9), (5, h5, m5), (2, h2, m2)):
            out.append(ContractStats(bot, label, contract, int(hands or 0), int(made or 0)))
    return out


@dataclass(frozen=True, slots=True)
class RecordStats:
    """Statistics that need the records, from the most recent *games* games."""

    games: int
    """Games read (the most recent ones of the tournament)."""
    games_total: int
    """Games stored in the tournament."""
    deltas: tuple[tuple[str, int, int, float], ...]
    """``(bot, contract, hands, mean delta)``: tricks won minus contract, per hand."""
    trumps: tuple[tuple[str, str, int], ...]
    """``(bot, trump call, count)`` over the hands the bot dealt."""


@_database_errors
def record_stats(engine: Engine, tournament_id: int, sample: int = DEFAULT_SAMPLE) -> RecordStats:
    """Per-contract mean deltas and trump calls per bot, from the latest *sample* games."""
    labels = dict(_rows(engine, "SELECT id, label FROM bot_version"))
    (total,) = _rows(engine, "SELECT COUNT(*) FROM game WHERE tournament_id = :t", t=tournament_id)[
        0
    ]
    rows = _rows(
        engine,
        "SELECT seats, record FROM game WHERE tournament_id = :t"
        " ORDER BY schedule_index DESC LIMIT :n",
        t=tournament_id,
        n=max(0, sample),
    )
    delta_sum: dict[tuple[int, int], int] = {}
    delta_hands: dict[tuple[int, int], int] = {}
    trumps: dict[tuple[int, str], int] = {}
    for seats_text, record_text in rows:
        seats = json.loads(seats_text)
        record = json.loads(record_text)
        for hand in record.get("hands") or []:
            deltas = hand.get("deltas")
            if deltas is None:
                continue
            for seat in range(3):
                key = (seats[seat], hand["contracts"][seat])
                delta_sum[key] = delta_sum.get(key, 0) + deltas[seat]
                delta_hands[key] = delta_hands.get(key, 0) + 1
            dealer_key = (seats[hand["dealer"]], str(hand.get("trump")))
            trumps[dealer_key] = trumps.get(dealer_key, 0) + 1
    return RecordStats(
        games=len(rows),
        games_total=int(total),
        deltas=tuple(
            sorted(
                (labels.get(bot, str(bot)), contract, hands, delta_sum[(bot, contract)] / hands)
                for (bot, contract), hands in delta_hands.items()
            )
        ),
        trumps=tuple(
            sorted((labels.get(bot, str(bot)), trump, n) for (bot, trump), n in trumps.items())
        ),
    )


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


@dataclass(frozen=True, slots=True)
class FaultCount:
    """A bot's games and faulted games in a tournament."""

    bot_version_id: int
    bot: str
    games: int
    faulted_games: int


@_database_errors
def fault_counts(engine: Engine, tournament_id: int) -> list[FaultCount]:
    """Per bot of a tournament: games played and games with at least one fault."""
    rows = _rows(
        engine,
        "SELECT s.bot_version_id, v.label, COUNT(*),"
        " SUM(CASE WHEN s.faulted THEN 1 ELSE 0 END)"
        " FROM game_seat s JOIN game g ON g.id = s.game_id"
        " JOIN bot_version v ON v.id = s.bot_version_id"
        " WHERE g.tournament_id = :t GROUP BY s.bot_version_id, v.label ORDER BY v.label",
        t=tournament_id,
    )
    return [FaultCount(b, label, int(n), int(f or 0)) for b, label, n, f in rows]


@_database_errors
def faults(
    engine: Engine,
    *,
    tournament_id: int | None = None,
    bot_version_ids: Sequence[int] | None = None,
    limit: int = 100,
) -> list[FaultRow]:
    """Faults of the latest faulted games (newest first), of some bots or of a tournament.

    Only the records of faulted games are read (found through ``game_seat.faulted``), at
    most *limit* of them.
    """
    conditions = ["s.faulted = :yes"]
    params: dict[str, Any] = {"yes": True, "n": max(0, limit)}
    if bot_version_ids is not None:
        if not bot_version_ids:
            return []
        conditions.append("s.bot_version_id IN :ids")
        params["ids"] = list(bot_version_ids)
    if tournament_id is not None:
        conditions.append("g.tournament_id = :t")
        params["t"] = tournament_id
    game_ids = [
        row[0]
        for row in _rows(
            engine,
            "SELECT DISTINCT s.game_id FROM game_seat s JOIN game g ON g.id = s.game_id"
            f" WHERE {' AND '.join(conditions)} ORDER BY s.game_id DESC LIMIT :n",
            **params,
        )
    ]
    if not game_ids:
        return []
    labels = dict(_rows(engine, "SELECT id, label FROM bot_version"))
    wanted = None if bot_version_ids is None else set(bot_version_ids)
    out: list[FaultRow] = []
    for game_id, name, index, seats_text, record_text in _rows(
        engine,
        "SELECT g.id, t.name, g.schedule_index, g.seats, g.record FROM game g"
        " JOIN tournament t ON t.id = g.tournament_id WHERE g.id IN :ids ORDER BY g.id DESC",
        ids=game_ids,
    ):
        seats = json.loads(seats_text)
        for fault in json.loads(record_text).get("faults") or []:
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
                )
            )
    return out


# ------------------------------------------------------------------------------- bots


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """A submitted bot version with what it has played."""

    id: int
    seq: int
    version: str
    label: str
    checksum: str
    language: str
    path: str
    manifest: str
    """The manifest fields as JSON text."""
    submitted_at: datetime
    games: int
    faulted_games: int
    tournaments: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BotInfo:
    """A bot and its versions, oldest first."""

    id: int
    name: str
    created_at: datetime
    versions: tuple[VersionInfo, ...]

    @property
    def games(self) -> int:
        """Games played by all versions."""
        return sum(v.games for v in self.versions)

    @property
    def faulted_games(self) -> int:
        """Games with a fault, over all versions."""
        return sum(v.faulted_games for v in self.versions)


@_database_errors
def bots(engine: Engine) -> list[BotInfo]:
    """Every bot by name, with its versions, games played and tournaments entered."""
    played = {
        b: (int(n), int(f or 0))
        for b, n, f in _rows(
            engine,
            "SELECT bot_version_id, COUNT(*), SUM(CASE WHEN faulted THEN 1 ELSE 0 END)"
            " FROM game_seat GROUP BY bot_version_id",
        )
    }
    entered: dict[int, list[str]] = {}
    for version_id, name in _rows(
        engine,
        "SELECT e.bot_version_id, t.name FROM entry e JOIN tournament t ON t.id = e.tournament_id"
        " ORDER BY t.id",
    ):
        entered.setdefault(version_id, []).append(name)
    versions: dict[int, list[VersionInfo]] = {}
    for row in _rows(
        engine,
        "SELECT id, bot_id, seq, version, label, checksum, language, path, manifest,"
        " submitted_at FROM bot_version ORDER BY bot_id, seq",
    ):
        games, faulted = played.get(row.id, (0, 0))
        versions.setdefault(row.bot_id, []).append(
            VersionInfo(
                id=row.id,
                seq=row.seq,
                version=row.version,
                label=row.label,
                checksum=row.checksum,
                language=row.language,
                path=row.path,
                manifest=row.manifest,
                submitted_at=_aware(row.submitted_at),
                games=games,
                faulted_games=faulted,
                tournaments=tuple(entered.get(row.id, [])),
            )
        )
    return [
        BotInfo(service.row_id(bot), bot.name, bot.created_at, tuple(versions.get(bot.id, [])))
        for bot in service.list_bots(engine)
        if bot.id is not None
    ]


def _aware(value: Any) -> datetime:
    """A timestamp read through plain SQL (SQLite gives ISO text) as aware UTC."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        raise StorageError(f"not a timestamp: {value!r}")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# ------------------------------------------------------------------------------ games


@dataclass(frozen=True, slots=True)
class GameRow:
    """A stored game without its record."""

    id: int
    tournament_id: int
    schedule_index: int
    table_index: int
    board_index: int
    seating_index: int
    seats: tuple[int, int, int]
    """Bot version ids by seat."""
    players: tuple[str, str, str]
    """Bot version labels by seat."""
    scores: tuple[int, int, int]
    winners: tuple[int, ...]
    reason: str
    hands_played: int
    fault_count: int


_GAME_COLUMNS: Final = (
    "g.id, g.tournament_id, g.schedule_index, g.table_index, g.board_index, g.seating_index,"
    " g.seats, g.scores, g.winners, g.reason, g.hands_played, g.fault_count"
)


def _game_rows(engine: Engine, rows: Iterable[Any]) -> list[GameRow]:
    rows = list(rows)
    if not rows:
        return []
    labels = dict(_rows(engine, "SELECT id, label FROM bot_version"))
    out = []
    for row in rows:
        seats = json.loads(row.seats)
        scores = json.loads(row.scores)
        out.append(
            GameRow(
                id=row.id,
                tournament_id=row.tournament_id,
                schedule_index=row.schedule_index,
                table_index=row.table_index,
                board_index=row.board_index,
                seating_index=row.seating_index,
                seats=(seats[0], seats[1], seats[2]),
                players=(
                    labels.get(seats[0], "?"),
                    labels.get(seats[1], "?"),
                    labels.get(seats[2], "?"),
                ),
                scores=(scores[0], scores[1], scores[2]),
                winners=tuple(json.loads(row.winners)),
                reason=row.reason,
                hands_played=row.hands_played,
                fault_count=row.fault_count,
            )
        )
    return out


@_database_errors
def games(
    engine: Engine,
    tournament_id: int,
    *,
    bot_version_id: int | None = None,
    start: int = 0,
    limit: int = 50,
) -> list[GameRow]:
    """Stored games of a tournament from schedule index *start* on, optionally of one bot."""
    where = "g.tournament_id = :t AND g.schedule_index >= :start"
    params: dict[str, Any] = {"t": tournament_id, "start": start, "n": max(0, limit)}
    if bot_version_id is not None:
        where += (
            " AND EXISTS (SELECT 1 FROM game_seat s WHERE s.game_id = g.id"
            " AND s.bot_version_id = :b)"
        )
        params["b"] = bot_version_id
    return _game_rows(
        engine,
        _rows(
            engine,
            f"SELECT {_GAME_COLUMNS} FROM game g WHERE {where} ORDER BY g.schedule_index LIMIT :n",
            **params,
        ),
    )


@_database_errors
def game_count(engine: Engine, tournament_id: int, bot_version_id: int | None = None) -> int:
    """Stored games of a tournament, optionally only those where one bot sat."""
    if bot_version_id is None:
        rows = _rows(engine, "SELECT COUNT(*) FROM game WHERE tournament_id = :t", t=tournament_id)
    else:
        rows = _rows(
            engine,
            "SELECT COUNT(*) FROM game_seat s JOIN game g ON g.id = s.game_id"
            " WHERE g.tournament_id = :t AND s.bot_version_id = :b",
            t=tournament_id,
            b=bot_version_id,
        )
    return int(rows[0][0])


@_database_errors
def game(engine: Engine, game_id: int) -> GameRow | None:
    """One stored game without its record, or ``None``."""
    found = _game_rows(
        engine, _rows(engine, f"SELECT {_GAME_COLUMNS} FROM game g WHERE g.id = :id", id=game_id)
    )
    return found[0] if found else None


@_database_errors
def game_record(engine: Engine, game_id: int) -> dict[str, Any]:
    """The whole record of a stored game.

    :raises StorageError: if there is no such game.
    """
    return service.game_record(engine, game_id)


__all__ = [
    "BotInfo",
    "ContractStats",
    "FaultCount",
    "FaultRow",
    "GameRow",
    "HeadToHead",
    "Progress",
    "RatingPoint",
    "RecordStats",
    "TournamentInfo",
    "VersionInfo",
    "bots",
    "contract_stats",
    "fault_counts",
    "faults",
    "game",
    "game_count",
    "game_record",
    "games",
    "head_to_head",
    "progress",
    "rating_history",
    "record_stats",
    "standings",
    "t_quantile",
    "tournaments",
]
