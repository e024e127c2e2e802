"""``arena tournament list``, ``status`` without a name, ``remove NAME BOT``, the lines a
new version's submission prints about the ladders it enters, and ``status`` after the
runner was killed (issue 34, items 6 and 7).

The bots here are stored versions (``add_bot_version``: nothing is built or played), so
every test but the one with a real killed runner starts no process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine

from arena import storage
from arena.cli import main
from arena.cli.ladder_notice import echo_ladder_notices, ladder_notices
from arena.storage.database import open_database
from arena.storage.models import BotVersion
from tests.migrated_sqlite import migrated_sqlite_url
from tests.storage.helpers import checksum

ROOT = Path(__file__).resolve().parents[1]


class Arena:
    """A fresh SQLite database, and the CLI on it."""

    def __init__(self, tmp_path: Path) -> None:
        self.url = migrated_sqlite_url(tmp_path / "arena.db")
        self.common = ["--db", self.url, "--data", str(tmp_path / "data")]
        self.engine: Engine = open_database(self.url)

    def run(self, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main([*args, *self.common])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    def version(self, name: str, version: str = "1") -> BotVersion:
        fields = {"name": name, "version": version, "language": "python", "run": ["x"]}
        stored, _ = storage.add_bot_version(
            self.engine, fields, checksum(f"{name}@{version}"), f"/bots/{name}/{version}"
        )
        return stored

    def tournament_id(self, name: str) -> int:
        return storage.row_id(storage.get_tournament(self.engine, name))


@pytest.fixture
def arena(tmp_path: Path) -> Arena:
    """Bots a, b, c and d (one version each) and a round robin between a, b and c."""
    made = Arena(tmp_path)
    for name in "abcd":
        made.version(name)
    assert main(["tournament", "create", "cup", "--bots", "a,b,c", "--seed", "1",
                 *made.common]) == 0  # fmt: skip
    return made


# ------------------------------------------------------------------ list and status


def test_list_shows_every_tournament_newest_first(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", "create", "lad", "--format", "ladder", "--bots", "a,b,c",
                 *arena.common]) == 0  # fmt: skip
    code, out, _ = arena.run(capsys, "tournament", "list")
    assert code == 0
    lines = [line for line in out.splitlines() if "cup" in line or "lad" in line]
    assert len(lines) == 2
    assert "lad" in lines[0] and "ladder" in lines[0] and "created" in lines[0]
    assert "cup" in lines[1] and "round_robin" in lines[1] and "0/24" in lines[1]


def test_list_and_status_of_an_empty_arena_say_how_to_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = Arena(tmp_path)
    code, out, _ = empty.run(capsys, "tournament", "list")
    assert code == 0 and "no tournaments yet" in out
    code, _, err = empty.run(capsys, "tournament", "status")
    assert code == 1
    assert err.strip().count("\n") == 0 and "arena tournament create" in err


def test_status_without_a_name_shows_the_newest_tournament(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = arena.run(capsys, "tournament", "status")
    assert code == 0 and out.startswith("cup: created, 0/24 games")
    assert main(["tournament", "create", "later", "--bots", "b,c,d", *arena.common]) == 0
    code, out, _ = arena.run(capsys, "tournament", "status")
    assert code == 0 and out.startswith("later: created, 0/24 games")
    # Control: a name still picks that one.
    code, out, _ = arena.run(capsys, "tournament", "status", "cup")
    assert code == 0 and out.startswith("cup: created")


def test_status_of_a_running_tournament_whose_runner_is_gone_says_so(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    """A runner killed with SIGKILL leaves ``running`` stored: no lock is held, so the
    status shows the run as stopped, with the command that resumes it."""
    storage.set_status(arena.engine, arena.tournament_id("cup"), "running")
    code, out, _ = arena.run(capsys, "tournament", "status", "cup")
    assert code == 0
    assert out.startswith("cup: stopped (runner gone), 0/24 games")
    assert "arena tournament run cup resumes it" in out
    code, out, _ = arena.run(capsys, "tournament", "list")
    assert "stopped (runner gone)" in out and "running" not in out


KILLED_RUNNER = """
import sys, time
from arena.storage.database import open_database
from arena.storage.runner_lock import runner_lock
engine = open_database(sys.argv[1])
with runner_lock(engine, int(sys.argv[2]), "cup"):
    print("held", flush=True)
    time.sleep(600)
