"""Tournaments end to end: submission, a real round robin through the referee, standings,
export, replay, rating recomputation, and crash safety under a real ``kill -9``.

Parametrized over SQLite and a real PostgreSQL server (``tests/conftest.py``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli import main
from arena.game.record import replay_record
from arena.sandbox.probe import probe
from arena.storage.database import open_database
from arena.submission import SubmitError, submit_bot
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
PYTHON_BOTS = ("random_bot", "heuristic_bot", "greedy_bot")


def _cli(url: str, data: Path, *args: str) -> int:
    return main([*args[:2], *args[2:], "--db", url, "--data", str(data)])


def _submit_all(url: str, data: Path) -> None:
    for bot in PYTHON_BOTS:
        assert main(["bot", "submit", str(SAMPLES / bot), "--db", url, "--data", str(data)]) == 0


def _comparable(record: dict[str, Any]) -> dict[str, Any]:
    """A record without what legitimately differs between runs (clocks and logs)."""
    return {k: v for k, v in record.items() if k not in ("timings", "bot_logs")}


def _state(engine: Engine, name: str) -> tuple[list[Any], list[Any]]:
    tournament = storage.get_tournament(engine, name)
    records = [(i, _comparable(r)) for i, r in storage.tournament_records(engine, tournament.id)]
    ratings = [
        (row.bot, round(row.mu, 9), round(row.sigma, 9), row.games)
        for row in storage.standings(engine, tournament.id)
    ]
    return records, ratings


def test_submission_stores_only_what_passes(database_url: str, tmp_path: Path) -> None:
    engine = open_database(database_url)
    data = tmp_path / "data"
    version, created = submit_bot(engine, SAMPLES / "random_bot", data)
    assert created and version.label == "random_bot@1.0.0"
    again, created = submit_bot(engine, SAMPLES / "random_bot", data)
    assert not created and again.id == version.id
    changed = tmp_path / "random_copy"
    subprocess.run(["cp", "-r", str(SAMPLES / "random_bot"), str(changed)], check=True)
    (changed / "NOTES.txt").write_text("a changed file makes a new version\n")
    newer, created = submit_bot(engine, changed, data)
    assert created and newer.seq == 2 and newer.label != version.label
    assert [v.seq for v in storage.bot_versions(engine, "random_bot")] == [1, 2]

    crasher = tmp_path / "crasher"
    crasher.mkdir()
    (crasher / "bot.toml").write_text(
        'name = "crasher"\nversion = "1"\nlanguage = "python"\nrun = "python bot.py"\n'
    )
    (crasher / "bot.py").write_text("import sys\nsys.exit('I give up')\n")
    with pytest.raises(SubmitError, match="smoke game failed: startup"):
        submit_bot(engine, crasher, data)
    (crasher / "bot.toml").write_text(
        'name = "crasher"\nversion = "1"\nlanguage = "python"\nrun = "python bot.py"\n'
        "build = \"python -c 'raise SystemExit(4)'\"\n"
    )
    with pytest.raises(SubmitError, match="failed with exit code 4"):
        submit_bot(engine, crasher, data)
    (crasher / "bot.toml").write_text("name = 'crasher'\n")
    with pytest.raises(SubmitError, match="missing required key"):
        submit_bot(engine, crasher, data)
    assert storage.latest_version(engine, "crasher") is None
    assert not (data / "bots" / "crasher").exists() or not any(
        p for p in (data / "bots" / "crasher").iterdir() if not p.name.startswith(".staging")
    )


def test_round_robin_ranks_random_bot_last(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    _submit_all(database_url, data)
    # Two boards (12 games) are enough: the run is seeded, so the ranking is the same every time.
    args = ["tournament", "create", "rr", "--bots", ",".join(PYTHON_BOTS), "--boards", "2",
            "--seed", "5", "--db", database_url, "--data", str(data)]  # fmt: skip
    assert main(args) == 0
    assert main(["tournament", "run", "rr", "--parallel", "2", "--db", database_url,
                 "--data", str(data)]) == 0  # fmt: skip
    engine = open_database(database_url)
    tournament = storage.get_tournament(engine, "rr")
    assert tournament.status == "finished"
    records = storage.tournament_records(engine, tournament.id)
    assert [i for i, _ in records] == list(range(12))
    for _, record in records:
        replay_record(record)
        assert record["faults"] == []
    rows = storage.standings(engine, tournament.id)
    assert rows[-1].bot.startswith("random_bot@")
    assert all(row.games == 12 for row in rows)
    out = capsys.readouterr().out
    assert "random_bot@1.0.0" in out and "made 9" in out

    export = tmp_path / "export"
    assert (
        main(["export", "rr", "--out", str(export), "--db", database_url, "--data", str(data)]) == 0
    )
    assert len(list(export.glob("*.json"))) == 12
    before = _state(engine, "rr")
    assert main(["ratings", "recompute", "rr", "--db", database_url, "--data", str(data)]) == 0
    assert _state(engine, "rr") == before
    game_id = storage.tournament_game_ids(engine, tournament.id)[0]
    assert main(["replay", str(game_id), "--db", database_url, "--data", str(data)]) == 0
    assert "trick 16" in capsys.readouterr().out


KILL_BOARDS = 2
GAMES = KILL_BOARDS * 6  # six seatings of three bots per board
KILL_AFTER_STORED = 4  # a third of the games: some in flight at the kill, more to come
KILL_TOURNAMENT = ["tournament", "create", "t", "--bots", ",".join(PYTHON_BOTS),
                   "--boards", str(KILL_BOARDS), "--seed", "9", "--rating-mode", "game",
                   # Generous limits: a timeout under CI load would change a record
                   # legitimately.
                   "--time-control", "decision=5000,bank=60000,grace=500,startup=30000"]  # fmt: skip


@pytest.fixture(scope="module")
def uninterrupted_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], list[Any]]:
    """The records and ratings of the kill test's tournament played without a kill, once
    for both backends: the run is seeded, so its records do not depend on the database."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    url, data = migrated_sqlite_url(folder / "arena.db"), folder / "data"
    _submit_all(url, data)
    common = ["--db", url, "--data", str(data)]
    assert main([*KILL_TOURNAMENT, *common]) == 0
    assert main(["tournament", "run", "t", "--parallel", "2", *common]) == 0
    engine = open_database(url)
    try:
        return _state(engine, "t")
    finally:
        engine.dispose()


