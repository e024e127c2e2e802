"""Tournaments: creating one with its entrants, its rules, its status and the arena-fault
count. The list, overview and progress the CLI and the dashboard show are
:mod:`arena.storage.tournament_overview`, its names re-exported here.

A tournament's name is checked here, where every tournament is created (``arena tournament
create``, ``arena bot compare``, the dashboard's form), against :data:`TOURNAMENT_NAME`:
names end up in file names (``arena export``), log names and command lines, so a ``/``,
``..``, a tab or a newline must never get in.

:raises StorageError: from every function, with a one-line message, for a refused
    operation (duplicate name, unknown entrant, invalid value) or a database failure.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import ValidationError
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from arena.game.dealing import HMAC_SHUFFLE, LEGACY_SHUFFLE, SHUFFLES, secret_from_seed
from arena.game.rules import RuleSet, RuleSetError
from arena.storage.database import (
    StorageError,
    database_errors,
    one_line,
    read_session,
    write_session,
)
from arena.storage.models import (
    BOARD_DEALS,
    STATUSES,
    BotVersion,
    Entry,
    LadderSettings,
    Tournament,
    TournamentCreate,
    utcnow,
)
from arena.storage.tournament_overview import (
    Progress,
    TournamentInfo,
    list_tournaments,
    progress,
    tournament_overview,
)

LOGGER = logging.getLogger(__name__)

TOURNAMENT_NAME_MAX: Final = 120
"""The longest tournament name (the ``name`` column's ``max_length``)."""
TOURNAMENT_NAME: Final = re.compile(
    rf"[A-Za-z0-9](?:[A-Za-z0-9_.@#+,: -]{{0,{TOURNAMENT_NAME_MAX - 2}}}[A-Za-z0-9_.@#+,:-])?"
)
"""Letters, digits, spaces and ``_ . - @ # + , :``, starting with a letter or digit, not
ending in a space, 1-120 long. As :data:`arena.storage.users.USER_NAME` plus what the
arena's own names hold: ``arena bot compare`` names a test ``compare a@1.0 vs b@2 #2`` (bot
labels are ``name@version``; semantic versions may carry ``+build``), and the dashboard's
"play now" ``play now 2026-11-24 23:59:01: a, b, c``. No ``/``, control character or
leading ``.`` / ``-``: a name is safe as one quoted shell word and as part of a file name."""
NAME_SHOWN: Final = 60
"""How much of a refused name an error message echoes (a hostile name may be huge)."""


@database_errors
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
    ladder: LadderSettings | None = None,
    deal_scope: str = BOARD_DEALS,
    private_to: int | None = None,
) -> Tournament:
    """Store a new tournament and its entrants (bot version ids, in order), and for a
    ladder its stopping *ladder* settings (their ``tournament_id`` is filled in).

    Keyed tournaments (*shuffle* ``hmac-sha256/1``, the default) need the *deal_secret*
    their board keys come from; *seed* is the explicit seed it was made from, if any
    (reported as predictable). Legacy (``mt19937``) tournaments need a *seed*. *deal_scope*
    ``table`` gives every table its own boards' keys (keyed round robins only).
    *private_to* makes it a test match's tournament, seen only by that user and organisers.

    :raises StorageError: if the name exists or breaks :data:`TOURNAMENT_NAME`, an entrant
        is unknown or repeated, or a value is invalid (rating mode other than
        ``game``/``board``, boards < 1, ...).
    """
    check_tournament_name(name)
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
                "deal_scope": deal_scope,
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
    if shuffle == LEGACY_SHUFFLE and deal_scope != BOARD_DEALS:
        raise StorageError(f"tournament {name!r}: legacy deals are one per board")
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
            tournament.private_to = private_to
            session.add(tournament)
            session.flush()
            assert tournament.id is not None
            session.add_all(
                Entry(tournament_id=tournament.id, position=i, bot_version_id=v)
                for i, v in enumerate(entries)
            )
            if ladder is not None:
                ladder.tournament_id = tournament.id
                session.add(ladder)
            session.commit()
    except IntegrityError:
        raise exists from None  # created concurrently under the same name
    LOGGER.info("created tournament %s (%d entrants)", name, len(entries))
    return tournament


