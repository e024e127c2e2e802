"""Submissions a stopped API server left ``running`` end as ``interrupted``: at the next
server's start-up, and periodically, once older than any live server's longest wait, build
and smoke game; builds still queued at shutdown at once. ``interrupted`` costs no quota.
Each with its control: a younger row, another route's row, a row the server still holds."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from arena.api import routes_submit
from arena.api.settings import ApiSettings
from arena.api.sweep import Sweeper
from arena.storage import submissions
from arena.storage.database import write_session
from arena.storage.models import Submission, utcnow
from tests.api.support import World, bot_zip, poll, upload, wait_for_submission

BOUND = ApiSettings().abandoned_after_s


def _started(world: World, user: str, *, age_s: float, via: str = "api") -> int:
    """A ``running`` submission of *user* started *age_s* seconds ago."""
    submission_id = submissions.start_submission(
        world.engine, user_id=world.actor(user).id, bot_name="some_bot", via=via
    )
    with write_session(world.engine) as session:
        session.execute(
            update(Submission)
            .where(Submission.id == submission_id)  # type: ignore[arg-type]
            .values(submitted_at=utcnow() - timedelta(seconds=age_s))
        )
        session.commit()
    return submission_id


def _outcome(world: World, submission_id: int) -> str:
    info = submissions.get_submission(world.engine, submission_id)
    assert info is not None
    return info.outcome


def test_stale_api_submissions_are_interrupted_and_cost_no_quota(world: World) -> None:
    old = _started(world, "alice", age_s=BOUND + 60)
    young = _started(world, "alice", age_s=BOUND - 60)
    by_cli = _started(world, "alice", age_s=BOUND + 60, via="cli")
    held = _started(world, "alice", age_s=BOUND + 60)
    done = _started(world, "alice", age_s=BOUND + 60)
    submissions.finish_submission(world.engine, done, outcome="stored", message="stored x@1")
    finished = submissions.interrupt_stale_submissions(
        world.engine, via="api", started_before=utcnow() - timedelta(seconds=BOUND), keep={held}
    )
    assert finished == [old]
    info = submissions.get_submission(world.engine, old)
    assert info is not None and info.outcome == "interrupted" and info.finished_at is not None
    assert "submit again" in info.message
    for untouched in (young, by_cli, held):
        assert _outcome(world, untouched) == "running"
    # The quota counts what cost a build: the stored one, never the interrupted one.
    since = utcnow() - timedelta(days=1)
    alice = world.actor("alice").id
    assert submissions.costly_submissions_since(world.engine, alice, since) == 1
    assert "interrupted" not in submissions.COSTLY and "interrupted" in submissions.OUTCOMES


def test_the_api_sweeps_at_start_up(world: World) -> None:
    old = _started(world, "alice", age_s=BOUND + 60)
    young = _started(world, "alice", age_s=60)
    with world.client() as client:
        shown = client.get(f"/api/v1/submissions/{old}", headers=world.auth("alice")).json()
        assert shown["state"] == "interrupted" and shown["finished_at"]
        # Control: a build that may still be going on elsewhere is left alone.
        young_shown = client.get(f"/api/v1/submissions/{young}", headers=world.auth("alice"))
        assert young_shown.json()["state"] == "running"
        failed = client.get("/api/v1/bots", headers=world.auth("alice")).json()
        assert {s["state"] for s in failed["unstored_submissions"]} == {"interrupted", "running"}


def test_the_sweep_runs_periodically_and_spares_what_the_server_holds(
    sqlite_world: World,
) -> None:
    world = sqlite_world
    held: set[int] = set()
    sweeper = Sweeper(world.engine, abandoned_after_s=30, every_s=0.05, keep=lambda: held)
    assert sweeper.start() == []
    try:
        kept = _started(world, "alice", age_s=120)
        held.add(kept)
        stale = _started(world, "bob", age_s=120)
        poll(lambda: _outcome(world, stale) == "interrupted")
        assert _outcome(world, kept) == "running"
        held.clear()
        poll(lambda: _outcome(world, kept) == "interrupted")
    finally:
        sweeper.stop()


def test_builds_still_queued_at_shutdown_are_interrupted(
    sqlite_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = sqlite_world
    release = threading.Event()
    started: list[int] = []

    def held_build(engine: Any, path: Path, data_dir: Path, **options: Any) -> None:
        started.append(options["submission_id"])
        assert release.wait(120)
        submissions.finish_submission(
            engine, options["submission_id"], outcome="refused", message="let go"
        )

    monkeypatch.setattr(routes_submit, "submit_bot", held_build)
    settings = ApiSettings(builds=1, build_queue=2)
    with world.client(settings) as client:
        running = upload(client, world.auth("alice"), bot_zip("a_bot")).json()["submission_id"]
        poll(lambda: started == [running])
        queued = upload(client, world.auth("bob"), bot_zip("b_bot")).json()["submission_id"]
    # The server stopped: the queued build never ran, and says so.
    assert _outcome(world, queued) == "interrupted"
    assert started == [running]
    # Control: the build that was running finishes on its own.
    release.set()
    poll(lambda: _outcome(world, running) == "refused")
    with world.client() as client:
        assert wait_for_submission(client, world.auth("alice"), running)["message"] == "let go"
