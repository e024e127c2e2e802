"""The submission log: every ``submit_bot`` leaves one finished row, whatever its outcome.

Each outcome through the real submission path (real builds in the sandbox, real smoke
games through the referee), on SQLite and PostgreSQL: stored, unchanged, refused (a broken
manifest, another user's name), build failed and smoke game failed, each with its log; an
unexpected error still finishes its row, and a row that cannot be finished never hides the
submission's own error. The log's cap keeps the end, and says how much was cut; the daily
quota counts only what cost a build.
"""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from arena import storage
from arena import submission as submission_module
from arena.accounts import admin
from arena.storage import submissions
from arena.storage.database import StorageError
from arena.storage.models import utcnow
from arena.storage.submissions import (
    MAX_LOG_BYTES,
    SubmissionInfo,
    capped_log,
    costly_submissions_since,
    finish_submission,
    start_submission,
    user_submissions,
)
from arena.submission import SubmitError, submit_bot

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "random_bot"


def _bot(tmp_path: Path, name: str, *, build: str | None = None, code: str | None = None) -> Path:
    """random_bot's files under bot name *name*, with a build command or other code."""
    folder = tmp_path / name
    shutil.copytree(RANDOM_BOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = (folder / "bot.toml").read_text().replace('"random_bot"', f'"{name}"')
    if build is not None:
        manifest += f"build = {build!r}\n"
    (folder / "bot.toml").write_text(manifest)
    if code is not None:
        (folder / "bot.py").write_text(code)
    return folder


def _user(engine: Engine, name: str) -> storage.Actor:
    admin.add_user(engine, storage.actor(engine), name, "participant", must_change_password=False)
    return storage.actor(engine, name)


def _latest(engine: Engine, user: storage.Actor) -> SubmissionInfo:
    rows = user_submissions(engine, user.id)
    assert rows and rows[0].finished_at is not None and rows[0].outcome != "running"
    return rows[0]


def test_stored_then_unchanged(engine: Engine, tmp_path: Path) -> None:
    alice = _user(engine, "alice")
    folder = _bot(tmp_path, "alice_bot")
    version, created = submit_bot(engine, folder, tmp_path / "data", submitter=alice)
    assert created
    row = _latest(engine, alice)
    assert (row.outcome, row.bot_name, row.version, row.via) == (
        "stored",
        "alice_bot",
        "1.0.0",
        "cli",
    )
    assert row.bot_version_id == version.id and row.message == f"stored {version.label}"
    assert "== smoke game: 0 fault(s)" in row.log

    again, created = submit_bot(engine, folder, tmp_path / "data", submitter=alice, via="dashboard")
    assert not created and again.id == version.id
    row = _latest(engine, alice)
    assert (row.outcome, row.via, row.bot_version_id) == ("unchanged", "dashboard", version.id)
    assert len(user_submissions(engine, alice.id)) == 2


def test_refusals_are_recorded_and_cost_nothing(engine: Engine, tmp_path: Path) -> None:
    alice, bob = _user(engine, "alice"), _user(engine, "bob")
    submit_bot(engine, _bot(tmp_path, "alice_bot"), tmp_path / "data", submitter=alice)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text("name = [\n")
    with pytest.raises(SubmitError):
        submit_bot(engine, broken, tmp_path / "data", submitter=bob, name_hint="upload.zip")
    row = _latest(engine, bob)
    assert (row.outcome, row.bot_name, row.version) == ("refused", "upload.zip", None)
    assert "bot.toml" in row.message

    copy = _bot(tmp_path / "bob", "alice_bot")
    with pytest.raises(SubmitError, match="belongs to alice"):
        submit_bot(engine, copy, tmp_path / "data", submitter=bob)
    row = _latest(engine, bob)
    assert (row.outcome, row.bot_name) == ("refused", "alice_bot")
    assert "belongs to alice" in row.message and row.bot_version_id is None
    hour_ago = utcnow() - timedelta(hours=1)
    assert costly_submissions_since(engine, bob.id, hour_ago) == 0
    assert costly_submissions_since(engine, alice.id, hour_ago) == 1  # the control


def test_build_failure_keeps_the_build_output(engine: Engine, tmp_path: Path) -> None:
    alice = _user(engine, "alice")
    folder = _bot(tmp_path, "broken_build", build="sh -c 'echo BUILD-OUTPUT-MARK; exit 3'")
    with pytest.raises(SubmitError, match="exit code 3"):
        submit_bot(engine, folder, tmp_path / "data", submitter=alice)
    row = _latest(engine, alice)
    assert row.outcome == "build_failed" and "exit code 3" in row.message
    assert "BUILD-OUTPUT-MARK" in row.log
    assert storage.latest_version(engine, "broken_build") is None  # nothing stored
    assert costly_submissions_since(engine, alice.id, utcnow() - timedelta(hours=1)) == 1


SMOKE_FAILS = """
import sys
from arena.sdk import Bot

class Crashing(Bot):
    name, version = "crashing", "1.0.0"

    def trump(self, obs):
        print("SMOKE-STDERR-MARK about to fail", file=sys.stderr, flush=True)
        raise SystemExit(7)

    play = discard = give = trump

if __name__ == "__main__":
    Crashing().run()
"""


def test_smoke_failure_keeps_the_faults_and_stderr(engine: Engine, tmp_path: Path) -> None:
    alice = _user(engine, "alice")
    folder = _bot(tmp_path, "crashing", code=SMOKE_FAILS)
    with pytest.raises(SubmitError, match="smoke game failed"):
        submit_bot(engine, folder, tmp_path / "data", submitter=alice)
    row = _latest(engine, alice)
    assert row.outcome == "smoke_failed" and row.message.startswith("smoke game failed: crash")
    assert "== smoke game: 1 fault(s)" in row.log and "SMOKE-STDERR-MARK" in row.log
    assert storage.latest_version(engine, "crashing") is None
    since = utcnow() - timedelta(hours=1)
    assert costly_submissions_since(engine, alice.id, since) == 1
    assert costly_submissions_since(engine, alice.id, utcnow() + timedelta(seconds=5)) == 0


def test_an_unexpected_error_finishes_the_row_and_still_raises(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = _user(engine, "alice")

    def broken_build(*args: object, **kwargs: object) -> str:
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(submission_module, "build", broken_build)
    with pytest.raises(RuntimeError, match="the disk caught fire"):
        submit_bot(engine, _bot(tmp_path, "alice_bot"), tmp_path / "data", submitter=alice)
    row = _latest(engine, alice)
    assert row.outcome == "refused"
    assert row.message == "the arena failed: RuntimeError: the disk caught fire"


def test_a_row_that_cannot_finish_never_hides_the_submissions_error(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = _user(engine, "alice")

    def failing_finish(*args: object, **kwargs: object) -> None:
        raise StorageError("finish_submission: database error: gone")

    monkeypatch.setattr(submissions, "finish_submission", failing_finish)
    folder = _bot(tmp_path, "broken_build", build="sh -c 'exit 4'")
    with pytest.raises(SubmitError, match="exit code 4"):  # not the StorageError
        submit_bot(engine, folder, tmp_path / "data", submitter=alice)
    (row,) = user_submissions(engine, alice.id)
    assert row.outcome == "running"  # the control: finishing really failed


def test_the_log_is_capped_at_its_end(engine: Engine) -> None:
    alice = _user(engine, "alice")
    small = "build ok\nsmoke ok\n"
    assert capped_log(small) == small  # the control: a short log is kept whole
    huge = "x" * (3 * MAX_LOG_BYTES) + "\nTHE-LAST-LINE é\n"
    capped = capped_log(huge)
    assert len(capped.encode()) <= MAX_LOG_BYTES and capped.endswith("THE-LAST-LINE é\n")
    cut = int(capped.split(" earlier bytes")[0].lstrip("["))
    assert cut == len(huge.encode()) - len(capped.split("\n", 1)[1].encode())

    row = start_submission(engine, user_id=alice.id, bot_name="b", via="cli")
    finish_submission(engine, row, outcome="build_failed", message="a\nb " * 400, log=huge)
    (stored,) = user_submissions(engine, alice.id)
    assert stored.log == capped and "\n" not in stored.message and len(stored.message) <= 500
    with pytest.raises(StorageError):
        finish_submission(engine, row, outcome="running", message="")
