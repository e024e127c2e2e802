"""The optional compiled engine (arena.game._native): used only when up to date, and it
plays exactly what the pure-Python source plays, checked by the rules oracle.

The compiled build is made by ``make engine`` (``make test`` and ``make bench`` build it).
Elsewhere a missing build only skips the test that needs it; with ``CI=true`` it fails.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

import arena.game
from arena.game import PRESETS, EndReason, GameResult, GameState, Leg
from arena.game._native import (
    BUILD_DIR,
    COMPILED_MODULES,
    PURE_ENV,
    STAMP,
    compiled_path,
    is_compiled,
)
from arena.game._native import stamp as source_stamp
from arena.game.dealing import KeyedDeals

PACKAGE = Path(arena.game.__file__).parent
ROOT = PACKAGE.parent.parent

# Plays a few games per preset, checks each record with the rules oracle, and prints the
# records' digests and which engine ran: run here and in a pure-Python child process.
_PLAY = """
import hashlib, json, sys
from arena.game import PRESETS
from arena.game._native import is_compiled
from arena.game.record import game_record
from arena.simulate import make_policies, play_game
from tests.oracle.rules_oracle import check_record
out = {"compiled": is_compiled(), "digests": {}}
for preset, rules in PRESETS.items():
    digest = hashlib.sha256()
    for seed in range(3):
        lineup = [("random",) * 3, ("greedy", "random", "greedy")][seed % 2]
        state = play_game(rules, seed, make_policies(lineup, seed))
        record = json.loads(json.dumps(game_record(state, list(lineup))))
        problems = check_record(record)
        assert problems == [], (preset, seed, problems[:3])
        digest.update(json.dumps(record, sort_keys=True).encode())
    out["digests"][preset] = digest.hexdigest()
print(json.dumps(out))
"""


def _play(pure: bool) -> dict[str, object]:
    env = {**os.environ, PURE_ENV: "1" if pure else ""}
    done = subprocess.run(
        [sys.executable, "-c", _PLAY], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _build_is_current() -> bool:
    return compiled_path(str(PACKAGE)) != [] or bool(os.environ.get(PURE_ENV))


def test_the_compiled_engine_is_built_and_in_use() -> None:
    if not (PACKAGE / BUILD_DIR / STAMP).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("the compiled engine is not built: run `make engine`")
        pytest.skip("the compiled engine is not built (`make engine`); pure Python runs")
    if os.environ.get(PURE_ENV):
        pytest.skip(f"{PURE_ENV} is set: pure Python on purpose")
    assert _build_is_current(), "the compiled engine is stale: run `make engine`"
    assert is_compiled()


def test_pure_python_and_compiled_engines_agree_with_the_oracle_and_each_other() -> None:
    compiled, pure = _play(pure=False), _play(pure=True)
    assert pure["compiled"] is False  # control: the switch really forces pure Python
    assert compiled["digests"] == pure["digests"]
    if compiled["compiled"] is False and os.environ.get("CI") == "true":
        pytest.fail("only the pure-Python engine ran: the compiled build is missing or stale")


def _fake_package(tmp_path: Path) -> Path:
    for name in COMPILED_MODULES:
        (tmp_path / f"{name}.py").write_text(f"# {name}\n")
    build = tmp_path / BUILD_DIR
    build.mkdir()
    (build / STAMP).write_text(json.dumps(source_stamp(tmp_path)))
    return build


def test_an_up_to_date_build_goes_first_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PURE_ENV, raising=False)
    build = _fake_package(tmp_path)
    assert compiled_path(str(tmp_path)) == [str(build)]


def test_a_stale_build_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_ENV, raising=False)
    build = _fake_package(tmp_path)
    assert compiled_path(str(tmp_path)) == [str(build)]  # control
    (tmp_path / "state.py").write_text("# state, edited after the build\n")
    assert compiled_path(str(tmp_path)) == []


def test_the_switch_and_a_missing_stamp_mean_pure_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = _fake_package(tmp_path)
    monkeypatch.setenv(PURE_ENV, "1")
    assert compiled_path(str(tmp_path)) == []
    monkeypatch.delenv(PURE_ENV)
    assert compiled_path(str(tmp_path)) == [str(build)]  # control
    (build / STAMP).unlink()
    assert compiled_path(str(tmp_path)) == []


def test_the_values_that_leave_the_engine_copy_and_pickle() -> None:
    """Observations and results carry these: compiled or not, they must copy and pickle."""
    values = (
        GameResult((0,), EndReason.TARGET, (10, 2, -3), 4),
        Leg(0, 1, 2),
        KeyedDeals(12345),
    )
    for value in values:
        assert copy.deepcopy(value) == value or isinstance(value, KeyedDeals)
        again = pickle.loads(pickle.dumps(value))
        assert type(again) is type(value)
    deals = pickle.loads(pickle.dumps(KeyedDeals(12345)))
    assert deals.deal(2, 1) == KeyedDeals(12345).deal(2, 1)
    assert deals.deal(2, 1) != KeyedDeals(12346).deal(2, 1)  # control


def test_copies_of_a_state_are_independent_clones() -> None:
    rng = random.Random(9)
    state = GameState(PRESETS["classic"], 3)
    for _ in range(30):
        state.apply(rng.choice(state.legal_actions()))
    before = state.decisions
    for copier in (copy.copy, copy.deepcopy):
        twin = copier(state)
        for _ in range(40):
            twin.apply(twin.legal_actions()[0])
        assert twin.decisions == before + 40
        assert state.decisions == before  # the original did not move
