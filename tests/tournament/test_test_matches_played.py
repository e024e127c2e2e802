"""Test matches played by the queue runner with real bot processes: they move no other
tournament's standings, a second runner never plays one twice, a killed runner's match is
resumed, an arena failure fails the match (and only it) in one line, and ``arena bot test``
runs end to end against ``builtin:greedy``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena import storage
from arena.storage import test_matches as queue
from arena.storage.models import Game, Rating, User
from arena.storage.settings import set_setting
from arena.storage.users import Actor, actor_of, create_user
from arena.submission import submit_bot
from arena.tournament import setup
from arena.tournament.test_matches import play_queue
from tests.dashboard.seed import seed_database
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
DEADLINE_S = 240


@dataclass
class Arena:
    url: str
    engine: Engine
    data: Path
    alice: Actor
    bob: Actor
    olga: Actor

    def cli(self, *args: str, user: str | None = None) -> subprocess.CompletedProcess[str]:
        """``arena ARGS`` on this arena's database, as *user*."""
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", *args],
            capture_output=True,
            text=True,
            env=self.env(user),
            cwd=ROOT,
            timeout=DEADLINE_S,
            check=False,
        )

    def env(self, user: str | None = None) -> dict[str, str]:
        env = dict(os.environ, ARENA_DB=self.url, ARENA_DATA=str(self.data))
        env.pop("ARENA_USER", None)
        if user is not None:
            env["ARENA_USER"] = user
        return env


def _renamed(source: Path, name: str, target: Path) -> Path:
    """A copy of sample bot *source* named *name*."""
    copy = target / name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = copy / "bot.toml"
    text = manifest.read_text().replace(f'name = "{source.name}"', f'name = "{name}"')
    manifest.write_text(text)
    return copy


