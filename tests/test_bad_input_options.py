"""Hostile option values: one clear line, exit status 2, nothing stored or played.

Time controls the protocol cannot carry, a ``--margin`` of nan or inf, ``--min-boards``
above ``--max-boards``, a ``--seed`` that keyed dealing refuses, and a ``--ray-address``
that the local executor would silently ignore. Each test has a control showing that the
value really hurts the layer below when nothing checks it (tests.test_bad_input's pattern).
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click
import grpc
import pytest

from arena import storage
from arena.cli import main
from arena.cli.common import SEED
from arena.cli.executors import open_executor
from arena.game.rules import PRESETS
from arena.protocol import convert
from arena.ratings.sprt import SprtSettings, Verdict, evaluate
from arena.referee.timecontrol import MAX_MS, TimeControl
from arena.simulate import simulate
from arena.storage.database import open_database
from arena.tournament.deals import SEED_MAX
from arena.tournament.executor import LocalProcessExecutor
from arena.v1 import arena_pb2 as pb
from tests.migrated_sqlite import migrated_sqlite_url
from tests.test_bad_input import RANDOM, one_line_error

BOTS = ("opt_a", "opt_b", "opt_c", "opt_d")
"""Four copies of random_bot: enough for a tournament and for a version test."""


@pytest.fixture(scope="module")
def arena_db(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """``--db URL --data DIR`` of a database holding :data:`BOTS`, and no tournament."""
    root = tmp_path_factory.mktemp("options")
    db = ["--db", migrated_sqlite_url(root / "arena.db"), "--data", str(root / "data")]
    for name in BOTS:
        bot = root / "src" / name
        shutil.copytree(RANDOM, bot)
        toml = (bot / "bot.toml").read_text().replace('name = "random_bot"', f'name = "{name}"')
        (bot / "bot.toml").write_text(toml)
        assert main(["bot", "submit", str(bot), *db]) == 0
    return db


def stored_tournaments(db: list[str]) -> set[str]:
    """Names of the tournaments in the database of *db*."""
    return {t.name for t in storage.list_tournaments(open_database(db[1]))}


def compare_args(db: list[str]) -> list[str]:
    """``arena bot compare`` of two of :data:`BOTS` against the other two, on *db*."""
    return ["bot", "compare", BOTS[0], BOTS[1], "--opponents", f"{BOTS[2]},{BOTS[3]}", *db]


@pytest.fixture(autouse=True)
def no_ray_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The tests choose the executor and the address themselves."""
    for name in ("ARENA_EXECUTOR", "ARENA_RAY_ADDRESS", "RAY_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    yield


# --------------------------------------------------------------------- time control

TOO_LONG = [
    ("decision=99999999999999999999,bank=1,grace=1,startup=1", "decision must be 0 to"),
    ("decision=99999999999,bank=1,grace=1,startup=1", "decision must be 0 to"),
    (f"bank={2**32}", "bank must be 0 to"),
    (f"grace={MAX_MS + 1}", "grace must be 0 to"),
    (f"startup={2**31}", "startup must be 0 to"),
    ("decision=1000,decision=5", "'decision' is given twice"),
    ("bank=1, bank = 1", "'bank' is given twice"),
]


@pytest.mark.parametrize(("text", "message"), TOO_LONG)
def test_time_control_parse_bounds_every_field_and_refuses_a_repeated_key(
    text: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        TimeControl.parse(text)


def test_every_field_takes_its_maximum_and_the_constructor_checks_too() -> None:
    top = TimeControl.parse(f"decision={MAX_MS},bank={MAX_MS},grace={MAX_MS},startup={MAX_MS}")
    assert top == TimeControl(MAX_MS, MAX_MS, MAX_MS, MAX_MS)
    assert TimeControl.parse(str(top)) == top
    for field in ("decision_ms", "bank_ms", "grace_ms", "startup_ms"):
        with pytest.raises(ValueError, match=f"{field} must be at most {MAX_MS}"):
            TimeControl(**{field: MAX_MS + 1})
        with pytest.raises(ValueError, match="non-negative integer"):
            TimeControl(**{field: True})
    # The maximum really fits the wire (both uint32 fields).
    assert convert.time_control_to_proto(convert.TimeControl(MAX_MS, MAX_MS)).bank_ms == MAX_MS


def test_control_the_layers_below_refuse_what_the_old_parser_let_through() -> None:
    """Why the bound: decision and bank are uint32 on the wire, and the startup limit
    becomes gRPC's handshake timeout, a C int; both failed mid-match before."""
    with pytest.raises(ValueError, match="Value out of range"):
        pb.TimeControl(decision_ms=99999999999)
    with pytest.raises(ValueError, match="Value out of range"):
        pb.Clock(bank_ms_left=2**32)
    with pytest.raises(OverflowError):
        grpc.server(ThreadPoolExecutor(1), options=[("grpc.server_handshake_timeout_ms", 2**31)])


@pytest.mark.parametrize(("text", "message"), [TOO_LONG[i] for i in (0, 1, 4, 5)])
@pytest.mark.parametrize("command", ["match", "bot check", "tournament create", "bot compare"])
def test_every_time_control_option_refuses_it_before_anything_is_stored(
    command: str,
    text: str,
    message: str,
    arena_db: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = {
        "match": ["match", "builtin:random", "builtin:random", "builtin:random", "--games", "1"],
        "bot check": ["bot", "check", str(RANDOM), "--games", "1"],
        "tournament create": ["tournament", "create", "tc", "--bots", ",".join(BOTS[:3]),
                              "--boards", "1", *arena_db],
        "bot compare": compare_args(arena_db),
    }[command]  # fmt: skip
    played: list[object] = []
    monkeypatch.setattr("arena.cli.compare.play", lambda *args: played.append(args))
    before = stored_tournaments(arena_db)
    assert main([*args, "--time-control", text]) == 2
    one_line_error(capsys, "--time-control", message)
    assert stored_tournaments(arena_db) == before
    assert played == []


# ------------------------------------------------------------------------- compare


@pytest.mark.parametrize("margin", ["nan", "inf", "-inf", "NaN", "0", "-1"])
def test_compare_margin_must_be_a_finite_positive_number(
    margin: str, arena_db: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = stored_tournaments(arena_db)
    assert main([*compare_args(arena_db), "--margin", margin]) == 2
    err = one_line_error(capsys, "--margin", "the margin must be a positive number of points")
    assert f"got {float(margin)}" in err
    assert stored_tournaments(arena_db) == before


def test_control_click_lets_nan_and_inf_through_and_the_test_refuses_them_later() -> None:
    old = click.FloatRange(min=0.0, min_open=True)  # the option's former type
    assert math.isnan(old("nan"))
    assert old("inf") == math.inf
    with pytest.raises(ValueError, match="the margin must be a positive number of points"):
        SprtSettings(float("nan"))


def test_compare_refuses_min_boards_above_max_boards_before_anything_is_stored(
    arena_db: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[object] = []
    monkeypatch.setattr("arena.cli.compare.play", lambda *args: played.append(args))
    before = stored_tournaments(arena_db)
    assert main([*compare_args(arena_db), "--min-boards", "5", "--max-boards", "3"]) == 2
    one_line_error(capsys, "--min-boards", "more than --max-boards 3", "never reach a verdict")
    assert stored_tournaments(arena_db) == before
    assert played == []
    # Equal bounds may decide at the last board: not refused (the test is stored, and
    # played, here by the stand-in).
    args = [*compare_args(arena_db), "--min-boards", "3", "--max-boards", "3", "--name", "eq"]
    assert main(args) == 0
    assert stored_tournaments(arena_db) == before | {"eq"}
    assert len(played) == 1


def test_control_no_verdict_comes_before_min_boards_however_clear_the_boards() -> None:
    settings = SprtSettings(margin=1.0, min_boards=5)
    crushing = [30.0, 31.0, 29.0]  # three boards: --max-boards 3
    assert evaluate(crushing, settings).llr > settings.upper
    assert evaluate(crushing, settings).verdict is Verdict.UNDECIDED


# ------------------------------------------------------------------------ simulate


@pytest.mark.parametrize("seed", ["-5", str(2**256), str(SEED_MAX + 1)])
def test_simulate_seed_is_range_checked_like_match(
    seed: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    assert main(["simulate", "--out", str(out), "--games", "2", "--seed", seed]) == 2
    one_line_error(capsys, "--seed", "0<=x<=")
    assert not out.exists()  # refused before the directory is made
    # The same option type as arena match's --seed.
    assert (
        main(["match", "builtin:random", "builtin:random", "builtin:random", "--seed", seed]) == 2
    )
    one_line_error(capsys, "--seed", "0<=x<=")


def test_simulate_takes_the_largest_seed(tmp_path: Path) -> None:
    out = tmp_path / "s"
    assert main(["simulate", "--out", str(out), "--games", "2", "--seed", str(SEED_MAX)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [f"{SEED_MAX}.json", f"{SEED_MAX + 1}.json"]
    assert SEED.max == SEED_MAX


def test_control_the_dealer_refuses_a_negative_seed(tmp_path: Path) -> None:
    names = ["random", "random", "random"]
    with pytest.raises(ValueError, match="a keyed seed is an integer from 0 to 2"):
        simulate(PRESETS["classic"], 1, -5, tmp_path, names)


# ------------------------------------------------------------------- --ray-address


@pytest.mark.parametrize("how", ["default", "flag", "env"])
def test_a_typed_ray_address_without_the_ray_executor_is_refused(
    how: str,
    arena_db: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = f"ray-{how}"
    assert main(["tournament", "create", name, "--bots", ",".join(BOTS[:3]), "--boards", "1",
                 "--seed", "1", *arena_db]) == 0  # fmt: skip
    capsys.readouterr()
    executor = ["--executor", "local"] if how == "flag" else []
    if how == "env":  # local chosen by the environment: the typed address still conflicts
        monkeypatch.setenv("ARENA_EXECUTOR", "local")
    args = ["tournament", "run", name, "--ray-address", "1.2.3.4:1", *executor, *arena_db]
    assert main(args) == 2
    one_line_error(capsys, "--ray-address", "only applies with --executor ray", "is local")
    engine = open_database(arena_db[1])
    tournament = storage.get_tournament(engine, name)
    assert storage.progress(engine, storage.row_id(tournament)).stored == 0  # nothing ran


@pytest.mark.parametrize("variable", ["ARENA_RAY_ADDRESS", "RAY_ADDRESS"])
def test_a_ray_address_from_the_environment_is_not_refused(
    variable: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shell (or a Ray node) exports the address for every command: the local executor
    must stay usable there, so the command goes on (to the unknown tournament here)."""
    monkeypatch.setenv(variable, "1.2.3.4:1")
    db = ["--db", migrated_sqlite_url(tmp_path / "arena.db"), "--data", str(tmp_path / "data")]
    assert main(["tournament", "run", "nothing", *db]) == 1
    one_line_error(capsys, "no tournament named 'nothing'")


def test_control_the_local_executor_silently_ignores_an_address() -> None:
    with open_executor("local", "1.2.3.4:1", 1) as pool:
        assert isinstance(pool, LocalProcessExecutor)
