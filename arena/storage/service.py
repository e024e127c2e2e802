"""What the rest of the arena asks of the database: bots, tournaments, games, ratings.

Every function takes the process's engine (made once, :func:`arena.storage.open_database`)
and runs one short session; none keeps objects attached to a session, so returned rows are
plain values to read.

Ratings are a pure function of the stored games: after every :func:`record_game` the
ratings of a tournament are exactly those of the longest gap-free prefix of its schedule
(games 0, 1, ..., k all stored), rated in schedule order. Games that parallel workers
finish early are stored at once and rated as soon as the gap before them is filled.
:func:`recompute_ratings` replays the same code path from scratch.

:raises StorageError: from every function, with a one-line message, for a refused
    operation (duplicate game, unknown tournament, malformed record) or a database failure.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, ParamSpec, TypeVar

from pydantic import ValidationError
from sqlalchemy import Engine, case, func
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, col, delete, select

from arena.game.dealing import HMAC_SHUFFLE, LEGACY_SHUFFLE, SHUFFLES, secret_from_seed
from arena.ratings import trueskill_model
from arena.ratings.trueskill_model import RatingModel, ranks_for_game, ranks_for_totals
from arena.storage.database import StorageError, one_line, read_session, write_session
from arena.storage.models import (
    STATUSES,
    Bot,
    BotVersion,
    Entry,
    Game,
    GameSeat,
    RatingSnapshot,
    Tournament,
    TournamentCreate,
    utcnow,
)
from arena.storage.models import Rating as RatingRow

LOGGER = logging.getLogger(__name__)

DEFAULT_BOARD_SIZE: Final = 6
"""Games per board: the 3! seatings of three bots over the same deals."""
CONTRACTS: Final = (9, 5, 2)
_CHECKSUM = re.compile(r"^(?:[0-9a-f]{64}|v2:[a-z2-7]{52})$")
"""A legacy sha256 hex checksum, or ``v2:`` and a base32 tree hash (arena.submission)."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


