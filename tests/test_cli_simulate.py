"""``arena simulate``: records for every preset, a summary, and one-line usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.game import PRESETS
from arena.game.record import replay_record
from tests.oracle.rules_oracle import check_record


@pytest.mark.parametrize("preset", list(PRESETS))
def test_simulate_writes_valid_records(
    preset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "records"
    code = main(
        ["simulate", "--ruleset", preset, "--games", "3", "--seed", "40", "--out", str(out),
         "--players", "random,greedy,random"]
    )  # fmt: skip
    assert code == 0
    files = sorted(p.name for p in out.iterdir())
    assert files == ["40.json", "41.json", "42.json"]
    for path in out.iterdir():
        record = json.loads(path.read_text())
        assert record["ruleset"] == preset
        assert record["players"] == ["random@builtin", "greedy@builtin", "random@builtin"]
        replay_record(record)
        assert check_record(record) == []
    summary = capsys.readouterr().out
    for word in ("games", "hands", "hands/s", "wins seat 0 (random)", "wins seat 1 (greedy)"):
        assert word in summary


def test_simulate_is_reproducible(tmp_path: Path) -> None:
    for run in ("a", "b"):
        assert main(["simulate", "--games", "2", "--seed", "7", "--out", str(tmp_path / run)]) == 0
    for name in ("7.json", "8.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "--ruleset", "bridge", "--out", "x"], "unknown ruleset 'bridge'"),
        (["simulate", "--games", "0", "--out", "x"], "--games"),
        (["simulate", "--games", "many", "--out", "x"], "--games"),
        (["simulate"], "--out"),
        (["simulate", "--out", "x", "--players", "random,random"], "exactly 3"),
        (["simulate", "--out", "x", "--players", "random,genius,random"], "unknown policy"),
        (["simulate", "--out", "x", "--colour"], "--colour"),
        (["dance"], "dance"),
    ],
)
def test_bad_flags_give_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("arena: error: ")
    assert message in err


def test_console_script_runs_as_a_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "simulate",
            "--ruleset",
            "nope",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("arena: error:") and done.stderr.count("\n") == 1
