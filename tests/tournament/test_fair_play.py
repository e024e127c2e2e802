"""Fair play against hostile bot authors, tournament side.

* Deals come from a secret a bot cannot search. A real sandboxed bot (``spy_bot``) tries
  seeds 0..200,000 of a ``random.Random`` deal against its own cards: it finds the seed
  when deals come from a small seed (the control) and not from the secret; it never sees
  the secret or its game's key; every seating of a board gets the same deals; a tournament
  stopped and killed with ``kill -9`` resumes with identical deals.
* Two games of one deal never run at the same time (real workers; the naive queue as
  control), so no bot can learn a deal from a concurrent copy of itself.
* A game the arena itself fails (its descriptor limit) is replayed, never stored or rated,
  counted as an arena fault, and the run stops after a few with one line.
* A stored version whose files changed does not play.
* ``--seed`` too large and ``--boards`` too many: one line, exit 2, nothing stored.
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from arena import storage
from arena.cli import main
from arena.game.dealing import LEGACY_SHUFFLE, board_key, table_board_key
from arena.game.policies import RandomPolicy
from arena.game.rules import PRESETS
from arena.referee.manifest import load_manifest
from arena.referee.match import MatchConfig, PolicySeat, play_match
from arena.referee.timecontrol import TimeControl
from arena.storage.database import open_database
from arena.tournament.executor import LocalProcessExecutor
from arena.tournament.jobs import GameJob
from arena.tournament.runner import plan, run_tournament
from tests.migrated_sqlite import migrated_sqlite_url

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
SPY = Path(__file__).resolve().parent / "spy_bot"
GENEROUS = "decision=30000,bank=120000,grace=500,startup=30000"


def _spy(tmp_path: Path, search: int) -> Path:
    """A copy of spy_bot that searches seeds 0..*search* (0: no search)."""
    target = tmp_path / f"spy_{search}"
    shutil.copytree(SPY, target)
    toml = (target / "bot.toml").read_text()
    (target / "bot.toml").write_text(toml.replace("--search 200000", f"--search {search}"))
    return target


def _spy_log(record: dict[str, Any]) -> str:
    seat = next(i for i, p in enumerate(record["players"]) if p.startswith("spy_bot@"))
    logs = record["bot_logs"][seat]
    log = f"{logs['stdout']}\n{logs['stderr']}"
    assert "ENV ARENA_TOKEN=" in log and "MSG welcome" in log, "the spy did not run"
    return log


def _secret_forms(secret: bytes, keys: list[int]) -> list[str]:
    """Every way the secret or a deal key could reach a bot: as text, hex, or raw bytes
    (the spy prints messages and files in hex)."""
    forms = [secret.hex(), secret.hex().upper()]
    for key in keys:
        raw = key.to_bytes(32, "big")
        forms += [str(key), f"{key:x}", f"{key:X}", raw.hex()]
    return forms


def _first_deal(record: dict[str, Any]) -> list[list[str]]:
    hand = record["hands"][0]
    return [*hand["deal"], hand["kitty"]]


# ---------------------------------------------------- deals a bot cannot search, one match


def test_a_bot_finds_the_old_seed_but_not_the_secret_deal(tmp_path: Path) -> None:
    """The attacker's search, run by a real bot process under the default sandbox."""
    spy = load_manifest(_spy(tmp_path, 200_000))
    rules = PRESETS["classic"]
    control = TimeControl.parse(GENEROUS)

    def play(config: MatchConfig) -> dict[str, Any]:
        seats = [spy, PolicySeat(RandomPolicy(1)), PolicySeat(RandomPolicy(2))]
        return asyncio.run(play_match(seats, config)).records[0]

    # Control, the old path: a small seed through Mersenne Twister (seed 0 + board 1234).
    old = play(MatchConfig(rules, 1, 1234, control, shuffle=LEGACY_SHUFFLE))
    assert "shuffle" not in old
    found = [line for line in _spy_log(old).splitlines() if line.startswith("FOUND")]
    assert found, "the control search should find the legacy seed"
    seed, *masks = (int(v) for v in found[0].split()[1:])
    assert seed == 1234
    deal = old["hands"][0]
    seen = [sum(1 << _card(c) for c in cards) for cards in [*deal["deal"], deal["kitty"]]]
    assert masks == seen  # both opponents' hands and the kitty

    # The new path: a fresh 256-bit secret, each game's key derived from it.
    secret = os.urandom(32)
    new = play(MatchConfig(rules, 1, 0, control, secret=secret))
    log = _spy_log(new)
    assert "NOT FOUND" in log and "FOUND " not in log.replace("NOT FOUND", "")
    assert new["shuffle"] == "hmac-sha256/1" and new["seed"] == board_key(secret, 0)
    for form in _secret_forms(secret, [new["seed"]]):
        assert form not in log, f"the bot saw {form[:16]}..."


