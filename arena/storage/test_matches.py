"""Test matches: a participant's unranked match, queued for the queue runner and played as a
private tournament (``arena bot test``, the dashboard's Test match page).

A request is checked here, in the transaction that stores it, so the CLI and the dashboard
refuse the same things with the same words: a participant tests only their own bots
(organisers any), against one or two distinct active bots or house bots (``builtin:NAME``),
within the arena's ``test_boards_per_hour`` quota (organisers have none). The requester's
account row is locked while the quota is counted, so two requests racing from two tabs
cannot both slip under it.

Who sees what: a tournament with ``private_to`` set (a test match's) is visible to its
requester and to organisers only (:func:`may_see_tournament`), on every page and listing.

One queue runner plays at a time (:func:`queue_lock`, a lock its holder's death releases,
as :mod:`arena.storage.runner_lock` does for a tournament), so the arena-wide cap on test
games at once holds. The queue and its lock are :mod:`arena.storage.test_match_queue`, its
names re-exported here.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from arena.game.rules import PRESETS
from arena.storage.database import StorageError, database_errors, read_session, write_session
from arena.storage.models import Bot, BotVersion, TestMatch, Tournament, User, row_id, utcnow
from arena.storage.settings import get_int
from arena.storage.test_match_queue import (
    QUEUE_ADVISORY_KEYS,
    TEST_MATCH_PREFIX,
    QueueBusy,
    attach_tournament,
    claim_test_match,
    finish_test_match,
    get_test_match,
    match_id,
    next_test_match,
    private_tournament,
    queue_busy_message,
    queue_lock,
    queue_runner_busy,
    tournament_name,
)
from arena.storage.users import Actor, PermissionDenied, resolve_name

LOGGER = logging.getLogger(__name__)

HOUSE_PREFIX: Final = "builtin:"
HOUSE_BOTS: Final = {
    "builtin:random": "builtin_random",
    "builtin:greedy": "builtin_greedy",
    "builtin:pimc": "builtin_pimc",
}
"""The house bots a test match may name, and the bot each is stored as (from
``sample_bots/``, on first use) under :data:`HOUSE_ACCOUNT`. In this order they fill a
match's third seat when one opponent is chosen."""
HOUSE_ACCOUNT: Final = "house"
"""The account that owns the house bots: it has no password, so nobody logs in as it."""
MAX_TEST_BOARDS: Final = 20
"""The most boards one test match may ask for (each is 6 games)."""
QUOTA_WINDOW: Final = timedelta(hours=1)
"""The ``test_boards_per_hour`` window."""
STATUSES: Final = ("queued", "running", "played", "failed", "cancelled")
COUNTED: Final = ("queued", "running", "played")
"""The requests the quota counts: a failed match (the arena's failure) or a cancelled one
costs its requester nothing."""


class QuotaExceeded(PermissionDenied):
    """A participant's test-match quota is spent; :attr:`retry_at` says when it frees."""

    def __init__(self, message: str, retry_at: datetime | None) -> None:
        super().__init__(message)
        self.retry_at = retry_at
        """When enough of the window's boards leave it (``None``: never, as asked)."""


def may_see_tournament(private_to: int | None, viewer: Actor | None) -> bool:
    """Whether *viewer* (``None``: a spectator) may see a tournament private to user id
    *private_to* (``None``: a public tournament, seen by all)."""
    if private_to is None:
        return True
    return viewer is not None and (viewer.is_organiser or viewer.id == private_to)


def seated_opponents(opponents: Sequence[str]) -> list[str]:
    """The two opponents a match seats: those asked for, and with only one, the first
    house bot (:data:`HOUSE_BOTS` order) not already at the table in the third seat."""
    seated = list(opponents)
    for house in HOUSE_BOTS:
        if len(seated) >= 2:
            break
        if house not in seated:
            seated.append(house)
    return seated


# ---------------------------------------------------------------------------- requests