def _database_errors(function: Callable[_P, _T]) -> Callable[_P, _T]:
    """Turn any database failure escaping *function* into a one-line :class:`StorageError`."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return function(*args, **kwargs)
        except SQLAlchemyError as exc:
            raise StorageError(f"{function.__name__}: database error: {one_line(exc)}") from exc

    return wrapper


class GameAlreadyStored(StorageError):
    """The tournament already has a game at this schedule index; nothing was changed."""


# ------------------------------------------------------------------------------- bots


@_database_errors
def add_bot_version(
    engine: Engine, manifest_fields: Mapping[str, Any], checksum: str, path: str
) -> tuple[BotVersion, bool]:
    """Store a submitted bot; returns ``(version, created)``.

    A new bot name creates the bot. If the bot's latest version has the same *checksum*,
    nothing is stored and that version comes back with ``created=False`` (its path kept).
    Otherwise a new version gets the next ``seq`` and the label ``name@version``, or
    ``name@version+<checksum[:8]>`` when that version was already submitted with other
    files (plus ``.<seq>`` in the odd case that this label is taken too).

    :raises StorageError: for a manifest without name or version, or a malformed checksum.
    """
    name = manifest_fields.get("name")
    version = manifest_fields.get("version")
    if not isinstance(name, str) or not name or not isinstance(version, str) or not version:
        raise StorageError("manifest fields need a non-empty 'name' and 'version'")
    if not _CHECKSUM.match(checksum):
        raise StorageError(
            f"checksum must be 'v2:' and 52 base32 digits, or 64 lowercase hex digits "
            f"(sha256), got {checksum!r}"
        )
    manifest = json.dumps(dict(manifest_fields), sort_keys=True, default=str)
    language = str(manifest_fields.get("language", ""))
    for attempt in range(3):
        try:
            return _add_bot_version(engine, name, version, language, checksum, path, manifest)
        except IntegrityError:
            # Another process registered the same bot or version first; look again.
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _add_bot_version(
    engine: Engine,
    name: str,
    version: str,
    language: str,
    checksum: str,
    path: str,
    manifest: str,
) -> tuple[BotVersion, bool]:
    with write_session(engine) as session:
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            bot = Bot(name=name)
            session.add(bot)
            session.flush()
        assert bot.id is not None
        versions = session.exec(
            select(BotVersion).where(BotVersion.bot_id == bot.id).order_by(col(BotVersion.seq))
        ).all()
        if versions and versions[-1].checksum == checksum:
            return versions[-1], False
        seq = len(versions) + 1
        taken = {v.label for v in versions}
        base = f"{name}@{version}"
        short = checksum.removeprefix("v2:")[:8]
        label = next(
            candidate
            for candidate in (base, f"{base}+{short}", f"{base}+{short}.{seq}")
            if candidate not in taken
        )
        row = BotVersion(
            bot_id=bot.id,
            seq=seq,
            version=version,
            label=label,
            checksum=checksum,
            manifest=manifest,
            path=path,
            language=language,
        )
        session.add(row)
        session.commit()
        LOGGER.info("stored bot version %s (seq %d)", label, seq)
        return row, True


@_database_errors
def get_bot(engine: Engine, name: str) -> Bot | None:
    """The bot called *name*, or ``None``."""
    with read_session(engine) as session:
        return session.exec(select(Bot).where(Bot.name == name)).first()


@_database_errors
def list_bots(engine: Engine) -> list[Bot]:
    """Every bot, by name."""
    with read_session(engine) as session:
        return list(session.exec(select(Bot).order_by(col(Bot.name))).all())


@_database_errors
def bot_versions(engine: Engine, name: str) -> list[BotVersion]:
    """The versions of bot *name* in submission order (empty for an unknown bot)."""
    with read_session(engine) as session:
        return list(
            session.exec(
                select(BotVersion)
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(Bot.name == name)
                .order_by(col(BotVersion.seq))
            ).all()
        )


@_database_errors
def latest_version(engine: Engine, name: str) -> BotVersion | None:
    """The most recently submitted version of bot *name*, or ``None``."""
    with read_session(engine) as session:
        return session.exec(
            select(BotVersion)
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(Bot.name == name)
            .order_by(col(BotVersion.seq).desc())
        ).first()


@_database_errors
def get_bot_version(engine: Engine, bot_version_id: int) -> BotVersion | None:
    """The bot version with this id, or ``None``."""
    with read_session(engine) as session:
        return session.get(BotVersion, bot_version_id)


# ------------------------------------------------------------------------ tournaments


@_database_errors
def create_tournament(  # noqa: PLR0913  (keyword-only: one per tournament column)
    engine: Engine,
    *,
    name: str,
    ruleset: str,
    rules_json: str | Mapping[str, Any],
    time_control: str,
    boards: int,
    seed: int | None,
    rating_mode: str,
    entries: Sequence[int],
    games_total: int,
    format: str = "round_robin",
    deal_secret: bytes | None = None,
    shuffle: str = HMAC_SHUFFLE,
) -> Tournament:
    """Store a new tournament and its entrants (bot version ids, in order).

    Keyed tournaments (*shuffle* ``hmac-sha256/1``, the default) need the *deal_secret*
    their board keys come from; *seed* is the explicit seed it was made from, if any
    (reported as predictable). Legacy (``mt19937``) tournaments need a *seed*.

    :raises StorageError: if the name exists, an entrant is unknown or repeated, or a
        value is invalid (rating mode other than ``game``/``board``, boards < 1, ...).
    """
    rules = rules_json if isinstance(rules_json, str) else json.dumps(dict(rules_json))
    try:
        spec = TournamentCreate.model_validate(
            {
                "name": name,
                "ruleset": ruleset,
                "rules": rules,
                "time_control": time_control,
                "format": format,
                "boards": boards,
                "seed": seed,
                "rating_mode": rating_mode,
                "games_total": games_total,
            }
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise StorageError(f"tournament {name!r}: {where}: {error['msg']}") from None
    if len(set(entries)) != len(entries):
        raise StorageError(f"tournament {name!r}: an entrant is listed twice")
    if shuffle == HMAC_SHUFFLE and deal_secret is None and seed is not None:
        deal_secret = secret_from_seed(seed)  # an explicit seed is its own (known) secret
    if shuffle == HMAC_SHUFFLE and not deal_secret:
        raise StorageError(f"tournament {name!r}: keyed deals need a deal secret or a seed")
    if shuffle == LEGACY_SHUFFLE and (seed is None or deal_secret is not None):
        raise StorageError(f"tournament {name!r}: legacy deals need a seed and no secret")
    if shuffle not in SHUFFLES:
        raise StorageError(f"tournament {name!r}: unknown shuffle {shuffle!r}")
    if seed is not None and not 0 <= seed < 2**63:
        raise StorageError(f"tournament {name!r}: seed must be from 0 to {2**63 - 1}")
    exists = StorageError(f"tournament {name!r} already exists")
    try:
        with write_session(engine) as session:
            if session.exec(select(Tournament.id).where(Tournament.name == name)).first():
                raise exists
            known = set(
                session.exec(
                    select(BotVersion.id).where(col(BotVersion.id).in_(list(entries)))
                ).all()
            )
            missing = [i for i in entries if i not in known]
            if missing:
                raise StorageError(f"tournament {name!r}: no bot version with id {missing[0]}")
            tournament = Tournament.model_validate(spec)
            tournament.shuffle = shuffle
            tournament.deal_secret = None if deal_secret is None else deal_secret.hex()
            session.add(tournament)
            session.flush()
            assert tournament.id is not None
            session.add_all(
                Entry(tournament_id=tournament.id, position=i, bot_version_id=v)
                for i, v in enumerate(entries)
            )
            session.commit()
    except IntegrityError:
        raise exists from None  # created concurrently under the same name
    LOGGER.info("created tournament %s (%d entrants)", name, len(entries))
    return tournament


@_database_errors
def count_arena_fault(engine: Engine, tournament_id: int) -> int:
    """Count one arena fault (a game the arena failed, to be replayed) against the
    tournament; the new count.

    :raises StorageError: if the tournament is unknown.
    """
    with write_session(engine) as session:
        tournament = _lock_tournament(session, tournament_id)
        tournament.arena_faults += 1
        session.add(tournament)
        session.commit()
        return tournament.arena_faults


@_database_errors
def row_id(row: Bot | BotVersion | Tournament) -> int:
    """The primary key of a stored row (always set once it has been read back)."""
    if row.id is None:
        raise StorageError(f"{type(row).__name__} has not been stored")
    return row.id


def get_tournament(engine: Engine, name: str) -> Tournament:
    """The tournament called *name*.

    :raises StorageError: if there is none.
    """
    with read_session(engine) as session:
        tournament = session.exec(select(Tournament).where(Tournament.name == name)).first()
    if tournament is None:
        raise StorageError(f"no tournament named {name!r}")
    return tournament


@_database_errors
def list_tournaments(engine: Engine) -> list[Tournament]:
    """Every tournament, newest first."""
    with read_session(engine) as session:
        return list(
            session.exec(
                select(Tournament).order_by(
                    col(Tournament.created_at).desc(), col(Tournament.id).desc()
                )
            ).all()
        )


@_database_errors
def set_status(engine: Engine, tournament_id: int, status: str) -> None:
    """Set a tournament's status; ``finished``/``failed`` stamp ``finished_at``, others clear it.

    :raises StorageError: for an unknown tournament or status.
    """
    if status not in STATUSES:
        raise StorageError(f"unknown status {status!r}; one of: {', '.join(STATUSES)}")
    with write_session(engine) as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            raise StorageError(f"no tournament with id {tournament_id}")
        tournament.status = status
        tournament.finished_at = utcnow() if status in ("finished", "failed") else None
        session.commit()


@_database_errors
def entries(engine: Engine, tournament_id: int) -> list[BotVersion]:
    """The entrants of a tournament, in entry order."""
    with read_session(engine) as session:
        return list(
            session.exec(
                select(BotVersion)
                .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
                .where(Entry.tournament_id == tournament_id)
                .order_by(col(Entry.position))
            ).all()
        )


# ------------------------------------------------------------------------------ games


@_database_errors
def stored_indexes(engine: Engine, tournament_id: int) -> set[int]:
    """Schedule indexes of the games of a tournament already stored (to resume a run)."""
    with read_session(engine) as session:
        return set(
            session.exec(
                select(Game.schedule_index).where(Game.tournament_id == tournament_id)
            ).all()
        )


@dataclass(frozen=True, slots=True)
class _SeatFacts:
    """What one seat's row needs from a record."""

    score: int
    won: bool
    faulted: bool
    hands: dict[int, int]
    made: dict[int, int]


