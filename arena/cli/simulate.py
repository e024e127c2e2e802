"""``arena simulate``: in-process games between built-in policies."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from arena.cli.common import SEED, prepare_out_dir, progress_bar, resolve_ruleset
from arena.game.rules import PRESETS
from arena.simulate import SimulationSummary, UnknownPolicyError, make_policies, simulate


@click.command("simulate")
@click.option(
    "--ruleset",
    default="classic",
    show_default=True,
    help=f"Preset id: {', '.join(PRESETS)}.",
)
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Game i uses seed S+i.")
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
    help="Built-in policy per seat, comma-separated: random, greedy, pimc.",
)
def simulate_command(ruleset: str, games: int, seed: int, out: Path, players: str) -> None:
    """Play games in-process between built-in policies and write their records."""
    rules = resolve_ruleset(ruleset)
    prepare_out_dir(out)
    names = [p.strip() for p in players.split(",")]
    if len(names) != 3:
        raise click.BadParameter(
            f"give exactly 3 policies, got {len(names)}", param_hint="--players"
        )
    try:
        make_policies(names, 0)
    except UnknownPolicyError as exc:
        raise click.BadParameter(str(exc), param_hint="--players") from None

    progress = progress_bar("simulate")
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
