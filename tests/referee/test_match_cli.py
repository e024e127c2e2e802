"""``arena match`` and ``arena bot check`` end to end: real bot processes over real gRPC."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.game import PRESETS
from arena.game.record import replay_record
from arena.referee.manifest import ManifestError, load_manifest
from arena.referee.match import MatchConfig, RemoteSeat, play_match
from arena.referee.process import bot_environment
from tests.oracle.rules_oracle import check_record
from tests.referee.zoo_support import live_processes

ROOT = Path(__file__).resolve().parents[2]
RANDOM = str(ROOT / "sample_bots" / "random_bot")
HEURISTIC = str(ROOT / "sample_bots" / "heuristic_bot")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_match_of_python_sample_bots(
    preset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "records"
    args = ["match", RANDOM, HEURISTIC, "builtin:greedy", "--ruleset", preset, "--games", "2",
            "--seed", "11", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    records = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    assert [r["seed"] for r in records] == [11, 12]
    for record in records:
        assert record["faults"] == []
        assert record["players"] == ["random_bot@1.0.0", "heuristic_bot@1.1.0", "greedy@builtin"]
        assert all(record["timings"]["decision_ms"][seat] for seat in (0, 1))
        assert record["timings"]["decision_ms"][2] == []  # the built-in seat is not timed
        replay_record(record)
        assert check_record(record) == []
    table = capsys.readouterr().out
    assert "random_bot@1.0.0" in table and "heuristic_bot@1.1.0" in table and "p99 ms" in table


def test_first_dealer_rotates_over_the_games(tmp_path: Path) -> None:
    out = tmp_path / "records"
    assert main(["match", RANDOM, RANDOM, RANDOM, "--games", "3", "--out", str(out)]) == 0
    games = sorted(
        (json.loads(p.read_text()) for p in out.glob("*.json")),
        key=lambda r: int(r["game_id"].rsplit("-", 1)[1]),
    )
    assert [r["first_dealer"] for r in games] == [0, 1, 2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", RANDOM, RANDOM], "takes 3 values"),
        (["match", RANDOM, RANDOM, "/no/such/bot"], "not a bot directory"),
        (["match", RANDOM, RANDOM, "builtin:oracle"], "unknown built-in policy"),
        (["match", RANDOM, RANDOM, "remote"], "--listen"),
        (["match", RANDOM, RANDOM, RANDOM, "--time-control", "decision=fast"], "--time-control"),
        (["match", RANDOM, RANDOM, RANDOM, "--ruleset", "whist"], "unknown ruleset"),
        (["bot", "check", "/no/such/bot"], "not a bot directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def _write_bot(directory: Path, body: str, manifest_extra: str = "") -> Path:
    directory.mkdir(parents=True)
    (directory / "bot.toml").write_text(
        f'name = "{directory.name}"\nversion = "0.1"\nlanguage = "python"\n'
        f'run = "python bot.py"\n{manifest_extra}'
    )
    (directory / "bot.py").write_text(body)
    return directory


def test_bot_check_passes_a_good_bot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "check", HEURISTIC, "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "no faults" in out and "seat 2" in out


def test_bot_check_explains_faults_in_plain_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = _write_bot(
        tmp_path / "crasher",
        "from arena.sdk import Bot\n\n"
        "class Crasher(Bot):\n"
        "    def play(self, obs):\n"
        "        raise RuntimeError('my bug is here')\n\n"
        "Crasher().run()\n",
    )
    assert main(["bot", "check", str(bot), "--games", "1"]) == 1
    out = capsys.readouterr().out
    assert "crashed or closed its connection" in out and "my bug is here" in out


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("name = 'x'\n", "missing required key 'version'"),
        ("name = 'x'\nversion = '1'\nlanguage = 'py'\nrun = ''\n", "'run' is empty"),
        ("name = 'bad name'\nversion = '1'\nlanguage = 'py'\nrun = 'x'\n", "name 'bad name'"),
        ("name = 'x'\nversion = '1'\nlanguage = 'py'\nrun = 'x'\ncolour = 1\n", "unknown key"),
        ("name = [\n", "not valid TOML"),
    ],
)
def test_broken_manifests_give_one_line(tmp_path: Path, manifest: str, message: str) -> None:
    (tmp_path / "bot.toml").write_text(manifest)
    with pytest.raises(ManifestError) as caught:
        load_manifest(tmp_path)
    text = str(caught.value)
    assert message in text and "\n" not in text


def test_a_failing_build_stops_the_match_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = _write_bot(
        tmp_path / "unbuildable", "", "build = \"python -c 'import sys; sys.exit(3)'\"\n"
    )
    assert main(["match", str(bot), RANDOM, RANDOM, "--games", "1"]) == 1
    err = capsys.readouterr().err
    assert "failed with exit code 3" in err and err.strip().count("\n") <= 1


def test_remote_bot_over_tcp() -> None:
    """A bot started by hand (as on its author's machine) plays a seat over TCP."""
    started: list[subprocess.Popen[bytes]] = []

    def launch(seat: int, address: str, token: str) -> None:
        env = bot_environment(address, token)
        started.append(
            subprocess.Popen([sys.executable, "bot.py", "--seed", "3"], cwd=RANDOM, env=env)
        )

    config = MatchConfig(
        PRESETS["classic"], games=2, seed=4, listen="127.0.0.1:0", announce_remote=launch
    )
    seats = [load_manifest(RANDOM), RemoteSeat("visitor"), load_manifest(HEURISTIC)]
    try:
        result = asyncio.run(play_match(seats, config))
    finally:
        for process in started:
            process.wait(timeout=10)
    assert started and all(p.returncode == 0 for p in started)
    assert [r["faults"] for r in result.records] == [[], []]
    assert result.records[0]["players"][1] == "random_bot@1.0.0"  # named by its Hello
    assert result.stats[1].decision_ms


def test_no_bot_process_survives_a_match(tmp_path: Path) -> None:
    copies = []
    for name in ("random_bot", "heuristic_bot"):
        shutil.copytree(Path(RANDOM).parent / name, tmp_path / name)
        copies.append(load_manifest(tmp_path / name))
    seats = [copies[0], copies[1], copies[0]]
    asyncio.run(play_match(seats, MatchConfig(PRESETS["classic"], games=1, seed=1)))
    assert live_processes(tmp_path) == []
