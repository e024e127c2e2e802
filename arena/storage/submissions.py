"""Every submission tried, stored or not: its outcome, one line, and its capped log.

:func:`arena.submission.submit_bot` starts a row before it builds anything and finishes it
on every path, so a bot that failed its build or smoke game leaves a trace its author can
read later (the My bots page, ``arena bot logs``), and the daily version quota of open
ladders counts what submissions cost (:func:`costly_submissions_since`).

The HTTP API builds in the background, after it has answered: a row its server left
``running`` when it died is finished as ``interrupted`` (:func:`interrupt_stale_submissions`),
which no quota counts.

The log holds the build's output and the smoke game's faults and stderr: bot text, private
to the submitter and organisers (docs/security.md, "Privacy of a bot's logs"), and capped
at :data:`MAX_LOG_BYTES`, keeping the end, where the error is.

:raises StorageError: from every function, with a one-line message.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from sqlalchemy import Engine, func
from sqlalchemy import select as sa_select
from sqlmodel import col, select
from sqlmodel.sql.expression import SelectOfScalar

from arena.storage.database import (
    StorageError,
    database_errors,
    read_rows,
    read_session,
    write_session,
)
from arena.storage.models import Submission, utcnow

LOGGER = logging.getLogger(__name__)

Outcome = Literal[
    "running", "stored", "unchanged", "refused", "build_failed", "smoke_failed", "interrupted"
]
OUTCOMES: Final = (
    "running", "stored", "unchanged", "refused", "build_failed", "smoke_failed", "interrupted"
)  # fmt: skip
COSTLY: Final = ("stored", "build_failed", "smoke_failed")
"""Outcomes that cost the arena a build (and a smoke game): what a daily quota counts. A
refusal costs nothing (it is decided before the build), nor does an unchanged bot, nor
one ``interrupted`` (the server that was building it stopped: the arena's doing, not the
author's)."""
INTERRUPTED_MESSAGE: Final = (
    "interrupted: the server stopped before the build finished; nothing was stored, submit again"
)
MAX_LOG_BYTES: Final = 64 * 1024
"""The most of a submission's log kept (UTF-8 bytes); its end is kept, where errors are."""
MAX_MESSAGE: Final = 500
"""The message column's width."""


@dataclass(frozen=True, slots=True)
class SubmissionInfo:
    """One submission as its author and organisers see it."""

    id: int
    user_id: int
    bot_name: str
    version: str | None
    via: str
    submitted_at: datetime
    finished_at: datetime | None
    outcome: str
    message: str
    log: str
    bot_version_id: int | None


def capped_log(text: str, limit: int = MAX_LOG_BYTES) -> str:
    """*text* if it fits in *limit* UTF-8 bytes, else its end, after a line saying how
    many bytes were cut from the start."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    notice_room = 80
    kept = data[len(data) - max(0, limit - notice_room) :].decode("utf-8", "ignore")
    cut = len(data) - len(kept.encode("utf-8"))
    return (
        f"[{cut} earlier bytes of this log were cut; the last {limit // 1024} KiB are kept]\n{kept}"
    )


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """*text* on one line, at most *limit* characters (the message column)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


@database_errors
def start_submission(
    engine: Engine, *, user_id: int, bot_name: str, via: str, version: str | None = None
) -> int:
    """Store a ``running`` submission of *bot_name* by *user_id*; its id."""
    row = Submission(user_id=user_id, bot_name=bot_name[:64], version=_short(version), via=via[:16])
    with write_session(engine) as session:
        session.add(row)
        session.commit()
        if row.id is None:  # set by the insert; keeps mypy honest
            raise StorageError("the submission was not stored")
        return row.id


@database_errors
def name_submission(engine: Engine, submission_id: int, bot_name: str, version: str) -> None:
    """Set the name and version the bot's manifest gave (once it has been read)."""
    with write_session(engine) as session:
        row = _row(session.get(Submission, submission_id), submission_id)
        row.bot_name = bot_name[:64]
        row.version = _short(version)
        session.add(row)
        session.commit()


@database_errors
def finish_submission(
    engine: Engine,
    submission_id: int,
    *,
    outcome: Outcome,
    message: str,
    log: str = "",
    bot_version_id: int | None = None,
) -> None:
    """Finish a submission with its *outcome*, a one-line *message* and its *log* (capped)."""
    if outcome not in OUTCOMES or outcome == "running":
        raise StorageError(f"a submission cannot finish as {outcome!r}")
    with write_session(engine) as session:
        row = _row(session.get(Submission, submission_id), submission_id)
        row.outcome = outcome
        row.message = one_line(message)
        row.log = capped_log(log)
        row.bot_version_id = bot_version_id
        row.finished_at = utcnow()
        session.add(row)
        session.commit()


@database_errors
def interrupt_stale_submissions(
    engine: Engine, *, via: str, started_before: datetime, keep: Collection[int] = ()
) -> list[int]:
    """Finish as ``interrupted`` every submission *via* a route still ``running`` that
    started before *started_before*, except those in *keep* (the caller's own, still being
    built); their ids.

    A server that dies while it builds (``arena api``'s background builds) leaves its rows
    running: nothing else would ever finish them. The caller chooses *started_before* so
    that no live server can still be working on such a row.
    """
    statement = (
        select(Submission)
        .where(col(Submission.outcome) == "running")
        .where(col(Submission.via) == via[:16])
        .where(col(Submission.submitted_at) < started_before)
    )
    finished: list[int] = []
    with write_session(engine) as session:
        for row in session.exec(statement).all():
            if row.id is None or row.id in keep:
                continue
            row.outcome = "interrupted"
            row.message = INTERRUPTED_MESSAGE
            row.finished_at = utcnow()
            session.add(row)
            finished.append(row.id)
        session.commit()
    if finished:
        LOGGER.warning("marked %d submission(s) via %s interrupted", len(finished), via)
    return finished


@database_errors
def get_submission(engine: Engine, submission_id: int) -> SubmissionInfo | None:
    """Submission *submission_id*, or ``None`` (nothing here decides who may read it)."""
    return next(
        iter(_infos(engine, select(Submission).where(Submission.id == submission_id), 1)), None
    )


@database_errors
def costly_submissions_since(
    engine: Engine, user_id: int, since: datetime, outcomes: Collection[str] = COSTLY
) -> int:
    """How many of *user_id*'s submissions since *since* ended in one of *outcomes*
    (default :data:`COSTLY`: those that cost a build), for a daily version quota."""
    statement = (
        sa_select(func.count())
        .select_from(Submission)
        .where(col(Submission.user_id) == user_id)
        .where(col(Submission.submitted_at) >= since)
        .where(col(Submission.outcome).in_(list(outcomes)))
    )
    ((count,),) = read_rows(engine, statement)
    return int(count)


@database_errors
def user_submissions(
    engine: Engine, user_id: int, *, bot_name: str | None = None, limit: int = 200
) -> list[SubmissionInfo]:
    """*user_id*'s submissions (of *bot_name* only, if given), newest first, at most *limit*."""
    statement = select(Submission).where(col(Submission.user_id) == user_id)
    if bot_name is not None:
        statement = statement.where(col(Submission.bot_name) == bot_name)
    return _infos(engine, statement, limit)


@database_errors
def bot_submissions(
    engine: Engine, bot_name: str, version_ids: Collection[int], *, limit: int = 200
) -> list[SubmissionInfo]:
    """Submissions of *bot_name* by anyone (an organiser may submit its versions), and
    those that stored one of *version_ids*, newest first, at most *limit*."""
    statement = select(Submission).where(
        (col(Submission.bot_name) == bot_name)
        | col(Submission.bot_version_id).in_(list(version_ids))
    )
    return _infos(engine, statement, limit)


def _infos(
    engine: Engine, statement: SelectOfScalar[Submission], limit: int
) -> list[SubmissionInfo]:
    ordered = statement.order_by(col(Submission.id).desc()).limit(max(0, limit))
    with read_session(engine) as session:
        rows = session.exec(ordered).all()
    return [
        SubmissionInfo(
            id=row.id or 0,
            user_id=row.user_id,
            bot_name=row.bot_name,
            version=row.version,
            via=row.via,
            submitted_at=row.submitted_at,
            finished_at=row.finished_at,
            outcome=row.outcome,
            message=row.message,
            log=row.log,
            bot_version_id=row.bot_version_id,
        )
        for row in rows
    ]


def _row(row: Submission | None, submission_id: int) -> Submission:
    if row is None:
        raise StorageError(f"no submission with id {submission_id}")
    return row


def _short(version: str | None) -> str | None:
    return None if version is None else version[:32]
