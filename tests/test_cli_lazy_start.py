"""The ``arena`` command imports only the command that runs (issue 35).

``arena standings --json`` answers from tallies in milliseconds; what made it slow was
importing every command's module at start (FastAPI, the referee's gRPC, the sandbox, the
analysis) and Alembic and NumPy with the storage layer. These tests check what is imported,
never how long it takes (benchmarks/cli_startup.py measures that):

- ``arena standings --json`` in a fresh interpreter loads none of the heavy modules below
  and no other command's module; control: ``arena api --help`` through the same probe
  loads FastAPI and gRPC, so the probe sees an eager import;
- ``arena --help`` lists every command there was, each with the short help Click cuts from
  its own help, without importing any of them (control: Click's plain listing imports
  them all); a mistyped command still gets "did you mean";
- every command and subcommand still answers ``--help`` with exit code 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from arena import storage
from arena.cli import COMMANDS, cli, main
from arena.cli.lazy_group import LazyGroup
from arena.storage.database import open_database
from arena.tournament import setup
from tests.migrated_sqlite import migrated_sqlite_url
from tests.storage.helpers import checksum

EVERY_COMMAND = [
    "analyse", "api", "bot", "dashboard", "doctor", "export", "match", "queue", "ratings",
    "remote", "replay", "settings", "simulate", "standings", "token", "tournament", "user",
]  # fmt: skip
"""The commands of ``arena`` before it imported them lazily."""

HEAVY = (
    "fastapi", "streamlit", "alembic", "grpc", "pandas", "google.protobuf", "icu",
    "arena.referee", "arena.sandbox", "arena.api", "arena.analysis", "arena.v1",
)  # fmt: skip
"""Packages ``arena standings`` has no use for (a name or its submodules)."""

STANDINGS_MODULES = {
    "arena.cli", "arena.cli.lazy_group", "arena.cli.terminal", "arena.cli.standings",
    "arena.cli.storage_options",
}  # fmt: skip
"""The ``arena.cli`` modules ``arena standings`` needs: no other command's."""

# Runs `arena ARGS` in this interpreter, then reports on stderr what it imported.
PROBE = """
import json, sys
from arena.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def imported_by(*argv: str) -> tuple[int, set[str], str]:
    """Exit code, imported modules and stdout of ``arena ARGV`` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"]), done.stdout


def heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if any(m == h or m.startswith(f"{h}.") for h in HEAVY)}


@pytest.fixture
def three_bot_db(tmp_path: Path) -> Iterator[str]:
    """A database with tournament "cup" of three bots (standings rows, no games yet)."""
    url = migrated_sqlite_url(tmp_path / "arena.db")
    engine = open_database(url)
    for name in ("alpha", "bravo", "charlie"):
        fields = {"name": name, "version": "1", "language": "python", "run": ["x"]}
        storage.add_bot_version(engine, fields, checksum(name), f"/bots/{name}")
    setup.create_tournament(
        engine, by=storage.actor(engine), name="cup", ruleset="classic",
        bots=["alpha", "bravo", "charlie"], boards=1, seed=5,
    )  # fmt: skip
    engine.dispose()
    yield url


def test_standings_json_imports_no_other_command_and_nothing_heavy(three_bot_db: str) -> None:
    code, modules, out = imported_by("standings", "cup", "--json", "--db", three_bot_db)
    assert code == 0
    answer = json.loads(out)
    assert answer["tournament"] == "cup"
    assert sorted(row["label"] for row in answer["standings"]) == [
        "alpha@1",
        "bravo@1",
        "charlie@1",
    ]
    assert heavy(modules) == set()
    assert {m for m in modules if m.startswith("arena.cli")} == STANDINGS_MODULES


def test_control_the_probe_sees_an_eager_import() -> None:
    code, modules, out = imported_by("api", "--help")
    assert code == 0 and "Serve the HTTP API" in out
    assert {"fastapi", "grpc", "arena.cli.api"} <= modules
    assert {"fastapi", "grpc"} <= heavy(modules)


def test_help_lists_every_command_with_its_short_help_and_imports_none() -> None:
    group = LazyGroup(name="arena", lazy_commands=COMMANDS)
    ctx = click.Context(group, info_name="arena")
    listed = [line.split()[0] for line in group.get_help(ctx).split("Commands:")[1].splitlines()
              if line.startswith("  ") and not line.startswith("   ")]  # fmt: skip
    assert listed == EVERY_COMMAND
    assert group.commands == {}
    # Control: Click's own listing gets each command, and so imports it (one command here:
    # all of them would cost a second).
    one = LazyGroup(name="arena", lazy_commands={"ratings": COMMANDS["ratings"]})
    one_ctx = click.Context(one, info_name="arena")
    click.Group.format_commands(one, one_ctx, one_ctx.make_formatter())
    assert list(one.commands) == ["ratings"]


def _summary_shown(name: str, limit: int) -> str:
    return click.Command(name, help=COMMANDS[name].summary).get_short_help_str(limit)


@pytest.mark.parametrize("name", EVERY_COMMAND)
def test_each_summary_is_what_click_shows_of_the_commands_help(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.name == name
    for limit in range(3, 200):
        assert _summary_shown(name, limit) == command.get_short_help_str(limit), limit


def test_control_a_stale_summary_is_caught() -> None:
    stale = "Standings of tournament NAME, with how sure each rank is."
    command = cli.get_command(click.Context(cli), "standings")
    assert command is not None
    shown = click.Command("standings", help=stale).get_short_help_str(60)
    assert shown != command.get_short_help_str(60)


def test_a_mistyped_command_is_offered_the_lazy_ones(capsys: pytest.CaptureFixture[str]) -> None:
    group = LazyGroup(name="arena", lazy_commands=COMMANDS)
    with pytest.raises(click.exceptions.NoSuchCommand) as caught:
        group.main(["standing"], prog_name="arena", standalone_mode=False)
    assert caught.value.possibilities == ["standings", "settings"]
    assert group.commands == {}
    assert main(["standing"]) == 2
    assert "Did you mean one of: 'settings', 'standings'?" in capsys.readouterr().err


def _every_command(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*path, name)
        if isinstance(command, click.Group):
            yield from _every_command(command, (*path, name))


def test_every_command_and_subcommand_answers_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    listing = capsys.readouterr().out
    assert all(f"\n  {name} " in listing for name in EVERY_COMMAND)
    paths = list(_every_command(cli))
    assert {path[0] for path in paths} == set(EVERY_COMMAND)
    for path in paths:
        assert main([*path, "--help"]) == 0, path
        assert capsys.readouterr().out.startswith(f"Usage: arena {' '.join(path)} ")
