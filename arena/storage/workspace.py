"""A bot author's workspace: their bots, each version's state and games, with their logs.

The read model the My bots page and ``arena bot logs`` share: every version with its
state (stored, in which ladders, withdrawn or retired) and the submission that stored it,
the failed submissions that never became a version, and the games of a version with its
time per decision. Nothing here decides who may look: :func:`check_may_read_bot` refuses
anyone but the bot's owner and organisers, and every record leaves through
:func:`arena.storage.privacy.redact_record` for the viewer. Games of a private tournament
(a test match) are listed only for the user it is private to and organisers.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import ColumnElement, Engine, func, or_
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from arena.storage.database import StorageError, database_errors, read_rows, read_session
from arena.storage.ladder import RETIRED, ladder_entrants
from arena.storage.models import (
    Bot,
    BotVersion,
    Entry,
    Game,
    GameSeat,
    LadderSettings,
    Tournament,
    User,
    row_id,
)
from arena.storage.privacy import Viewer, owners_of_seats, redact_record
from arena.storage.submissions import SubmissionInfo, bot_submissions, user_submissions
from arena.storage.users import PermissionDenied, resolve_name

MAX_PAGE: Final = 200
"""The most games one page lists."""


@dataclass(frozen=True, slots=True)
class LadderPlace:
    """A version's place in one ladder."""

    tournament_id: int
    tournament: str
    left_at: datetime | None
    left_because: str | None
    """``withdrawn`` or ``retired``; ``None`` while it is still in."""

    @property
    def state(self) -> str:
        """``entered``, ``withdrawn`` or ``retired``."""
        return self.left_because or "entered"


@dataclass(frozen=True, slots=True)
class VersionState:
    """One stored version of an author's bot, as My bots lists it."""

    id: int
    seq: int
    label: str
    submitted_at: datetime
    submitted_via: str
    games: int
    faulted_games: int
    ladders: tuple[LadderPlace, ...]
    tournaments: tuple[str, ...]
    """Every (visible) tournament it entered, ladders included."""
    submission: SubmissionInfo | None
    """The submission that stored it, with its build and smoke-game log (``None`` for a
    version stored before submissions were recorded)."""

    @property
    def state(self) -> str:
        """One line: stored, and its ladders (entered, withdrawn, retired)."""
        places = [f"{p.state} in {p.tournament}" for p in self.ladders]
        return "; ".join(["stored", *places])


@dataclass(frozen=True, slots=True)
class AuthorBot:
    """One of an author's bots: its versions (oldest first) and its failed submissions."""

    id: int
    name: str
    owner_id: int
    owner: str
    versions: tuple[VersionState, ...]
    failed: tuple[SubmissionInfo, ...]
    """Submissions under its name that stored nothing (refused, build or smoke game
    failed, or still running), newest first."""


@dataclass(frozen=True, slots=True)
class GameTiming:
    """The time one version took per decision in one game (all its seats together)."""

    decisions: int
    mean_ms: float
    p99_ms: float
    max_ms: float

    def percent_of(self, limit_ms: int | None) -> float | None:
        """The slowest decision as a percentage of the per-decision limit (above 100: it
        drew on the bank); ``None`` without a limit."""
        if not limit_ms or not self.decisions:
            return None
        return 100.0 * self.max_ms / limit_ms


@dataclass(frozen=True, slots=True)
class VersionGame:
    """A game a version played, with what its author looks at first."""

    game_id: int
    tournament_id: int
    tournament: str
    private: bool
    """A private tournament's game (a test match)."""
    schedule_index: int
    created_at: datetime
    seats: tuple[int, ...]
    """The seats the version sat in."""
    faults: int
    """Faults of the version's seats."""
    timing: GameTiming
    time_control: str
    """The game's time control text (``decision=1000,bank=...``)."""


def _visible(viewer: Viewer) -> ColumnElement[bool]:
    """Tournaments *viewer* may see: public ones, and private ones that are theirs."""
    if viewer.organiser:
        return col(Tournament.id).is_not(None)
    mine = col(Tournament.private_to) == viewer.user_id if viewer.user_id is not None else None
    public = col(Tournament.private_to).is_(None)
    return public if mine is None else or_(public, mine)