@_database_errors
def record_game(  # noqa: PLR0913  (keyword-only: one per schedule field)
    engine: Engine,
    tournament_id: int,
    *,
    schedule_index: int,
    table_index: int,
    board_index: int,
    seating_index: int,
    seed: int,
    seats: Sequence[int],
    record: Mapping[str, Any],
    board_size: int = DEFAULT_BOARD_SIZE,
    model: RatingModel | None = None,
) -> None:
    """Store one finished game and bring the tournament's ratings up to date, atomically.

    *seats* are the bot version ids by seat (three distinct entrants); *record* is the whole
    ``arena952.game/1`` record. In one transaction: insert the game and its seats, then rate
    every game (``game`` mode) or complete board of *board_size* games (``board`` mode) of
    the gap-free stored prefix not yet rated. Concurrent callers for one tournament are
    serialised on the tournament row, so the result never depends on arrival order. Pass
    the same *board_size* and *model* (default ``DEFAULT_MODEL``) on every call.

    :raises GameAlreadyStored: if the schedule index is already stored (nothing changes).
    :raises StorageError: if the tournament is unknown, the index is outside the schedule,
        the seats are not three distinct entrants, or the record has no result or is
        malformed (nothing changes either).
    """
    facts, result = _record_facts(schedule_index, record)
    try:
        record_text = json.dumps(record, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StorageError(f"record of game {schedule_index} is not JSON: {exc}") from None
    if len(seats) != 3 or len(set(seats)) != 3:
        raise StorageError(f"game {schedule_index}: seats must be 3 distinct bot versions")
    duplicate = f"game {schedule_index} of tournament {tournament_id} is already stored"
    try:
        with write_session(engine) as session:
            tournament = _lock_tournament(session, tournament_id)
            if not 0 <= schedule_index < tournament.games_total:
                raise StorageError(
                    f"game {schedule_index}: outside the schedule 0..{tournament.games_total - 1}"
                )
            entrants = set(
                session.exec(
                    select(Entry.bot_version_id).where(Entry.tournament_id == tournament_id)
                ).all()
            )
            strangers = [s for s in seats if s not in entrants]
            if strangers:
                raise StorageError(
                    f"game {schedule_index}: bot version {strangers[0]} is not an entrant"
                )
            if session.exec(
                select(Game.id).where(
                    Game.tournament_id == tournament_id, Game.schedule_index == schedule_index
                )
            ).first():
                raise GameAlreadyStored(duplicate)
            game = Game(
                tournament_id=tournament_id,
                schedule_index=schedule_index,
                table_index=table_index,
                board_index=board_index,
                seating_index=seating_index,
                seed=seed,
                seats=json.dumps(list(seats)),
                record=record_text,
                winners=json.dumps(result["winners"]),
                reason=str(result["reason"]),
                scores=json.dumps(result["scores"]),
                hands_played=int(result.get("hands_played", 0)),
                fault_count=len(record.get("faults") or []),
            )
            session.add(game)
            session.flush()
            assert game.id is not None
            ranks = ranks_for_game([f.score for f in facts], [f.faulted for f in facts])
            session.add_all(
                GameSeat(
                    game_id=game.id,
                    seat=seat,
                    bot_version_id=seats[seat],
                    score=fact.score,
                    rank=ranks[seat],
                    won=fact.won,
                    faulted=fact.faulted,
                    hands_9=fact.hands[9],
                    made_9=fact.made[9],
                    hands_5=fact.hands[5],
                    made_5=fact.made[5],
                    hands_2=fact.hands[2],
                    made_2=fact.made[2],
                )
                for seat, fact in enumerate(facts)
            )
            session.flush()
            _rate_prefix(session, tournament, _model(model), board_size)
            session.commit()
    except IntegrityError:
        # The pre-check above makes this a race the row lock should already prevent.
        raise GameAlreadyStored(duplicate) from None


def _record_facts(
    schedule_index: int, record: Mapping[str, Any]
) -> tuple[list[_SeatFacts], Mapping[str, Any]]:
    """Per-seat facts and the ``result`` of a record, checked only as far as we use them."""
    where = f"record of game {schedule_index}"
    result = record.get("result")
    if not isinstance(result, Mapping):
        raise StorageError(f"{where}: no result (the game is not finished)")
    scores: Any = result.get("scores")
    winners: Any = result.get("winners")
    if not (_int_list(scores, 3) and isinstance(winners, list) and _int_list(winners, None)):
        raise StorageError(f"{where}: result needs 3 integer scores and a list of winners")
    faults = record.get("faults") or []
    if not isinstance(faults, list) or not all(
        isinstance(f, Mapping) and f.get("seat") in (0, 1, 2) for f in faults
    ):
        raise StorageError(f"{where}: faults must be entries with a seat 0, 1 or 2")
    faulted = {f["seat"] for f in faults}
    hands = [{c: 0 for c in CONTRACTS} for _ in range(3)]
    made = [{c: 0 for c in CONTRACTS} for _ in range(3)]
    for hand in record.get("hands") or []:
        if not isinstance(hand, Mapping) or hand.get("deltas") is None:
            continue  # a hand cut short (no scores) counts for nobody
        contracts: Any = hand.get("contracts")
        tricks: Any = hand.get("tricks_won")
        if not (_int_list(contracts, 3) and _int_list(tricks, 3)):
            raise StorageError(f"{where}: hand {hand.get('number')} lacks contracts/tricks_won")
        for seat in range(3):
            if contracts[seat] in hands[seat]:
                hands[seat][contracts[seat]] += 1
                made[seat][contracts[seat]] += tricks[seat] >= contracts[seat]
    facts = [_SeatFacts(scores[s], s in winners, s in faulted, hands[s], made[s]) for s in range(3)]
    return facts, result


def _int_list(value: Any, length: int | None) -> bool:
    return (
        isinstance(value, list)
        and (length is None or len(value) == length)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def _model(model: RatingModel | None) -> RatingModel:
    # Looked up at call time, so the arena's model is the one in force (and patchable).
    return trueskill_model.DEFAULT_MODEL if model is None else model


def _lock_tournament(session: Session, tournament_id: int) -> Tournament:
    """Load the tournament, locking its row until commit (PostgreSQL ``FOR UPDATE``).

    Writers of one tournament take turns here, so each one sees every game committed
    before it and rates the prefix correctly. SQLite needs no row lock: the write session's
    ``BEGIN IMMEDIATE`` already serialises all writers.
    """
    tournament = session.exec(
        select(Tournament).where(Tournament.id == tournament_id).with_for_update()
    ).first()
    if tournament is None:
        raise StorageError(f"no tournament with id {tournament_id}")
    return tournament


@dataclass
class _Unit:
    """A rating update: one game, or one whole board."""

    last_index: int
    totals: dict[int, int]
    """Bot version id -> score (summed over the board), in seat order of the first game."""
    faulted: dict[int, bool]
    games: dict[int, int]


def _rate_prefix(
    session: Session, tournament: Tournament, model: RatingModel, board_size: int
) -> None:
    """Rate every not-yet-rated unit of the gap-free stored prefix, in schedule order."""
    if board_size < 1:
        raise StorageError(f"board size must be at least 1, got {board_size}")
    current = {
        r.bot_version_id: r
        for r in session.exec(
            select(RatingRow).where(RatingRow.tournament_id == tournament.id)
        ).all()
    }
    done = max((r.rated_through for r in current.values()), default=-1)
    rows = session.exec(
        select(Game.schedule_index, GameSeat.bot_version_id, GameSeat.score, GameSeat.faulted)
        .join(GameSeat, col(GameSeat.game_id) == col(Game.id))
        .where(Game.tournament_id == tournament.id, col(Game.schedule_index) > done)
        .order_by(col(Game.schedule_index), col(GameSeat.seat))
    ).all()
    games: dict[int, list[tuple[int, int, bool]]] = {}
    for index, bot, score, faulted in rows:
        games.setdefault(index, []).append((bot, score, faulted))
    size = 1 if tournament.rating_mode == "game" else board_size
    start = done + 1
    while True:
        end = min(start + size, tournament.games_total) - 1
        if end < start or any(i not in games for i in range(start, end + 1)):
            return  # a gap (or the schedule's end): the rest waits
        unit = _Unit(end, {}, {}, {})
        for index in range(start, end + 1):
            for bot, score, faulted in games[index]:
                unit.totals[bot] = unit.totals.get(bot, 0) + score
                unit.faulted[bot] = unit.faulted.get(bot, False) or faulted
                unit.games[bot] = unit.games.get(bot, 0) + 1
        _apply(session, tournament, model, unit, current)
        start = end + 1


def _apply(
    session: Session,
    tournament: Tournament,
    model: RatingModel,
    unit: _Unit,
    current: dict[int, RatingRow],
) -> None:
    """Rate one unit: a snapshot per bot, and the current rating rows updated."""
    assert tournament.id is not None
    bots = list(unit.totals)
    totals = [unit.totals[b] for b in bots]
    faulted = [unit.faulted[b] for b in bots]
    # A faulted bot ranks below every clean one; ranks_for_game does that on any scores.
    ranks = ranks_for_game(totals, faulted) if any(faulted) else ranks_for_totals(totals)
    prior = model.initial()
    before = [
        trueskill_model.Rating(current[b].mu, current[b].sigma) if b in current else prior
        for b in bots
    ]
    after = model.rate(before, ranks)
    for bot, rating in zip(bots, after, strict=True):
        row = current.get(bot)
        if row is None:
            row = RatingRow(
                tournament_id=tournament.id,
                bot_version_id=bot,
                mu=rating.mu,
                sigma=rating.sigma,
                games=0,
                rated_through=unit.last_index,
            )
            current[bot] = row
        row.mu, row.sigma = rating.mu, rating.sigma
        row.games += unit.games[bot]
        row.rated_through = unit.last_index
        session.add(row)
        session.add(
            RatingSnapshot(
                tournament_id=tournament.id,
                bot_version_id=bot,
                schedule_index=unit.last_index,
                mu=rating.mu,
                sigma=rating.sigma,
                games=row.games,
            )
        )


@_database_errors
def recompute_ratings(
    engine: Engine,
    tournament_id: int,
    model: RatingModel | None = None,
    *,
    board_size: int = DEFAULT_BOARD_SIZE,
) -> None:
    """Delete a tournament's ratings and snapshots and rate its stored games again.

    Same code path as :func:`record_game`, so with the same model the result is identical.

    :raises StorageError: for an unknown tournament.
    """
    with write_session(engine) as session:
        tournament = _lock_tournament(session, tournament_id)
        session.exec(
            delete(RatingSnapshot).where(col(RatingSnapshot.tournament_id) == tournament_id)
        )
        session.exec(delete(RatingRow).where(col(RatingRow.tournament_id) == tournament_id))
        _rate_prefix(session, tournament, _model(model), board_size)
        session.commit()


# ---------------------------------------------------------------------------- reading


@_database_errors
def game_record(engine: Engine, game_id: int) -> dict[str, Any]:
    """The stored record of a game.

    :raises StorageError: if there is no such game.
    """
    with read_session(engine) as session:
        text = session.exec(select(Game.record).where(Game.id == game_id)).first()
    if text is None:
        raise StorageError(f"no game with id {game_id}")
    record: dict[str, Any] = json.loads(text)
    return record


@_database_errors
def tournament_game_ids(engine: Engine, tournament_id: int) -> list[int]:
    """Ids of the stored games of a tournament, in schedule order."""
    with read_session(engine) as session:
        return [
            game_id
            for game_id in session.exec(
                select(Game.id)
                .where(Game.tournament_id == tournament_id)
                .order_by(col(Game.schedule_index))
            ).all()
            if game_id is not None
        ]


@_database_errors
def tournament_records(engine: Engine, tournament_id: int) -> list[tuple[int, dict[str, Any]]]:
    """``(schedule_index, record)`` of every stored game of a tournament, in schedule order."""
    with read_session(engine) as session:
        rows = session.exec(
            select(Game.schedule_index, Game.record)
            .where(Game.tournament_id == tournament_id)
            .order_by(col(Game.schedule_index))
        ).all()
    return [(index, json.loads(text)) for index, text in rows]


@_database_errors
def ratings(engine: Engine, tournament_id: int) -> list[RatingRow]:
    """The current ratings of a tournament, by bot version id."""
    with read_session(engine) as session:
        return list(
            session.exec(
                select(RatingRow)
                .where(RatingRow.tournament_id == tournament_id)
                .order_by(col(RatingRow.bot_version_id))
            ).all()
        )


@_database_errors
def rating_history(engine: Engine, tournament_id: int) -> list[RatingSnapshot]:
    """Every rating snapshot of a tournament, in schedule order (then by bot version id)."""
    with read_session(engine) as session:
        return list(
            session.exec(
                select(RatingSnapshot)
                .where(RatingSnapshot.tournament_id == tournament_id)
                .order_by(col(RatingSnapshot.schedule_index), col(RatingSnapshot.bot_version_id))
            ).all()
        )


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of a tournament's standings."""

    rank: int
    """1 = top, by conservative rating."""
    bot_version_id: int
    bot: str
    """The bot version's label (``name@version``)."""
    conservative: float
    """``mu - 3 sigma``, the sort key."""
    mu: float
    sigma: float
    games: int
    """Stored games played (rated or still waiting behind a gap)."""
    wins: int
    """Games won outright or with a shared first place."""
    mean_score: float
    """Mean final score per game (0.0 before the first game)."""
    made_9: float | None
    """Fraction of hands in the 9 seat where the bot made its contract; ``None`` if none."""
    made_5: float | None
    made_2: float | None
    faults: int
    """Games in which the bot faulted at least once."""


@_database_errors
def standings(
    engine: Engine, tournament_id: int | None = None, model: RatingModel | None = None
) -> list[StandingRow]:
    """Standings of a tournament (default: the most recently created), best first.

    Every entrant appears; one not rated yet shows the model's prior (*model*, default
    ``DEFAULT_MODEL``). Empty if there is no tournament.
    """
    with read_session(engine) as session:
        if tournament_id is None:
            latest = session.exec(
                select(Tournament.id).order_by(
                    col(Tournament.created_at).desc(), col(Tournament.id).desc()
                )
            ).first()
            if latest is None:
                return []
            tournament_id = latest
        entrants = session.exec(
            select(BotVersion.id, BotVersion.label)
            .join(Entry, col(Entry.bot_version_id) == col(BotVersion.id))
            .where(Entry.tournament_id == tournament_id)
            .order_by(col(Entry.position))
        ).all()
        current = {
            r.bot_version_id: r
            for r in session.exec(
                select(RatingRow).where(RatingRow.tournament_id == tournament_id)
            ).all()
        }
        stats = {
            row[0]: row[1:] for row in session.connection().execute(_stats_query(tournament_id))
        }
    prior = _model(model).initial()
    rows: list[StandingRow] = []
    for bot_id, label in entrants:
        assert bot_id is not None
        mu, sigma = (
            (current[bot_id].mu, current[bot_id].sigma)
            if bot_id in current
            else (
                prior.mu,
                prior.sigma,
            )
        )
        games, wins, score, h9, m9, h5, m5, h2, m2, faults = (
            int(v or 0) for v in stats.get(bot_id, (0,) * 10)
        )
        rows.append(
            StandingRow(
                rank=0,
                bot_version_id=bot_id,
                bot=label,
                conservative=mu - 3 * sigma,
                mu=mu,
                sigma=sigma,
                games=games,
                wins=wins,
                mean_score=score / games if games else 0.0,
                made_9=m9 / h9 if h9 else None,
                made_5=m5 / h5 if h5 else None,
                made_2=m2 / h2 if h2 else None,
                faults=faults,
            )
        )
    rows.sort(key=lambda r: (-r.conservative, -r.mu, r.bot))
    return [dataclasses.replace(row, rank=position) for position, row in enumerate(rows, start=1)]


def _stats_query(tournament_id: int) -> Any:
    seat = GameSeat.__table__.c  # type: ignore[attr-defined]
    game = Game.__table__.c  # type: ignore[attr-defined]
    return (
        sa_select(
            seat.bot_version_id,
            func.count(),
            func.sum(case((seat.won, 1), else_=0)),
            func.sum(seat.score),
            func.sum(seat.hands_9),
            func.sum(seat.made_9),
            func.sum(seat.hands_5),
            func.sum(seat.made_5),
            func.sum(seat.hands_2),
            func.sum(seat.made_2),
            func.sum(case((seat.faulted, 1), else_=0)),
        )
        .select_from(GameSeat.__table__.join(Game.__table__, seat.game_id == game.id))  # type: ignore[attr-defined]
        .where(game.tournament_id == tournament_id)
        .group_by(seat.bot_version_id)
    )
