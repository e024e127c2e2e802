"""``benchmarks/check_time.py --versus``: the two trees take turns within every round, in
an order that alternates from round to round, and the summary is the mean of the
per-round differences, from which a steady drift of the machine cancels out. No ``make``
runs here: the timed run is replaced."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.benchmarks.scripts import load_benchmark

check_time = load_benchmark("check_time")


def test_the_trees_take_turns_a_b_then_b_a() -> None:
    a, b = Path("/a"), Path("/b")
    assert check_time.turns([a, b], 4) == [[a, b], [b, a], [a, b], [b, a]]
    assert check_time.turns([a], 2) == [[a], [a]]


def test_versus_runs_both_trees_each_round_and_reports_the_paired_difference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "old"
    other.mkdir()
    (other / "Makefile").write_text("check:\n")
    ran: list[Path] = []
    # The other tree is 5 s slower than this one, and the machine slows by 10 s a run:
    # each round's pair is 15 or -5 apart, by the order the two ran in.
    clock = iter(range(0, 1000, 10))

    def fake_run(target: str, tree: Path) -> tuple[float, float, float | None, str]:
        ran.append(tree)
        wall = 60.0 + next(clock) + (5.0 if tree == other else 0.0)
        return wall, 100.0, 0.9, "1 passed in 1.00s"

    monkeypatch.setattr(check_time, "timed_run", fake_run)
    monkeypatch.setattr(check_time, "reference_seconds", lambda: 3.0)
    monkeypatch.setattr(sys, "argv", ["check_time.py", "--versus", str(other), "--rounds", "4"])
    assert check_time.main() == 0
    this = check_time.ROOT
    assert ran == [this, other, other, this, this, other, other, this]
    out = capsys.readouterr().out
    assert f"{other} minus this: mean +5.0 s over 4 rounds" in out
    assert "(per round: +15.0, -5.0, +15.0, -5.0)" in out
    # Control: any one round alone is off by the drift (+15 or -5), the mean is not.
    assert "make check (this): median 95.0 s" in out


def test_versus_a_folder_without_a_makefile_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["check_time.py", "--versus", str(tmp_path)])
    with pytest.raises(SystemExit) as exited:
        check_time.main()
    assert exited.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "no Makefile there" in error


def test_versus_this_very_checkout_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["check_time.py", "--versus", str(check_time.ROOT)])
    with pytest.raises(SystemExit) as exited:
        check_time.main()
    assert exited.value.code == 2
    assert "that is this checkout" in capsys.readouterr().err