@pytest.fixture
def arena(tmp_path: Path) -> Arena:
    """The seeded public tournaments (a finished and a running round robin, rated), and
    participants alice and bob and organiser olga, each with a real bot (random_bot's
    code)."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    seeded = seed_database(url)
    engine = seeded.engine
    people = {
        name: actor_of(create_user(engine, name, role, None))
        for name, role in (("alice", "participant"), ("bob", "participant"), ("olga", "organiser"))
    }
    data = tmp_path / "data"
    for owner in ("alice", "bob", "olga"):
        source = _renamed(SAMPLES / "random_bot", f"{owner}_bot", tmp_path)
        submit_bot(engine, source, data, submitter=people[owner])
    set_setting(engine, "test_boards_per_hour", "100", by=people["olga"].id)
    return Arena(url, engine, data, people["alice"], people["bob"], people["olga"])


def _standings_of_all(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    return {
        t.name: [
            (r.bot, r.mu, r.sigma, r.games, r.wins, r.mean_score, r.faults)
            for r in storage.standings(engine, storage.row_id(t))
        ]
        for t in storage.list_tournaments(engine)
    }


def _ratings_of(engine: Engine) -> dict[int, int]:
    with Session(engine) as session:
        rows = session.exec(select(Rating.tournament_id)).all()
    counts: dict[int, int] = {}
    for tournament_id in rows:
        counts[tournament_id] = counts.get(tournament_id, 0) + 1
    return counts


def _entrants_of_all(engine: Engine) -> dict[str, list[str]]:
    return {
        t.name: [v.label for v in storage.entries(engine, storage.row_id(t))]
        for t in storage.list_tournaments(engine)
    }


def test_a_test_match_never_changes_any_other_standings(arena: Arena, tmp_path: Path) -> None:
    engine = arena.engine
    ladder, _ = setup.create_tournament(
        engine, by=arena.olga, name="open ladder", ruleset="classic",
        bots=["alpha", "bravo", "charlie"], boards=1, format_name="ladder",
    )  # fmt: skip
    storage.set_ladder_open(
        engine, storage.row_id(ladder), is_open=True, max_versions_per_day=None, by=arena.olga
    )
    before, ratings_before = _standings_of_all(engine), _ratings_of(engine)
    entrants_before = _entrants_of_all(engine)
    assert any(rows for rows in before.values())  # rated public tournaments to compare
    match = queue.request_test_match(
        engine, by=arena.alice, bot="alice_bot", opponents=["builtin:greedy"], boards=1
    )
    assert play_queue(engine, arena.data) == 1
    found = queue.get_test_match(engine, queue.match_id(match))
    assert found is not None and found.status == "played", found
    private = storage.get_tournament(engine, queue.tournament_name(found.id or 0))
    assert (private.id, private.private_to) == (found.tournament_id, arena.alice.id)
    after = _standings_of_all(engine)
    # The control: the test match itself was played and rated, so a change would show ...
    assert before.get(private.name) is None
    assert [row[0] for row in after.pop(private.name)] != []
    # ... and every other tournament's standings and rating rows are exactly as they were.
    assert after == before
    ratings_after = _ratings_of(engine)
    assert ratings_after.pop(storage.row_id(private)) > 0
    assert ratings_after == ratings_before
    with Session(engine) as session:
        games = session.exec(select(Game).where(Game.tournament_id == private.id)).all()
    assert len(games) == 6
    # The house bots, stored for it, entered no open ladder: entrants are as they were.
    entrants_after = _entrants_of_all(engine)
    del entrants_after[private.name]
    assert entrants_after == entrants_before
    # The control: a participant's new bot does enter the open ladder by itself.
    submit_bot(engine, _renamed(SAMPLES / "random_bot", "carol_bot", tmp_path), arena.data,
               submitter=arena.bob)  # fmt: skip
    assert "carol_bot@1.0.0" in _entrants_of_all(engine)["open ladder"]
    labels = {v.label for v in storage.entries(engine, storage.row_id(private))}
    assert labels == {"alice_bot@1.0.0", "builtin_greedy@1.0.0", "builtin_random@1.0.0"}
    house = storage.bot_owner(engine, "builtin_greedy")
    assert house == queue.HOUSE_ACCOUNT
    with Session(engine) as session:
        account = session.exec(select(User).where(User.name == house)).one()
    assert account.password_hash is None  # nobody logs in as the house


def test_a_second_runner_never_plays_a_match_twice(arena: Arena) -> None:
    match = queue.request_test_match(
        arena.engine, by=arena.alice, bot="alice_bot", opponents=["bob_bot"], boards=1
    )
    runners = [
        subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "queue", "run", "--once"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=arena.env(),
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    outputs = [r.communicate(timeout=DEADLINE_S)[0] for r in runners]
    found = queue.get_test_match(arena.engine, queue.match_id(match))
    assert found is not None and found.status == "played", outputs
    with Session(arena.engine) as session:
        games = session.exec(select(Game).where(Game.tournament_id == found.tournament_id)).all()
    assert sorted(g.schedule_index for g in games) == list(range(6))
    # Each runner either found the queue taken or found nothing left to play.
    finished = [o for o in outputs if "1 test match(es) finished" in o]
    assert len(finished) == 1, outputs
    other = outputs[1 - outputs.index(finished[0])]
    assert "another queue runner" in other or "0 test match(es) finished" in other, outputs


def test_a_killed_runner_leaves_the_match_to_resume(arena: Arena) -> None:
    """One board is enough: its six games share a deal, so they are played one at a time
    and the kill, at the first stored game, comes with the rest still to play."""
    match = queue.request_test_match(
        arena.engine, by=arena.alice, bot="alice_bot", opponents=["bob_bot"], boards=1
    )
    match_id = queue.match_id(match)
    runner = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "queue", "run", "--once"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=arena.env(),
        cwd=ROOT,
    )
    deadline = time.monotonic() + DEADLINE_S
    stored = 0
    while stored == 0 and time.monotonic() < deadline and runner.poll() is None:
        found = queue.get_test_match(arena.engine, match_id)
        if found is not None and found.tournament_id is not None:
            stored = len(storage.stored_indexes(arena.engine, found.tournament_id))
        time.sleep(0.05)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    found = queue.get_test_match(arena.engine, match_id)
    assert found is not None and found.tournament_id is not None
    done = len(storage.stored_indexes(arena.engine, found.tournament_id))
    if done == 6:
        pytest.skip("the runner finished all 6 games before it was killed")
    assert (found.status, done > 0) == ("running", True)
    # The next runner resumes it: the stored games stay, the rest are played once.
    result = arena.cli("queue", "run", "--once")
    assert result.returncode == 0, result.stderr
    found = queue.get_test_match(arena.engine, match_id)
    assert found is not None and found.status == "played"
    assert storage.stored_indexes(arena.engine, found.tournament_id or 0) == set(range(6))


def test_an_arena_failure_fails_the_match_in_one_line_and_the_queue_goes_on(
    arena: Arena,
) -> None:
    # The house bots' account name is taken by an account that can log in: the arena
    # cannot store the house bots, which is its own failure, not the tested bot's.
    create_user(arena.engine, queue.HOUSE_ACCOUNT, "participant", "$argon2id$not-a-real-hash")
    doomed = queue.request_test_match(
        arena.engine, by=arena.alice, bot="alice_bot", opponents=["builtin:greedy"]
    )
    # The control: queued after it, a match of three real bots is played.
    control = queue.request_test_match(
        arena.engine, by=arena.olga, bot="olga_bot", opponents=["alice_bot", "bob_bot"]
    )
    assert play_queue(arena.engine, arena.data) == 2
    failed = queue.get_test_match(arena.engine, queue.match_id(doomed))
    assert failed is not None and failed.status == "failed"
    assert "\n" not in failed.message
    assert "account 'house' can log in, so it cannot own the house bots" in failed.message
    assert failed.tournament_id is None  # nothing was played, so no bot was charged
    played = queue.get_test_match(arena.engine, queue.match_id(control))
    assert played is not None and played.status == "played", played
    assert storage.stored_indexes(arena.engine, played.tournament_id or 0) == set(range(6))


def test_arena_bot_test_end_to_end(arena: Arena) -> None:
    result = arena.cli("bot", "test", "alice_bot", "--opponents", "builtin:greedy", user="alice")
    assert result.returncode == 0, result.stderr
    assert "queued test match #1 (1 board(s), 6 games)" in result.stdout
    assert "test match #1: 6/6 games" in result.stdout
    assert "test match #1 played" in result.stdout
    listed = arena.cli("queue", "list", user="alice").stdout
    assert "test match #1" in listed and "played" in listed
    # Another participant's listing holds none of it; an organiser's does (the control).
    assert "alice_bot" not in arena.cli("queue", "list", user="bob").stdout
    assert "alice_bot" in arena.cli("queue", "list", user="olga").stdout
    # `arena standings` without a name shows the newest public tournament, not the test.
    assert "builtin_greedy" not in arena.cli("standings").stdout


def test_arena_bot_test_refuses_in_one_line(arena: Arena) -> None:
    refused = arena.cli("bot", "test", "bob_bot", "--opponents", "builtin:greedy", user="alice")
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "arena: error: bot 'bob_bot' belongs to bob: you may test only your own bots"
    ]
    set_setting(arena.engine, "test_boards_per_hour", "1", by=arena.olga.id)
    queue.request_test_match(
        arena.engine, by=arena.alice, bot="alice_bot", opponents=["bob_bot"], boards=1
    )
    spent = arena.cli("bot", "test", "alice_bot", "--opponents", "bob_bot", user="alice")
    assert spent.returncode == 1
    (line,) = spent.stderr.strip().splitlines()
    assert "test-match quota: 1 board(s) per hour, 1 used" in line and "try again after" in line


def test_arena_bot_test_waits_for_another_queue_runner(arena: Arena) -> None:
    with queue.queue_lock(arena.engine):  # another runner holds the queue
        waiting = subprocess.Popen(
            [*(sys.executable, "-m", "arena.cli", "bot", "test", "alice_bot"),
             *("--opponents", "bob_bot")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=arena.env("alice"),
            cwd=ROOT,
        )  # fmt: skip
        assert waiting.stdout is not None
        lines = [waiting.stdout.readline(), waiting.stdout.readline()]
        assert lines[1].startswith("waiting for another queue runner: position 1"), lines
        found = queue.list_test_matches(arena.engine, arena.alice)[0]
        assert found.status == "queued"
    out, err = waiting.communicate(timeout=DEADLINE_S)
    assert waiting.returncode == 0, err
    assert f"test match #{found.id} played" in out
    assert json.loads(
        queue.get_test_match(arena.engine, found.id).opponents  # type: ignore[union-attr]
    ) == ["bob_bot"]
