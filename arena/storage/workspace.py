"""A bot author's workspace: their bots, each version's state and games, with their logs.

The read model the My bots page and ``arena bot logs`` share: every version with its
state (stored, in which ladders, withdrawn or retired) and the submission that stored it,
the failed submissions that never became a version, and the games of a version with its
time per decision (:mod:`arena.storage.workspace_games`, re-exported here). Nothing here decides who may look: :func:`check_may_read_bot` refuses
anyone but the bot's owner and organisers, and every record leaves through
:func:`arena.storage.privacy.redact_record` for the viewer. Games of a private tournament
(a test match) are listed only for the user it is private to and organisers.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func
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
from arena.storage.privacy import Viewer
from arena.storage.submissions import SubmissionInfo, bot_submissions, user_submissions
from arena.storage.users import PermissionDenied, resolve_name
from arena.storage.workspace_games import (
    MAX_PAGE,
    GameTiming,
    VersionGame,
    _visible,
    may_see_tournament,
    timing,
    version_game_count,
    version_games,
    version_records,
    viewable_record,
)


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


__all__ = [
    "MAX_PAGE",
    "AuthorBot",
    "GameTiming",
    "LadderPlace",
    "VersionGame",
    "VersionState",
    "author_bots",
    "check_may_read_bot",
    "may_see_tournament",
    "owners_with_bots",
    "timing",
    "unstored_submissions",
    "version_game_count",
    "version_games",
    "version_of",
    "version_records",
    "viewable_record",
]
