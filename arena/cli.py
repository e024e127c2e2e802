"""The ``arena`` command line.

Every usage error (a bad flag, an unknown ruleset or policy) is reported as one line on
stderr with exit code 2, so scripts and people both get a clear answer.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from arena import __version__
from arena.game.rules import PRESETS, RuleSetError, get_ruleset
from arena.simulate import SimulationSummary, UnknownPolicyError, make_policies, simulate

EXIT_USAGE = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def cli() -> None:
    """952 Arena: play, referee and rate bots for the 9-5-2 card game."""


@cli.command("simulate")
@click.option(
    "--ruleset",
    default="classic",
    show_default=True,
    help=f"Preset id: {', '.join(PRESETS)}.",
)
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Game i uses seed S+i.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Directory for the records (<seed>.json).",
)
@click.option(
    "--players",
    default="random,random,random",
    show_default=True,
    help="Built-in policy per seat, comma-separated: random, greedy.",
)
def simulate_command(ruleset: str, games: int, seed: int, out: Path, players: str) -> None:
    """Play games in-process between built-in policies and write their records."""
    try:
        rules = get_ruleset(ruleset)
    except RuleSetError as exc:
        raise click.BadParameter(str(exc), param_hint="--ruleset") from None
    names = [p.strip() for p in players.split(",")]
    if len(names) != 3:
        raise click.BadParameter(
            f"give exactly 3 policies, got {len(names)}", param_hint="--players"
        )
    try:
        make_policies(names, 0)
    except UnknownPolicyError as exc:
        raise click.BadParameter(str(exc), param_hint="--players") from None

    console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]simulate[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
    )
    with progress:
        task = progress.add_task(ruleset, total=games, rate="")

        def advance(summary: SimulationSummary) -> None:
            rate = f"{summary.hands_per_second:,.0f} hands/s"
            progress.update(task, completed=summary.games, rate=rate)

        summary = simulate(rules, games, seed, out, names, on_game=advance)
    _print_summary(summary, names, out)


def _print_summary(summary: SimulationSummary, names: list[str], out: Path) -> None:
    table = Table(title="Simulation summary", show_header=False)
    table.add_row("games", str(summary.games))
    table.add_row("hands", str(summary.hands))
    table.add_row("seconds", f"{summary.seconds:.2f}")
    table.add_row("hands/s", f"{summary.hands_per_second:,.0f}")
    for seat, name in enumerate(names):
        table.add_row(f"wins seat {seat} ({name})", str(summary.wins[seat]))
    table.add_row("draws", str(summary.draws))
    table.add_row("records", str(out))
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning usage errors into one line and exit code 2."""
    try:
        cli.main(args=argv, prog_name="arena", standalone_mode=False)
    except click.UsageError as exc:
        hint = f" ({exc.ctx.command_path} --help)" if exc.ctx is not None else ""
        click.echo(f"arena: error: {exc.format_message()}{hint}", err=True)
        return EXIT_USAGE
    except click.ClickException as exc:
        click.echo(f"arena: error: {exc.format_message()}", err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("arena: aborted", err=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