@database_errors
def request_test_match(
    engine: Engine,
    *,
    by: Actor,
    bot: str,
    opponents: Sequence[str],
    boards: int = 1,
    ruleset: str = "classic",
    version: str | None = None,
) -> TestMatch:
    """Queue a test match of *bot* (its latest *version*, or the one named) against
    *opponents* for *by*; the stored request.

    :raises PermissionDenied: for another user's bot (unless *by* is an organiser).
    :raises QuotaExceeded: beyond ``test_boards_per_hour``, saying when to try again.
    :raises StorageError: for an unknown bot or version, an opponent that is unknown,
        inactive or named twice, too many or too few opponents, boards out of range or an
        unknown ruleset.
    """
    if not 1 <= len(opponents) <= 2:
        raise StorageError("choose one or two opponents")
    if not 1 <= boards <= MAX_TEST_BOARDS:
        raise StorageError(f"a test match has 1 to {MAX_TEST_BOARDS} boards, not {boards}")
    if ruleset not in PRESETS:
        raise StorageError(f"unknown ruleset {ruleset!r}: one of {', '.join(PRESETS)}")
    quota = None if by.is_organiser else get_int(engine, "test_boards_per_hour")
    with write_session(engine) as session:
        tested = _tested_version(session, by, bot, version)
        names = [_opponent(session, name) for name in opponents]
        if len(set(names)) != len(names):
            raise StorageError("an opponent is named twice")
        tested_bot = session.get(Bot, tested.bot_id)
        assert tested_bot is not None  # a version's bot is a foreign key
        if tested_bot.name in names and _latest(session, tested.bot_id).id == tested.id:
            raise StorageError(
                f"{tested.label} cannot meet itself: test an older version against "
                "the latest, or choose another opponent"
            )
        if quota is not None:
            _lock_user(session, by.id)
            _check_quota(session, by, boards, quota)
        match = TestMatch(
            requested_by=by.id,
            bot_version_id=row_id(tested),
            opponents=json.dumps(names),
            boards=boards,
            ruleset=ruleset,
        )
        session.add(match)
        session.commit()
    LOGGER.info("%s queued test match %d of %s", by.name, match_id(match), tested.label)
    return match


def _tested_version(session: Session, by: Actor, bot: str, version: str | None) -> BotVersion:
    """The version of *bot* to test: its latest, or the one *version* names.

    :raises PermissionDenied: for another user's bot, unless *by* is an organiser.
    :raises StorageError: for an unknown bot or version.
    """
    found = resolve_name(session, Bot, bot)
    if found is None:
        raise StorageError(f"no bot named {bot[:70]!r} (submit it first)")
    if found.owner_id != by.id and not by.is_organiser:
        owner = session.get(User, found.owner_id)
        raise PermissionDenied(
            f"bot {found.name!r} belongs to {owner.name if owner else '?'}: you may test "
            "only your own bots"
        )
    if version is None:
        return _latest(session, row_id(found))
    versions = session.exec(
        select(BotVersion)
        .where(BotVersion.bot_id == row_id(found))
        .where(
            (col(BotVersion.version) == version)
            | (col(BotVersion.label) == version)
            | (col(BotVersion.label) == f"{found.name}@{version}")
        )
        .order_by(col(BotVersion.seq).desc())
    ).first()
    if versions is None:
        raise StorageError(f"bot {found.name!r} has no version {version[:40]!r}")
    return versions


def _latest(session: Session, bot_id: int) -> BotVersion:
    latest = session.exec(
        select(BotVersion).where(BotVersion.bot_id == bot_id).order_by(col(BotVersion.seq).desc())
    ).first()
    if latest is None:  # a bot is stored with its first version, in one transaction
        raise StorageError("the bot has no version (submit it first)")
    return latest


def _opponent(session: Session, name: str) -> str:
    """The canonical form of opponent *name*: a house bot's ``builtin:NAME`` or the stored
    name of an active bot (one with a version, whose owner's account is enabled).

    :raises StorageError: for an unknown house bot, or an unknown or inactive bot.
    """
    name = name.strip()
    if name.startswith(HOUSE_PREFIX):
        if name not in HOUSE_BOTS:
            raise StorageError(f"no house bot {name[:40]!r}: one of {', '.join(HOUSE_BOTS)}")
        return name
    found = resolve_name(session, Bot, name)
    if found is None:
        raise StorageError(f"no bot named {name[:70]!r}")
    owner = session.get(User, found.owner_id)
    if owner is None or owner.disabled:
        raise StorageError(f"bot {found.name!r} is not active (its owner's account is disabled)")
    _latest(session, row_id(found))
    return found.name


def _lock_user(session: Session, user_id: int) -> None:
    """Lock the requester's row (PostgreSQL ``FOR UPDATE``) so their requests are counted
    one at a time; SQLite's write transaction already serialises every writer."""
    session.exec(select(User.id).where(User.id == user_id).with_for_update()).first()


def _check_quota(session: Session, by: Actor, boards: int, quota: int) -> None:
    """:raises QuotaExceeded: if *boards* more would pass *by*'s *quota* in the window."""
    now = utcnow()
    if boards > quota:
        raise QuotaExceeded(
            f"test-match quota: {quota} board(s) per hour, and this request asks for "
            f"{boards}; ask for fewer boards",
            None,
        )
    counted = list(
        session.exec(
            select(TestMatch.requested_at, TestMatch.boards)
            .where(TestMatch.requested_by == by.id)
            .where(col(TestMatch.requested_at) > now - QUOTA_WINDOW)
            .where(col(TestMatch.status).in_(COUNTED))
            .order_by(col(TestMatch.requested_at))
        ).all()
    )
    used = sum(b for _, b in counted)
    if used + boards <= quota:
        return
    # The oldest requests leave the window first: the retry time is when enough have left.
    freed, retry_at = 0, now
    for requested_at, old_boards in counted:
        freed += old_boards
        retry_at = requested_at + QUOTA_WINDOW
        if used - freed + boards <= quota:
            break
    raise QuotaExceeded(
        f"test-match quota: {quota} board(s) per hour, {used} used in the last hour; "
        f"try again after {retry_at:%Y-%m-%d %H:%M:%S} UTC",
        retry_at,
    )