@database_errors
def owners_with_bots(engine: Engine) -> list[tuple[int, str]]:
    """``(user id, name)`` of every user who owns a bot, by name (an organiser's choice)."""
    rows = read_rows(
        engine,
        sa_select(col(User.id), col(User.name))
        .where(col(User.id).in_(sa_select(col(Bot.owner_id))))
        .order_by(col(User.name)),
    )
    return [(int(i), str(n)) for i, n in rows]


@database_errors
def check_may_read_bot(engine: Engine, name: str, viewer: Viewer) -> Bot:
    """The bot *name* means, if *viewer* may read its logs (its owner or an organiser).

    :raises StorageError: if there is no such bot.
    :raises PermissionDenied: for anyone else, in one line.
    """
    with read_session(engine) as session:
        bot = resolve_name(session, Bot, name)
        owner = None if bot is None else session.get(User, bot.owner_id)
    if bot is None:
        raise StorageError(f"no bot named {name[:70]!r}")
    if not viewer.may_read(bot.owner_id):
        owner_name = owner.name if owner is not None else "?"
        raise PermissionDenied(
            f"bot {bot.name!r} is {owner_name}'s: only {owner_name} or an organiser may "
            "read its logs"
        )
    return bot


@database_errors
def author_bots(engine: Engine, owner_id: int, viewer: Viewer) -> list[AuthorBot]:
    """Every bot *owner_id* owns, with its versions' states and failed submissions.

    :raises PermissionDenied: unless *viewer* is that user or an organiser.
    """
    if not viewer.may_read(owner_id):
        raise PermissionDenied("only a bot's owner or an organiser sees its workspace")
    with read_session(engine) as session:
        bots = session.exec(
            select(Bot).where(col(Bot.owner_id) == owner_id).order_by(col(Bot.name))
        ).all()
        owner = session.get(User, owner_id)
        versions = session.exec(
            select(BotVersion)
            .where(col(BotVersion.bot_id).in_([row_id(b) for b in bots]))
            .order_by(col(BotVersion.bot_id), col(BotVersion.seq))
        ).all()
    version_ids = [row_id(v) for v in versions]
    played = _games_played(engine, version_ids, viewer)
    places, entered = _places(engine, version_ids, viewer)
    out = []
    for bot in bots:
        own = [v for v in versions if v.bot_id == bot.id]
        own_ids = {row_id(v) for v in own}
        # Another user's refused try under this name is theirs to read, not the owner's.
        tried = [
            s
            for s in bot_submissions(engine, bot.name, own_ids)
            if s.user_id == bot.owner_id or s.bot_version_id in own_ids
        ]
        stored_by = {s.bot_version_id: s for s in tried if s.bot_version_id is not None}
        out.append(
            AuthorBot(
                id=row_id(bot),
                name=bot.name,
                owner_id=bot.owner_id,
                owner=owner.name if owner is not None else "?",
                versions=tuple(
                    VersionState(
                        id=row_id(v),
                        seq=v.seq,
                        label=v.label,
                        submitted_at=v.submitted_at,
                        submitted_via=v.submitted_via,
                        games=played.get(row_id(v), (0, 0))[0],
                        faulted_games=played.get(row_id(v), (0, 0))[1],
                        ladders=tuple(places.get(row_id(v), [])),
                        tournaments=tuple(entered.get(row_id(v), [])),
                        submission=stored_by.get(row_id(v)),
                    )
                    for v in own
                ),
                failed=tuple(s for s in tried if s.outcome not in ("stored", "unchanged")),
            )
        )
    return out


@database_errors
def unstored_submissions(engine: Engine, user_id: int, viewer: Viewer) -> list[SubmissionInfo]:
    """*user_id*'s submissions under names that are none of their bots (a first version
    that failed its build or smoke game, a name refused), newest first.

    :raises PermissionDenied: unless *viewer* is that user or an organiser.
    """
    if not viewer.may_read(user_id):
        raise PermissionDenied("only a bot's owner or an organiser sees its workspace")
    owned = {
        str(name)
        for (name,) in read_rows(
            engine, sa_select(col(Bot.name)).where(col(Bot.owner_id) == user_id)
        )
    }
    return [s for s in user_submissions(engine, user_id) if s.bot_name not in owned]


