"""Hostile input to tournaments, replays and exports: one clear line, the documented exit
status, nothing stored lost or written outside where it belongs. Each test has a control
showing the input really hurts the layer below when nothing checks it (the house pattern of
tests/test_bad_input.py)."""

from __future__ import annotations

import errno
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, update

from arena import storage
from arena.cli import main
from arena.game.record import RecordError, replay_record
from arena.recordfiles import export_file_name
from arena.replay.text import replay_text
from arena.storage.database import StorageError, open_database
from arena.storage.models import Game, Tournament, TournamentCreate
from arena.storage.tournaments import check_tournament_name
from arena.tournament import setup
from arena.tournament.runner import tournament_rules
from tests.migrated_sqlite import migrated_sqlite_url
from tests.storage.helpers import make_record, store
from tests.test_bad_input import one_line_error

BOTS = ("ace", "mid", "dud")


@pytest.fixture
def url(tmp_path: Path) -> str:
    return migrated_sqlite_url(tmp_path / "arena.db")


@pytest.fixture
def engine(url: str) -> Engine:
    """A database with the bots ace, mid, dud, cand and base (one version each, never run)."""
    engine = open_database(url)
    for name in (*BOTS, "cand", "base"):
        checksum = hashlib.sha256(name.encode()).hexdigest()
        manifest = {"name": name, "version": "1", "language": "python", "run": "python bot.py"}
        storage.add_bot_version(engine, manifest, checksum, f"/nowhere/{name}")
    return engine


def _db(url: str, tmp_path: Path) -> list[str]:
    return ["--db", url, "--data", str(tmp_path / "data")]


def _create(url: str, tmp_path: Path, name: str, *extra: str) -> int:
    args = ["tournament", "create", "--bots", ",".join(BOTS), *extra, *_db(url, tmp_path)]
    return main([*args, "--", name])  # "--": a name like "-rf" reaches NAME


def _organiser(engine: Engine) -> storage.Actor:
    return storage.actor(engine)


def _entrants(engine: Engine) -> list[int]:
    versions = [storage.latest_version(engine, bot) for bot in BOTS]
    return [storage.row_id(v) for v in versions if v is not None]


# ------------------------------------------------------------------ tournament names