def _card(text_: str) -> int:
    from arena.game.cards import parse_cards  # noqa: PLC0415

    return int(parse_cards([text_])[0])


def test_match_and_bot_check_deal_from_a_fresh_secret_unless_a_seed_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["match", "builtin:random", "builtin:greedy", "builtin:random", "--games", "2"]
    assert main([*args, "--out", str(out / "a")]) == 0
    assert main([*args, "--out", str(out / "b")]) == 0
    seeds = [{int(p.stem) for p in (out / run).glob("*.json")} for run in ("a", "b")]
    assert all(len(s) == 2 and min(s) > 2**128 for s in seeds)
    assert not seeds[0] & seeds[1]  # two runs, two secrets
    assert "predictable" not in capsys.readouterr().err
    assert main([*args, "--seed", "7", "--out", str(out / "c")]) == 0
    assert main([*args, "--seed", "7", "--out", str(out / "d")]) == 0
    assert "deals are predictable" in capsys.readouterr().err
    assert {p.name for p in (out / "c").glob("*.json")} == {
        p.name for p in (out / "d").glob("*.json")
    }


# ------------- a real tournament: secret deals, arena faults, kill -9, deal separation


def _db(tmp_path: Path) -> tuple[str, Path, list[str]]:
    url = migrated_sqlite_url(tmp_path / "arena.db")
    data = tmp_path / "data"
    return url, data, ["--db", url, "--data", str(data)]


def _low_descriptor_limit() -> None:
    # Enough for the runner (database, pipes), too few for a referee to start a match:
    # the arena's own shortage, which must never be charged to a bot.
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))