def _games_played(
    engine: Engine, version_ids: Sequence[int], viewer: Viewer
) -> dict[int, tuple[int, int]]:
    if not version_ids:
        return {}
    rows = read_rows(
        engine,
        sa_select(
            col(GameSeat.bot_version_id),
            func.count(func.distinct(col(GameSeat.game_id))),
            func.count(func.distinct(col(GameSeat.game_id))).filter(col(GameSeat.faulted)),
        )
        .join(Game, col(Game.id) == col(GameSeat.game_id))
        .join(Tournament, col(Tournament.id) == col(Game.tournament_id))
        .where(col(GameSeat.bot_version_id).in_(list(version_ids)))
        .where(_visible(viewer))
        .group_by(col(GameSeat.bot_version_id)),
    )
    return {int(v): (int(n), int(f or 0)) for v, n, f in rows}


def _places(
    engine: Engine, version_ids: Sequence[int], viewer: Viewer
) -> tuple[dict[int, list[LadderPlace]], dict[int, list[str]]]:
    if not version_ids:
        return {}, {}
    rows = read_rows(
        engine,
        sa_select(
            col(Entry.bot_version_id),
            col(Tournament.id),
            col(Tournament.name),
            col(Entry.left_at),
            col(Entry.left_because),
            col(LadderSettings.tournament_id).is_not(None),
        )
        .join(Tournament, col(Tournament.id) == col(Entry.tournament_id))
        .outerjoin(LadderSettings, col(LadderSettings.tournament_id) == col(Tournament.id))
        .where(col(Entry.bot_version_id).in_(list(version_ids)))
        .where(_visible(viewer))
        .order_by(col(Tournament.id)),
    )
    places: dict[int, list[LadderPlace]] = {}
    entered: dict[int, list[str]] = {}
    # A version retired before migration 0011 has no reason stored: the ladder's own
    # reading of its entrants (a newer version of the bot is entered) says so.
    retired = {
        (tournament_id, entrant.bot_version_id)
        for tournament_id in {row[1] for row in rows if row[5]}
        for entrant in ladder_entrants(engine, tournament_id)
        if entrant.retired
    }
    for version_id, tournament_id, name, left_at, left_because, ladder in rows:
        entered.setdefault(version_id, []).append(name)
        if ladder:
            because = left_because
            if because is None and (tournament_id, version_id) in retired:
                because = RETIRED
            places.setdefault(version_id, []).append(
                LadderPlace(tournament_id, name, left_at, because)
            )
    return places, entered


# ----------------------------------------------------------------------------- games


def _version_games(version_id: int, viewer: Viewer) -> Any:
    return (
        sa_select(col(Game.id))
        .join(GameSeat, col(GameSeat.game_id) == col(Game.id))
        .join(Tournament, col(Tournament.id) == col(Game.tournament_id))
        .where(col(GameSeat.bot_version_id) == version_id)
        .where(_visible(viewer))
        .distinct()
    )


@database_errors
def version_game_count(engine: Engine, version_id: int, viewer: Viewer) -> int:
    """Stored games of version *version_id* that *viewer* may see."""
    inner = _version_games(version_id, viewer).subquery()
    ((count,),) = read_rows(engine, sa_select(func.count()).select_from(inner))
    return int(count)


@database_errors
def version_games(
    engine: Engine, version_id: int, viewer: Viewer, *, start: int = 0, limit: int = 20
) -> list[VersionGame]:
    """A page of version *version_id*'s games that *viewer* may see, newest first, each
    with the version's faults and time per decision (from the records of this page only).
    """
    ids = [
        row[0]
        for row in read_rows(
            engine,
            _version_games(version_id, viewer)
            .order_by(col(Game.id).desc())
            .offset(max(0, start))
            .limit(max(0, min(limit, MAX_PAGE))),
        )
    ]
    if not ids:
        return []
    rows = read_rows(
        engine,
        sa_select(
            col(Game.id),
            col(Game.tournament_id),
            col(Tournament.name),
            col(Tournament.private_to),
            col(Game.schedule_index),
            col(Game.created_at),
            col(Game.seats),
            col(Game.record),
            col(Tournament.time_control),
        )
        .join(Tournament, col(Tournament.id) == col(Game.tournament_id))
        .where(col(Game.id).in_(ids))
        .order_by(col(Game.id).desc()),
    )
    out = []
    for game_id, tournament_id, name, private_to, index, created, seats_text, text, tc in rows:
        seats = tuple(s for s, v in enumerate(json.loads(seats_text)) if v == version_id)
        record = json.loads(text)
        faults = sum(
            1 for f in record.get("faults") or [] if isinstance(f, dict) and f.get("seat") in seats
        )
        out.append(
            VersionGame(
                game_id=game_id,
                tournament_id=tournament_id,
                tournament=name,
                private=private_to is not None,
                schedule_index=index,
                created_at=created,
                seats=seats,
                faults=faults,
                timing=timing(record, seats),
                time_control=str(record.get("time_control") or tc),
            )
        )
    return out