@database_errors
def cancel_test_match(engine: Engine, test_match_id: int, by: Actor) -> None:
    """Cancel a queued test match (its requester or an organiser); a cancelled request
    costs no quota.

    :raises PermissionDenied: for someone else's match.
    :raises StorageError: for an unknown match, or one no longer queued.
    """
    with write_session(engine) as session:
        match = session.get(TestMatch, test_match_id)
        if match is None or not may_see_tournament(match.requested_by, by):
            raise StorageError(f"no test match #{test_match_id} of yours")
        if match.status != "queued":
            raise StorageError(f"test match #{test_match_id} is {match.status}, not queued")
        match.status, match.finished_at = "cancelled", utcnow()
        session.add(match)
        session.commit()


# ------------------------------------------------------------------------- read model


@dataclass(frozen=True, slots=True)
class TestMatchInfo:
    """One test match as the page and the CLI show it."""

    __test__ = False  # not a pytest test class

    id: int
    requested_by: str
    bot: str
    """The tested version's label."""
    opponents: tuple[str, ...]
    """The two opponents seated (the third seat's filler included), as asked."""
    boards: int
    ruleset: str
    status: str
    requested_at: datetime
    finished_at: datetime | None
    tournament: str | None
    """Its private tournament's name, once made."""
    message: str
    queue_position: int | None
    """1 for the next to play, while queued; ``None`` otherwise."""


@database_errors
def queue_position(engine: Engine, test_match_id: int) -> int | None:
    """The place of a queued match in the queue (1: the next to play), counting a match
    being played as the first; ``None`` unless it is queued."""
    with read_session(engine) as session:
        return _positions(session).get(test_match_id)


def _positions(session: Session) -> dict[int, int]:
    """Every queued match's :func:`queue_position`."""
    queued = session.exec(
        select(TestMatch.id).where(TestMatch.status == "queued").order_by(col(TestMatch.id))
    ).all()
    running = session.exec(select(TestMatch.id).where(TestMatch.status == "running")).first()
    ahead = 1 if running is not None else 0
    return {match_id: ahead + i + 1 for i, match_id in enumerate(queued) if match_id is not None}


@database_errors
def list_test_matches(engine: Engine, viewer: Actor, limit: int = 50) -> list[TestMatchInfo]:
    """*viewer*'s test matches, newest first (an organiser's: everyone's)."""
    with read_session(engine) as session:
        statement = select(TestMatch).order_by(col(TestMatch.id).desc()).limit(limit)
        if not viewer.is_organiser:
            statement = statement.where(TestMatch.requested_by == viewer.id)
        rows = list(session.exec(statement).all())
        position = _positions(session)
        users = {u.id: u.name for u in session.exec(select(User))}
        labels = {
            v.id: v.label
            for v in session.exec(
                select(BotVersion).where(col(BotVersion.id).in_([r.bot_version_id for r in rows]))
            )
        }
        names = {
            t.id: t.name
            for t in session.exec(
                select(Tournament).where(
                    col(Tournament.id).in_([r.tournament_id for r in rows if r.tournament_id])
                )
            )
        }
    return [
        TestMatchInfo(
            id=match_id(r),
            requested_by=users.get(r.requested_by, "?"),
            bot=labels.get(r.bot_version_id, "?"),
            opponents=tuple(seated_opponents(json.loads(r.opponents))),
            boards=r.boards,
            ruleset=r.ruleset,
            status=r.status,
            requested_at=r.requested_at,
            finished_at=r.finished_at,
            tournament=names.get(r.tournament_id) if r.tournament_id else None,
            message=r.message,
            queue_position=position.get(match_id(r)),
        )
        for r in rows
    ]


__all__ = [
    "COUNTED",
    "HOUSE_ACCOUNT",
    "HOUSE_BOTS",
    "HOUSE_PREFIX",
    "MAX_TEST_BOARDS",
    "QUEUE_ADVISORY_KEYS",
    "QUOTA_WINDOW",
    "STATUSES",
    "TEST_MATCH_PREFIX",
    "QueueBusy",
    "QuotaExceeded",
    "TestMatchInfo",
    "attach_tournament",
    "cancel_test_match",
    "claim_test_match",
    "finish_test_match",
    "get_test_match",
    "list_test_matches",
    "match_id",
    "may_see_tournament",
    "next_test_match",
    "private_tournament",
    "queue_busy_message",
    "queue_lock",
    "queue_position",
    "queue_runner_busy",
    "request_test_match",
    "seated_opponents",
    "tournament_name",
]