"""


def test_status_says_running_while_the_runner_lives_and_stopped_once_it_is_killed(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    tournament_id = arena.tournament_id("cup")
    storage.set_status(arena.engine, tournament_id, "running")
    runner = subprocess.Popen(
        [sys.executable, "-c", KILLED_RUNNER, arena.url, str(tournament_id)],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert runner.stdout is not None and runner.stdout.readline() == b"held\n"
        # Control: with its runner alive, the same stored status is shown as running.
        code, out, _ = arena.run(capsys, "tournament", "status")
        assert code == 0 and out.startswith("cup: running, 0/24 games")
        assert "resumes it" not in out
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()
    code, out, _ = arena.run(capsys, "tournament", "status")
    assert out.startswith("cup: stopped (runner gone)")


# ------------------------------------------------------------------ remove


@pytest.fixture
def ladder(arena: Arena) -> str:
    """Ladder ``lad`` between a, b, c and d."""
    assert main(["tournament", "create", "lad", "--format", "ladder", "--bots", "a,b,c,d",
                 *arena.common]) == 0  # fmt: skip
    return "lad"


def test_remove_takes_a_bot_out_of_a_ladder_and_keeps_its_entry(
    arena: Arena, ladder: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = arena.run(capsys, "tournament", "remove", ladder, "d")
    assert code == 0
    assert out.strip() == (
        "removed d@1 from ladder 'lad': it is scheduled no more; its games and ratings stay"
    )
    states = {
        e.label: e.state for e in storage.ladder_entrants(arena.engine, arena.tournament_id(ladder))
    }
    assert states == {"a@1": "active", "b@1": "active", "c@1": "active", "d@1": "withdrawn"}
    # Removing it again says why not, in one line.
    code, _, err = arena.run(capsys, "tournament", "remove", ladder, "d")
    assert code == 1 and "already left" in err and err.strip().count("\n") == 0
    # Control: `tournament add` enters its version again... (a new one, as ever).
    arena.version("d", "2")
    code, out, _ = arena.run(capsys, "tournament", "add", ladder, "d")
    assert code == 0 and "entered d@2" in out


def test_remove_refuses_a_round_robin_an_unknown_bot_and_a_participant(
    arena: Arena, ladder: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = arena.run(capsys, "tournament", "remove", "cup", "a")
    assert code == 1 and "only a ladder's entrants can be removed" in err
    code, _, err = arena.run(capsys, "tournament", "remove", ladder, "nobody")
    assert code == 1 and "no bot named 'nobody'" in err
    assert main(["user", "add", "alice", "--role", "participant", *arena.common]) == 0
    code, _, err = arena.run(capsys, "tournament", "remove", ladder, "a", "--user", "alice")
    assert code == 1 and "organiser" in err
    entrants = storage.ladder_entrants(arena.engine, arena.tournament_id(ladder))
    assert all(e.active for e in entrants)  # nothing was removed by any of them


# ------------------------------------------------------------------ the submission's lines


def test_a_new_version_says_it_enters_a_ladder_and_retires_the_old_one(
    arena: Arena, ladder: str
) -> None:
    newer = arena.version("a", "2")
    assert ladder_notices(arena.engine, newer) == [
        "ladder 'lad' plays a@1: its runner enters a@2 at its next match and retires a@1 "
        "(its games and ratings stay)"
    ]
    # An open ladder entered it at once: the line says so.
    tournament_id = arena.tournament_id(ladder)
    storage.set_ladder_open(
        arena.engine, tournament_id, is_open=True, max_versions_per_day=None,
        by=storage.actor(arena.engine),
    )  # fmt: skip
    newest = arena.version("a", "3")
    assert storage.enter_open_ladders(arena.engine, storage.row_id(newest)) == [ladder]
    assert ladder_notices(arena.engine, newest) == [
        "entered ladder 'lad', retiring a@1 there (its games and ratings stay)"
    ]


def test_no_ladder_line_for_a_bot_in_no_ladder_or_withdrawn_from_it(
    arena: Arena, ladder: str
) -> None:
    assert ladder_notices(arena.engine, arena.version("e")) == []  # never entered
    assert main(["tournament", "remove", ladder, "b", *arena.common]) == 0
    assert ladder_notices(arena.engine, arena.version("b", "2")) == []
    # Control: a bot still in the ladder gets its line.
    assert len(ladder_notices(arena.engine, arena.version("c", "2"))) == 1


def test_bot_submit_prints_the_ladder_lines_and_never_fails_over_them(
    arena: Arena, ladder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What ``arena bot submit`` calls once a new version is stored."""
    newer = arena.version("a", "2")
    echo_ladder_notices(arena.engine, newer)
    assert capsys.readouterr().out.startswith("ladder 'lad' plays a@1: its runner enters a@2")
    # A database that cannot be read: one warning line, the submission stands.
    unreadable = create_engine(f"sqlite:///{tmp_path / 'missing' / 'arena.db'}")
    echo_ladder_notices(unreadable, newer)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("warning: could not read the ladders it may enter:")
    assert captured.err.count("\n") == 1