def timing(record: dict[str, Any], seats: Sequence[int]) -> GameTiming:
    """The time per decision of *seats* in *record* (``timings.decision_ms``): mean, 99th
    percentile (nearest rank, as the referee's match statistics) and maximum."""
    timings = record.get("timings")
    per_seat = timings.get("decision_ms") if isinstance(timings, dict) else None
    times: list[float] = []
    if isinstance(per_seat, list):
        for seat in seats:
            if 0 <= seat < len(per_seat) and isinstance(per_seat[seat], list):
                times += [float(t) for t in per_seat[seat] if isinstance(t, int | float)]
    if not times:
        return GameTiming(0, 0.0, 0.0, 0.0)
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return GameTiming(len(times), sum(times) / len(times), p99, ordered[-1])


@database_errors
def viewable_record(engine: Engine, game_id: int, viewer: Viewer) -> dict[str, Any]:
    """Stored game *game_id*'s record as *viewer* may read it (:func:`redact_record`).

    :raises StorageError: if there is no such game, or it belongs to a private tournament
        that is not the viewer's (the same words: its existence is private too).
    """
    rows = read_rows(
        engine,
        sa_select(col(Game.seats), col(Game.record))
        .join(Tournament, col(Tournament.id) == col(Game.tournament_id))
        .where(col(Game.id) == game_id)
        .where(_visible(viewer)),
    )
    if not rows:
        raise StorageError(f"no game with id {game_id}")
    seats_text, text = rows[0]
    seats = [int(s) for s in json.loads(seats_text)]
    return redact_record(json.loads(text), viewer, owners_of_seats(engine, seats))


@database_errors
def version_records(
    engine: Engine, version_id: int, viewer: Viewer, *, limit: int
) -> list[tuple[VersionGame, dict[str, Any]]]:
    """The newest *limit* games of version *version_id* that *viewer* may see, each with
    its record as the viewer may read it (for an archive of a version's games)."""
    games = []
    for start in range(0, max(0, limit), MAX_PAGE):
        page = version_games(
            engine, version_id, viewer, start=start, limit=min(MAX_PAGE, limit - start)
        )
        games += page
        if len(page) < MAX_PAGE:
            break
    return [(game, viewable_record(engine, game.game_id, viewer)) for game in games]


@database_errors
def may_see_tournament(engine: Engine, tournament_id: int, viewer: Viewer) -> bool:
    """Whether *viewer* may see tournament *tournament_id* at all (a private one is its
    requester's and the organisers')."""
    rows = read_rows(
        engine,
        sa_select(col(Tournament.id))
        .where(col(Tournament.id) == tournament_id)
        .where(_visible(viewer)),
    )
    return bool(rows)


def version_of(bot: AuthorBot, version: str | None) -> VersionState:
    """The version of *bot* that *version* names (its label, ``version`` field or seq;
    default: the latest).

    :raises StorageError: if none does.
    """
    if not bot.versions:
        raise StorageError(f"bot {bot.name!r} has no stored version")
    if version is None:
        return bot.versions[-1]
    for v in reversed(bot.versions):
        if version in (v.label, str(v.seq), v.label.split("@", 1)[-1]):
            return v
    raise StorageError(
        f"bot {bot.name!r} has no version {version[:40]!r} "
        f"(it has {', '.join(v.label for v in bot.versions)})"
    )
