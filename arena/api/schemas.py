"""The API's request and response bodies (pydantic), which its OpenAPI document describes.

Field names follow docs/api.md's contract; times are ISO 8601 in UTC. The standings are
exactly ``arena standings NAME --json``'s object
(:func:`arena.storage.standings.standings_json`), and a game is its ``arena952.game/1``
record (docs/record-format.md) as the caller may read it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from arena.storage.test_matches import MAX_TEST_BOARDS


def utc(moment: datetime) -> datetime:
    """*moment* in UTC (a naive one is taken as UTC already)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class Health(BaseModel):
    status: Literal["ok"]
    database: Literal["ok"]
    version: str


class TokenView(BaseModel):
    name: str
    scopes: list[str]
    expires_at: datetime | None


class Me(BaseModel):
    user: str
    token: TokenView


class SubmissionAccepted(BaseModel):
    submission_id: int
    state: Literal["running"]
    url: str


class Submission(BaseModel):
    id: int
    bot: str
    """The name the manifest gave, or the archive's before it was read."""
    version: str | None
    via: str
    state: str = Field(
        description="running, stored, unchanged, refused, build_failed, smoke_failed or "
        "interrupted (the server stopped during the build: submit again; costs no quota)"
    )
    message: str
    log: str = Field(description="The build's output and the smoke game's: yours only.")
    label: str | None = Field(description="The stored version's label, once stored.")
    submitted_at: datetime
    finished_at: datetime | None


class SubmissionSummary(BaseModel):
    id: int
    bot: str
    state: str
    message: str
    submitted_at: datetime


class LadderState(BaseModel):
    tournament: str
    state: str = Field(description="entered, withdrawn or retired")


class Version(BaseModel):
    seq: int
    label: str
    submitted_at: datetime
    via: str
    games: int
    faulted_games: int
    state: str = Field(description="One line: stored, and its ladders.")
    ladders: list[LadderState]


class Bot(BaseModel):
    name: str
    owner: str
    versions: list[Version]
    failed_submissions: list[SubmissionSummary]


class Bots(BaseModel):
    bots: list[Bot]
    unstored_submissions: list[SubmissionSummary] = Field(
        description="Submissions under names that are none of your bots (a failed first version)."
    )


class Timing(BaseModel):
    decisions: int
    mean_ms: float
    p99_ms: float
    max_ms: float


class GameSummary(BaseModel):
    id: int
    tournament: str
    private: bool
    schedule_index: int
    created_at: datetime
    version: str
    seats: list[int]
    faults: int
    timing: Timing


class GamePage(BaseModel):
    games: list[GameSummary]
    next: str | None = Field(description="The next page's URL, or null on the last page.")


class GameRecord(RootModel[dict[str, Any]]):
    """An ``arena952.game/1`` record (docs/record-format.md) as the caller may read it: the
    logs and fault details of the caller's own seats only."""


class TestMatchRequest(BaseModel):
    __test__ = False  # not a pytest test class
    model_config = ConfigDict(extra="forbid")

    bot: str = Field(min_length=1, max_length=200)
    opponents: list[str] = Field(
        min_length=1, max_length=2, description="Active bots or builtin:random|greedy|pimc."
    )
    boards: int = Field(default=1, ge=1, le=MAX_TEST_BOARDS)
    ruleset: str = Field(default="classic", max_length=40)
    version: str | None = Field(default=None, max_length=80)


class TestMatchAccepted(BaseModel):
    __test__ = False

    id: int
    state: Literal["queued"]
    url: str


class TestMatch(BaseModel):
    __test__ = False

    id: int
    bot: str
    opponents: list[str]
    boards: int
    ruleset: str
    state: str = Field(description="queued, running, played, failed or cancelled")
    queue_position: int | None
    tournament: str | None
    games_stored: int
    games_total: int
    message: str
    requested_at: datetime
    finished_at: datetime | None


class StandingRow(BaseModel):
    rank: int
    bot: str
    version: str
    label: str
    owner: str
    left: str | None
    bot_version_id: int
    mu: float
    sigma: float
    conservative: float
    p_above_next: float | None
    rank_low: int
    rank_high: int
    games: int
    wins: int
    mean_score: float
    made_9: float | None
    made_5: float | None
    made_2: float | None
    faults: int
    clean_games: int = Field(description="Games without a fault of the bot's")
    clean_wins: int = Field(description="Wins in those games (never the autopilot's)")
    clean_mean_score: float | None = Field(description="Mean score over those games")
    retired: bool = Field(description="A ladder version replaced by a newer one")


class Standings(BaseModel):
    """``arena standings NAME --json``."""

    tournament: str | None
    arena_faults: int | None
    games_stored: int | None
    games_rated: int | None
    legend: str
    fault_rule: str
    retired_hidden: int
    standings: list[StandingRow]