def test_secret_tournament_arena_faults_kill_and_resume(  # noqa: PLR0915 - one story
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, _data, db = _db(tmp_path)
    spy = _spy(tmp_path, 0)
    for bot in (spy, SAMPLES / "random_bot", SAMPLES / "greedy_bot"):
        assert main(["bot", "submit", str(bot), *db]) == 0
    create = ["tournament", "create", "fair", "--bots", "spy_bot,random_bot,greedy_bot",
              "--boards", "2", "--rating-mode", "game", "--time-control", GENEROUS]  # fmt: skip
    assert main([*create, *db]) == 0
    assert "secret deals" in capsys.readouterr().out
    engine = open_database(url)
    tournament = storage.get_tournament(engine, "fair")
    tid = storage.row_id(tournament)
    assert tournament.seed is None and tournament.deal_secret
    secret = bytes.fromhex(tournament.deal_secret)
    keys = [table_board_key(secret, 0, board) for board in range(2)]  # one table
    run = [sys.executable, "-m", "arena.cli", "tournament", "run", "fair", "--parallel", "2", *db]

    # The arena cannot start any game (its own descriptor limit): nobody's fault but its own.
    failed = subprocess.run(
        run,
        check=False,
        capture_output=True,
        text=True,
        preexec_fn=_low_descriptor_limit,
        timeout=300,
    )
    assert failed.returncode == 1, failed.stderr
    errors = [line for line in failed.stderr.splitlines() if line.startswith("arena: error:")]
    assert len(errors) == 1 and "the arena failed it 3 times in a row" in errors[0], failed.stderr
    assert "file descriptors" in errors[0] and "run again to resume" in errors[0]
    assert storage.stored_indexes(engine, tid) == set()  # nothing stored, nothing rated
    assert storage.standings(engine, tid) == [] or all(
        row.games == 0 for row in storage.standings(engine, tid)
    )
    faults = storage.get_tournament(engine, "fair").arena_faults
    assert faults >= 3
    assert main(["tournament", "status", "fair", *db]) == 0
    assert f"{faults} arena fault(s)" in capsys.readouterr().out

    # A real runner killed with SIGKILL mid-run ...
    runner = subprocess.Popen(
        run, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 180
    while len(storage.stored_indexes(engine, tid)) < 3:
        assert runner.poll() is None, "the runner finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    assert len(storage.stored_indexes(engine, tid)) < 12

    # ... and resumed in process, with the executor's start/end log (deal separation).
    executor = LocalProcessExecutor(2)
    asyncio.run(run_tournament(engine, "fair", executor))
    records = dict(storage.tournament_records(engine, tid))
    assert sorted(records) == list(range(12))
    schedule = plan(engine, "fair")[1]
    for game in schedule:
        record = records[game.schedule_index]
        assert record["faults"] == []
        assert record["seed"] == game.seed == keys[game.board_index]
        assert _first_deal(record) == _first_deal(records[game.board_index * 6])
        for form in _secret_forms(secret, keys):
            assert form not in _spy_log(record)
    assert _first_deal(records[0]) != _first_deal(records[6])
    seed_of = {g.schedule_index: g.seed for g in schedule}
    _assert_no_deal_overlaps(executor.events, seed_of, expect_parallel=True)
    assert storage.get_tournament(engine, "fair").arena_faults == faults  # no new ones
    assert main(["standings", "fair", *db]) == 0
    assert f"arena faults: {faults} game(s)" in capsys.readouterr().out
    assert main(["tournament", "status", "fair", *db]) == 0
    status = capsys.readouterr().out
    assert "secret deals" in status and secret.hex() not in status
    assert storage.progress(engine, tid).arena_faults == faults
    engine.dispose()


def _assert_no_deal_overlaps(
    events: list[tuple[str, int]], seed_of: dict[int, int], *, expect_parallel: bool
) -> None:
    running: set[int] = set()
    most = 0
    for kind, index in events:
        if kind == "start":
            clash = [i for i in running if seed_of[i] == seed_of[index]]
            assert not clash, f"game {index} started while {clash} of the same deal ran"
            running.add(index)
            most = max(most, len(running))
        else:
            running.discard(index)
    assert most == (2 if expect_parallel else 1), "both workers should have been busy"


def test_control_the_naive_queue_runs_one_deal_twice_at_once(tmp_path: Path) -> None:
    """Without the rule, the first two jobs (seatings of board 0) run together. Those two
    are all it takes: the executor plays them alone, not the board's other four games."""
    url, _data, db = _db(tmp_path)
    for bot in ("random_bot", "greedy_bot", "heuristic_bot"):
        assert main(["bot", "submit", str(SAMPLES / bot), *db]) == 0
    assert main(["tournament", "create", "naive", "--bots", "random_bot,greedy_bot,heuristic_bot",
                 "--boards", "1", "--seed", "3", *db]) == 0  # fmt: skip
    engine = open_database(url)
    _, schedule, jobs = plan(engine, "naive")
    first_two = jobs[:2]
    assert {job.seed for job in first_two} == {schedule[0].seed}  # one deal
    executor = LocalProcessExecutor(2, separate_deals=False)
    played: list[int] = []

    def on_result(job: GameJob, record: dict[str, Any]) -> None:
        assert record["faults"] == [], record["faults"]
        played.append(job.schedule_index)

    asyncio.run(executor.run(first_two, on_result))
    assert sorted(played) == [0, 1]
    seed_of = {g.schedule_index: g.seed for g in schedule}
    with pytest.raises(AssertionError, match="of the same deal ran"):
        _assert_no_deal_overlaps(executor.events, seed_of, expect_parallel=True)
    engine.dispose()


# ------------------------------------------------- changed versions, out-of-range numbers


def test_a_stored_version_whose_files_changed_does_not_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, _data, db = _db(tmp_path)
    for bot in ("random_bot", "greedy_bot", "heuristic_bot"):
        assert main(["bot", "submit", str(SAMPLES / bot), *db]) == 0
    assert main(["tournament", "create", "t", "--bots", "random_bot,greedy_bot,heuristic_bot",
                 "--boards", "1", *db]) == 0  # fmt: skip
    engine = open_database(url)
    stored = Path(storage.latest_version(engine, "greedy_bot").path)  # type: ignore[union-attr]
    target = stored / "bot.py"
    os.chmod(target, 0o644)
    target.write_text(target.read_text() + "\n# changed after it was stored\n")
    capsys.readouterr()
    assert main(["tournament", "run", "t", "--parallel", "1", *db]) == 1
    err = capsys.readouterr().err.splitlines()
    errors = [line for line in err if line.startswith("arena: error:")]
    assert len(errors) == 1 and "bot version greedy_bot@1.0.0" in errors[0], errors
    assert "changed" in errors[0]
    tournament = storage.get_tournament(engine, "t")
    assert storage.stored_indexes(engine, storage.row_id(tournament)) == set()
    assert tournament.status == "interrupted"
    engine.dispose()


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--seed", "99999999999999999999999", "is not in the range"),
        ("--seed", "-1", "is not in the range"),
        ("--boards", "1000000000", "the limit is 100000"),
    ],
)
def test_bad_seed_or_boards_is_one_line_and_nothing_is_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, words: str
) -> None:
    url, _data, db = _db(tmp_path)
    for bot in ("random_bot", "greedy_bot", "heuristic_bot"):
        assert main(["bot", "submit", str(SAMPLES / bot), *db]) == 0
    capsys.readouterr()
    code = main(["tournament", "create", "x", "--bots", "random_bot,greedy_bot,heuristic_bot",
                 option, value, *db])  # fmt: skip
    assert code == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("arena: error:") and words in errors[0]
    engine = open_database(url)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM tournament")).scalar() == 0
    engine.dispose()