def shown_name(name: str) -> str:
    """*name* quoted for a one-line message, cut to :data:`NAME_SHOWN` characters (a
    5,000-character name must not fill the terminal)."""
    if len(name) <= NAME_SHOWN:
        return repr(name)
    return f"{name[:NAME_SHOWN]!r}... ({len(name)} characters)"


def check_tournament_name(name: str) -> str:
    """*name* if it may name a new tournament (:data:`TOURNAMENT_NAME`).

    :raises StorageError: saying what a name may hold, with the refused name shortened.
    """
    if not TOURNAMENT_NAME.fullmatch(name):
        raise StorageError(
            f"invalid tournament name {shown_name(name)}: use 1-{TOURNAMENT_NAME_MAX} "
            "letters, digits, spaces, '_', '.', '-', '@', '#' or '+', starting with a letter "
            "or digit and not ending in a space"
        )
    return name


class UnreadableRules(StorageError, ValueError):
    """A tournament's stored rules are not a rule set (a ``ValueError`` as a rule set's are)."""


def stored_rules(tournament: Tournament) -> RuleSet:
    """The rule set stored with *tournament* (its ``rules`` column): the one way it is read,
    so a column damaged outside the arena (hand edits, a bad restore) stops every run with
    one line naming the tournament. :raises UnreadableRules: if it is not a rule set's JSON."""
    where = f"tournament {shown_name(tournament.name)}: its stored rules are unreadable"
    try:
        data = json.loads(tournament.rules)
    except (ValueError, RecursionError) as exc:
        raise UnreadableRules(f"{where}: not JSON ({one_line(exc)[:200]})") from None
    if not isinstance(data, dict):
        raise UnreadableRules(f"{where}: not a JSON object")
    try:
        return RuleSet.from_json(data, name=tournament.ruleset)
    except RuleSetError as exc:
        raise UnreadableRules(f"{where}: {one_line(exc)[:200]}") from None


def lock_tournament(session: Session, tournament_id: int) -> Tournament:
    """Load the tournament, locking its row until commit (PostgreSQL ``FOR UPDATE``).

    Writers of one tournament take turns here, so each one sees every game committed
    before it and rates the prefix correctly. SQLite needs no row lock: the write session's
    ``BEGIN IMMEDIATE`` already serialises all writers.

    :raises StorageError: if the tournament is unknown.
    """
    tournament = session.exec(
        select(Tournament).where(Tournament.id == tournament_id).with_for_update()
    ).first()
    if tournament is None:
        raise StorageError(f"no tournament with id {tournament_id}")
    return tournament


@database_errors
def count_arena_fault(engine: Engine, tournament_id: int) -> int:
    """Count one arena fault (a game the arena failed, to be replayed) against the
    tournament; the new count.

    :raises StorageError: if the tournament is unknown.
    """
    with write_session(engine) as session:
        tournament = lock_tournament(session, tournament_id)
        tournament.arena_faults += 1
        session.add(tournament)
        session.commit()
        return tournament.arena_faults


@database_errors
def get_tournament(engine: Engine, name: str) -> Tournament:
    """The tournament called *name*.

    :raises StorageError: if there is none.
    """
    with read_session(engine) as session:
        tournament = session.exec(select(Tournament).where(Tournament.name == name)).first()
    if tournament is None:
        raise StorageError(f"no tournament named {name!r}")
    return tournament


@database_errors
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


@database_errors
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


__all__ = [
    "NAME_SHOWN",
    "TOURNAMENT_NAME",
    "TOURNAMENT_NAME_MAX",
    "Progress",
    "TournamentInfo",
    "UnreadableRules",
    "check_tournament_name",
    "count_arena_fault",
    "create_tournament",
    "entries",
    "get_tournament",
    "list_tournaments",
    "lock_tournament",
    "progress",
    "set_status",
    "shown_name",
    "stored_rules",
    "tournament_overview",
]
