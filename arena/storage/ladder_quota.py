"""An open ladder's daily quota of versions per participant: the refusal a submission gets,
before anything is built, once its author has stored the most versions the ladder allows
in 24 hours (organisers are never refused)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import Engine
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from arena.storage.database import (
    database_errors,
    read_rows,
    read_session,
)
from arena.storage.models import (
    LadderSettings,
    Submission,
    Tournament,
    User,
)
from arena.storage.submissions import COSTLY, costly_submissions_since

QUOTA_WINDOW: Final = timedelta(hours=24)
"""The window an open ladder's ``max_versions_per_day`` counts submissions over."""


@database_errors
def version_quota_refusal(engine: Engine, user_id: int, now: datetime) -> str | None:
    """Why user *user_id* may not submit a version at *now*, in one line saying when they
    may try again; ``None`` if they may.

    An open ladder with ``max_versions_per_day`` caps a participant's submissions that
    cost a build (:data:`arena.storage.submissions.COSTLY`) in the last 24 hours; the
    strictest open ladder counts. Organisers are never refused.
    """
    with read_session(engine) as session:
        user = session.get(User, user_id)
        if user is None or user.role == "organiser":
            return None
        strictest = session.exec(
            select(Tournament.name, LadderSettings.max_versions_per_day)
            .join(LadderSettings, col(LadderSettings.tournament_id) == col(Tournament.id))
            .where(col(LadderSettings.open), col(LadderSettings.max_versions_per_day).is_not(None))
            .order_by(col(LadderSettings.max_versions_per_day), col(Tournament.id))
        ).first()
    if strictest is None or strictest[1] is None:
        return None
    ladder, quota = strictest
    since = now - QUOTA_WINDOW
    counted = costly_submissions_since(engine, user_id, since)
    if counted < quota:
        return None
    # One more fits once enough of them have left the window: the (counted - quota + 1)th
    # oldest is the last that must go (the oldest, unless the quota was lowered).
    times = read_rows(
        engine,
        sa_select(col(Submission.submitted_at))
        .where(
            col(Submission.user_id) == user_id,
            col(Submission.submitted_at) >= since,
            col(Submission.outcome).in_(COSTLY),
        )
        .order_by(col(Submission.submitted_at))
        .offset(counted - quota)
        .limit(1),
    )
    retry = (times[0][0] if times else now) + QUOTA_WINDOW
    return (
        f"{user.name} has submitted {counted} versions in the last 24 hours, the most the "
        f"open ladder {ladder!r} allows; try again after {retry:%Y-%m-%d %H:%M:%S} UTC"
    )