def test_kill_minus_nine_then_resume_is_exactly_once(
    database_url: str, uninterrupted_run: tuple[list[Any], list[Any]], tmp_path: Path
) -> None:
    """A real runner killed with SIGKILL mid-run, resumed: same records and ratings as an
    uninterrupted run, no game lost or played twice, no bot process left behind.

    Two boards (12 games): the kill comes after a third of them are stored, with games
    still in flight and more to come, which is all the subject needs."""
    killed_data = tmp_path / "killed"
    _submit_all(database_url, killed_data)
    assert main([*KILL_TOURNAMENT, "--db", database_url, "--data", str(killed_data)]) == 0

    engine = open_database(database_url)
    tournament = storage.get_tournament(engine, "t")
    runner = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "tournament",
            "run",
            "t",
            "--parallel",
            "2",
            "--db",
            database_url,
            "--data",
            str(killed_data),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while len(storage.stored_indexes(engine, tournament.id)) < KILL_AFTER_STORED:
        assert runner.poll() is None, "the runner finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    stored_at_kill = len(storage.stored_indexes(engine, tournament.id))
    assert KILL_AFTER_STORED <= stored_at_kill < GAMES
    _assert_no_bot_survives(killed_data)

    assert main(["tournament", "run", "t", "--parallel", "2", "--db", database_url,
                 "--data", str(killed_data)]) == 0  # fmt: skip
    resumed_records, resumed_ratings = _state(engine, "t")
    reference_records, reference_ratings = uninterrupted_run
    assert [i for i, _ in resumed_records] == list(range(GAMES))
    for (index, resumed), (_, reference) in zip(resumed_records, reference_records, strict=True):
        assert resumed == reference, f"game {index} differs after the kill and resume"
    assert resumed_ratings == reference_ratings
    assert len(storage.stored_indexes(engine, tournament.id)) == GAMES


def _assert_no_bot_survives(data: Path, wait_s: float = 10.0) -> None:
    """No process runs in a stored bot's directory (bots run with cwd = their copy)."""
    root = str(data.resolve())
    deadline = time.monotonic() + wait_s
    while True:
        alive = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
                state = Path(f"/proc/{entry}/stat").read_text().split()[2]
            except OSError:
                continue
            if cwd.startswith(root) and state != "Z":
                alive.append(entry)
        if not alive:
            return
        assert time.monotonic() < deadline, f"bot processes outlived the runner: {alive}"
        time.sleep(0.1)


def test_bad_tournament_input_gives_one_line(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    common = ["--db", database_url, "--data", str(data)]
    assert main(["tournament", "create", "x", "--bots", "nobody,noone,none", *common]) == 2
    assert main(["tournament", "create", "x", "--bots", "a,b", *common]) == 2
    assert main(["tournament", "run", "missing", *common]) == 1
    assert main(["replay", "424242", *common]) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 4 and all(line.startswith("arena: error:") for line in errors)
    assert json.dumps(errors)  # printable


def test_a_build_step_cannot_read_the_data_directory(database_url: str, tmp_path: Path) -> None:
    """A build is the bot's code too: it runs in bubblewrap with the data directory (the
    database, other bots) out of sight, so it cannot copy them into the bot."""
    if probe().bwrap is None:
        message = "bubblewrap cannot run here, so builds are not sandboxed"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    engine = open_database(database_url)
    data = tmp_path / "data"
    data.mkdir()
    secret = data / "secret.txt"
    secret.write_text("the database\n")
    thief = tmp_path / "thief"
    thief.mkdir()
    (thief / "bot.toml").write_text(
        'name = "thief"\nversion = "1"\nlanguage = "python"\nrun = "python bot.py"\n'
        f'build = "cp {secret} stolen.txt"\n'
    )
    (thief / "bot.py").write_text("from arena.sdk import Bot\n\nBot().run()\n")
    with pytest.raises(SubmitError, match="No such file"):
        submit_bot(engine, thief, data)
    assert not (thief / "stolen.txt").exists()
    assert storage.latest_version(engine, "thief") is None