BAD_NAMES = ["sub/x", "../../escape", "..", ".hidden", "-rf", "a\tb", "a\nb", "x" * 121, "é"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_name_unsafe_as_a_file_name_is_refused_at_creation(
    name: str, engine: Engine, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _create(url, tmp_path, name) == 2
    one_line_error(capsys, "Invalid value for 'NAME'", "invalid tournament name", "1-120")
    assert storage.list_tournaments(engine) == []
    with pytest.raises(StorageError, match="invalid tournament name"):  # every creator
        storage.create_tournament(
            engine, name=name, ruleset="classic", rules_json="{}", time_control="decision=1",
            boards=1, seed=1, rating_mode="board", entries=[], games_total=6,
        )  # fmt: skip
    # Control: the model below checks only the length (what export does with such a name
    # is test_export_never_writes_outside_out_whatever_the_name's control).
    if len(name) <= 120:
        _model(name)


def _model(name: str) -> TournamentCreate:
    return TournamentCreate.model_validate(
        {"name": name, "ruleset": "classic", "rules": "{}", "time_control": "decision=1",
         "boards": 1, "rating_mode": "board", "games_total": 6}
    )  # fmt: skip


def test_a_huge_name_is_not_echoed_in_full(
    engine: Engine, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _create(url, tmp_path, "x" * 5000) == 2
    err = one_line_error(capsys, "NAME", "(5000 characters)")
    assert len(err) < 500
    assert storage.list_tournaments(engine) == []


@pytest.mark.parametrize(
    "name",
    ["demo", "rr", "spring-cup", "league", "ladder", "t1", "my cup 2", "v1.0+build_3",
     "compare greedy_bot@1.0.0 vs weak_greedy_bot@1.0.0 #2", "x" * 120,
     "play now 2026-11-24 23:59:01: random_bot, greedy_bot, heuristic_bot"],
)  # fmt: skip
def test_the_names_the_arena_and_its_docs_use_are_accepted(
    name: str, engine: Engine, url: str, tmp_path: Path
) -> None:
    """Control of the name rule: the Makefile's demo, README's league and ladder, the test
    suite's names and ``arena bot compare``'s default names all pass."""
    assert check_tournament_name(name) == name
    assert _create(url, tmp_path, name) == 0
    assert storage.get_tournament(engine, name).name == name


def test_an_empty_name_is_blamed_on_name_not_on_bots(
    engine: Engine, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for blank in ("", "   "):
        assert _create(url, tmp_path, blank) == 2
        err = one_line_error(capsys, "Invalid value for 'NAME'")
        assert "--bots" not in err
    # Control: the setup below blames --bots for the missing name.
    with pytest.raises(setup.TournamentSetupError) as refused:
        setup.create_tournament(
            engine, by=_organiser(engine), name="", ruleset="classic", bots=list(BOTS), boards=1
        )
    assert refused.value.param == "--bots"


def test_compare_with_an_empty_name_creates_no_tournament(
    engine: Engine, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bot", "compare", "cand", "base", "--opponents", "ace,mid", "--name", ""]
    assert main([*args, *_db(url, tmp_path)]) == 4  # compare's "could not be run"
    one_line_error(capsys, "invalid tournament name ''")
    assert storage.list_tournaments(engine) == []
    # Control: the model below takes an empty name.
    assert _model("").name == ""


# ------------------------------------------------------------------------ exports


def _tournament_with_games(engine: Engine, count: int = 3, name: str = "t1") -> Tournament:
    """A stored tournament with *count* real, finished games (played by built-in policies)."""
    ids = _entrants(engine)
    tournament = storage.create_tournament(
        engine, name=name, ruleset="classic", rules_json="{}", time_control="decision=1000",
        boards=1, seed=2**40 + 7, rating_mode="game", entries=ids, games_total=6,
    )  # fmt: skip
    for index in range(count):
        store(engine, tournament, index, ids, make_record(index))
    return tournament


def _rename(engine: Engine, tournament: Tournament, name: str) -> None:
    """What an older database may hold: a name the arena refuses today."""
    with engine.begin() as connection:
        connection.execute(
            update(Tournament).where(Tournament.id == tournament.id).values(name=name)  # type: ignore[arg-type]
        )


@pytest.mark.parametrize(
    ("name", "harm"),
    [("../../escape", "outside"), ("/etc/cron.d/x", "outside"), ("../x", "outside"),
     ("sub/x", "crash"), ("a\nb", "newline"), ("", "dash")],
)  # fmt: skip
def test_export_never_writes_outside_out_whatever_the_name(
    name: str,
    harm: str,
    engine: Engine,
    url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tournament = _tournament_with_games(engine)
    _rename(engine, tournament, name)
    out = tmp_path / "w" / "a" / "b" / "out"
    assert main(["export", name, "--out", str(out), *_db(url, tmp_path)]) == 0
    written = sorted(p for p in (tmp_path / "w").rglob("*") if p.is_file())
    assert [p.parent for p in written] == [out] * 3
    assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.json", p.name) for p in written)
    stored = dict(storage.tournament_records(engine, storage.row_id(tournament)))
    for index, record in stored.items():
        assert json.loads((out / export_file_name(name, index)).read_text()) == record
    assert "wrote 3 record(s)" in capsys.readouterr().out
    # Control: the file name the old export made of the name.
    old = out / f"{name}-000000.json"
    if harm == "outside":
        assert old.resolve().parent != out.resolve()
    elif harm == "crash":
        with pytest.raises(FileNotFoundError):
            old.write_text("x")
    elif harm == "newline":
        assert "\n" in old.name
    else:
        assert old.name.startswith("-")  # taken for an option by the next tool


def test_unsafe_names_never_share_export_files() -> None:
    stems = {export_file_name(n, 0) for n in ("a/b", "a b", "a_b", "a\tb", "a.b")}
    assert len(stems) == 5


# ------------------------------------------------------------------ damaged records


def _truncated(record: dict[str, Any]) -> str:
    return json.dumps(record)[:500]


def _other(record: dict[str, Any]) -> list[int]:
    """A winner the rules did not give: what a doctored record claims."""
    return [(record["result"]["winners"][0] + 1) % 3]


def _with(**fields: Any) -> Callable[[dict[str, Any]], str]:
    return lambda record: json.dumps({**record, **fields})


DAMAGE: list[tuple[str, Callable[[dict[str, Any]], str], str]] = [
    ("truncated", _truncated, "not valid JSON"),
    ("hands-5", _with(hands=5), "hands must be a non-empty list"),
    ("null", lambda _: "null", "a record must be a JSON object"),
    ("list", lambda _: "[]", "a record must be a JSON object"),
    ("format", _with(format="bogus/9"), "format must be 'arena952.game/1', not 'bogus/9'"),
    ("faults", _with(faults=[5]), "fault 1 is not an entry with a seat"),
    ("fault-keys", _with(faults=[{"seat": 1}]), "fault 1 has no hand, decision, kind, detail"),
    ("deep", lambda _: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("cheat", lambda r: _with(result={**r["result"], "winners": _other(r)})(r), "winners is"),
]


def _damage(engine: Engine, game_id: int, text: str) -> None:
    with engine.begin() as connection:
        connection.execute(update(Game).where(Game.id == game_id).values(record=text))  # type: ignore[arg-type]


def _control_old_replay(text: str) -> None:
    """What ``arena replay`` did: parse, then print (raising, or printing a bad record)."""
    replay_text(json.loads(text))


@pytest.mark.parametrize(("kind", "damage", "message"), DAMAGE, ids=[d[0] for d in DAMAGE])
def test_replay_of_a_damaged_record(
    kind: str,
    damage: Callable[[dict[str, Any]], str],
    message: str,
    engine: Engine,
    url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tournament = _tournament_with_games(engine)
    game_id = storage.tournament_game_ids(engine, storage.row_id(tournament))[1]
    text = damage(storage.game_record(engine, game_id))
    _damage(engine, game_id, text)
    assert main(["replay", str(game_id), *_db(url, tmp_path)]) == 1
    err = one_line_error(capsys, "damaged record", f"game {game_id}", message)
    assert len(err) < 400
    # Control: unchecked, the record crashes the replay or is shown as if it were fine.
    if kind in ("format", "cheat"):
        _control_old_replay(text)  # no complaint at all
    else:
        with pytest.raises((ValueError, TypeError, KeyError, RecursionError)):
            _control_old_replay(text)


@pytest.mark.parametrize(("kind", "damage", "message"), DAMAGE, ids=[d[0] for d in DAMAGE])
def test_export_with_a_damaged_record_writes_nothing(
    kind: str,
    damage: Callable[[dict[str, Any]], str],
    message: str,
    engine: Engine,
    url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tournament = _tournament_with_games(engine)
    ids = storage.tournament_game_ids(engine, storage.row_id(tournament))
    good = storage.game_record(engine, ids[1])
    _damage(engine, ids[1], damage(good))
    out = tmp_path / "out"
    out.mkdir()
    (out / "t1-000001.json").write_text("an earlier export\n")
    assert main(["export", "t1", "--out", str(out), *_db(url, tmp_path)]) == 1
    one_line_error(capsys, "tournament 't1'", "1 of 3", "nothing written", f"game {ids[1]}")
    assert [p.name for p in out.iterdir()] == ["t1-000001.json"]  # as it was, no staging
    assert (out / "t1-000001.json").read_text() == "an earlier export\n"
    # Control: unchecked, the stored records do not even load (the old export crashed
    # midway), or they load and the old export wrote, with exit 0, a file that is no record
    # (it breaks the rules, or its faults crash a replay of it).
    try:
        records = storage.tournament_records(engine, storage.row_id(tournament))
    except (ValueError, RecursionError):
        return
    with pytest.raises((RecordError, KeyError, TypeError)):
        replay_record(records[1][1])
        replay_text(records[1][1])


def test_export_refusal_counts_every_damaged_record(
    engine: Engine, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tournament = _tournament_with_games(engine)
    ids = storage.tournament_game_ids(engine, storage.row_id(tournament))
    _damage(engine, ids[2], "{")
    _damage(engine, ids[0], "null")
    out = tmp_path / "out"
    assert main(["export", "t1", "--out", str(out), *_db(url, tmp_path)]) == 1
    one_line_error(capsys, "2 of 3", f"the first: game {ids[0]}")
    assert not out.exists()


def test_export_of_good_records_round_trips(
    engine: Engine, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Control of the checks: real records pass them and export unchanged."""
    tournament = _tournament_with_games(engine)
    out = tmp_path / "out"
    assert main(["export", "t1", "--out", str(out), *_db(url, tmp_path)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [f"t1-00000{i}.json" for i in range(3)]
    for index, record in storage.tournament_records(engine, storage.row_id(tournament)):
        assert json.loads((out / f"t1-{index:06d}.json").read_text()) == record
    assert "wrote 3 record(s)" in capsys.readouterr().out


def test_a_write_failing_midway_leaves_out_as_it_was(
    engine: Engine,
    url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _tournament_with_games(engine)
    out = tmp_path / "out"
    out.mkdir()
    (out / "t1-000001.json").write_text("an earlier export\n")
    real_write = Path.write_text
    calls: list[Path] = []

    def disk_full_on_the_second(path: Path, *args: Any, **kwargs: Any) -> int:
        calls.append(path)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(path, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", disk_full_on_the_second)
    assert main(["export", "t1", "--out", str(out), *_db(url, tmp_path)]) == 1
    one_line_error(capsys, "No space left on device", "0 of 3 files in place")
    assert [p.name for p in out.iterdir()] == ["t1-000001.json"]
    assert (out / "t1-000001.json").read_text() == "an earlier export\n"
    assert calls[0].parent != out  # control: the first record was written, elsewhere


# ------------------------------------------------------------------- stored rules


@pytest.mark.parametrize(
    ("rules", "message"),
    [("{bad", "not JSON"), ("[1]", "not a JSON object"), ('{"a": 1}', "unknown rule")],
)
@pytest.mark.parametrize("format_name", ["round_robin", "ladder"])
def test_run_with_damaged_stored_rules(
    rules: str,
    message: str,
    format_name: str,
    engine: Engine,
    url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _create(url, tmp_path, "t", "--format", format_name) == 0
    with engine.begin() as connection:
        connection.execute(update(Tournament).values(rules=rules))
    capsys.readouterr()
    assert main(["tournament", "run", "t", *_db(url, tmp_path)]) == 1
    one_line_error(capsys, "tournament 't'", "stored rules are unreadable", message)
    assert storage.get_tournament(engine, "t").status == "created"
    # Control: the runner itself reads the column unchecked.
    with pytest.raises((ValueError, AssertionError)):
        tournament_rules(storage.get_tournament(engine, "t"))


# ---------------------------------------------------------------- ladder numbers


@pytest.mark.parametrize(
    ("option", "value"),
    [("--games", "99999999999999999999"), ("--games", "-6"), ("--games", "100002"),
     ("--min-games", "99999999999999999999"), ("--min-games", "2147483648"),
     ("--min-games", "-1")],
)  # fmt: skip
def test_ladder_numbers_out_of_range(
    option: str,
    value: str,
    engine: Engine,
    url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _create(url, tmp_path, "l", "--format", "ladder", option, value) == 2
    one_line_error(capsys, option, "range")
    assert storage.list_tournaments(engine) == []


def test_control_huge_ladder_numbers_hurt_the_layers_below(engine: Engine) -> None:
    """Unchecked, a huge budget overflows the database driver, and a minimum of 2**31 rated
    games (more than PostgreSQL's integer column holds) is stored as if it made sense."""
    by = _organiser(engine)
    huge = setup.LadderOptions(games=99999999999999999999)
    with pytest.raises(OverflowError):
        setup.create_tournament(engine, by=by, name="l", ruleset="classic", bots=list(BOTS),
                                boards=1, format_name="ladder", ladder=huge)  # fmt: skip
    big = setup.LadderOptions(min_games=2147483648)
    setup.create_tournament(engine, by=by, name="m", ruleset="classic", bots=list(BOTS),
                            boards=1, format_name="ladder", ladder=big)  # fmt: skip
    tournament = storage.get_tournament(engine, "m")
    assert storage.ladder_settings(engine, storage.row_id(tournament)).min_games == 2**31


@pytest.mark.parametrize(
    ("games", "nearest"),
    [("7", "use 6 or 12"), ("5", "use 0 (no budget) or 6"), ("13", "use 12 or 18"),
     ("99999", "use 99996")],
)  # fmt: skip
def test_a_ladder_budget_that_is_not_whole_matches(
    games: str,
    nearest: str,
    engine: Engine,
    url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _create(url, tmp_path, "l", "--format", "ladder", "--games", games) == 2
    one_line_error(capsys, "--games", "not a whole number of 6-game matches", nearest)
    assert storage.list_tournaments(engine) == []
    # Control: whole matches are taken ...
    assert _create(url, tmp_path, "l", "--format", "ladder", "--games", "12") == 0
    # ... and the setup below takes any budget, one that a ladder never reaches included.
    setup.create_tournament(engine, by=_organiser(engine), name="seven", ruleset="classic",
                            bots=list(BOTS), boards=1, format_name="ladder",
                            ladder=setup.LadderOptions(games=7))  # fmt: skip


# ------------------------------------------------------------------------ help texts


def test_help_says_what_export_writes_and_where_replay_ids_are(
    engine: Engine, url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "--help"]) == 0
    export_help = " ".join(capsys.readouterr().out.split())
    assert "arena952.game/1" in export_help and "JSON" in export_help
    assert "docs/record-format.md files" not in export_help
    assert main(["replay", "--help"]) == 0
    replay_help = " ".join(capsys.readouterr().out.split())
    assert "arena tournament status NAME" in replay_help
    assert "shown by the dashboard and export" not in replay_help
    # The ids status lists are the ones replay takes; the record's game_id is not one.
    tournament = _tournament_with_games(engine)
    assert main(["tournament", "status", "t1", *_db(url, tmp_path)]) == 0
    shown = re.search(r"game ids for `arena replay`: (\d+)\.\.(\d+)", capsys.readouterr().out)
    assert shown is not None
    assert main(["replay", shown.group(1), *_db(url, tmp_path)]) == 0
    assert "trick 16" in capsys.readouterr().out
    assert main(["replay", "t1-000000", *_db(url, tmp_path)]) == 2  # a record's game_id
    one_line_error(capsys, "GAME_ID")
    assert storage.tournament_game_ids(engine, storage.row_id(tournament))[0] == int(shown.group(1))
