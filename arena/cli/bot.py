"""``arena bot check``: the compliance kit for bot authors in any language."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from arena.cli.common import resolve_ruleset, resolve_time_control
from arena.cli.match import ensure_built
from arena.cli.storage_options import data_dir, db_options, open_engine
from arena.game.policies import RandomPolicy
from arena.game.rules import PRESETS
from arena.referee.manifest import ManifestError, load_manifest
from arena.referee.match import MatchConfig, PolicySeat, SeatSpec, play_match
from arena.storage import service
from arena.submission import SubmitError, submit_bot

_PLAIN = {
    "timeout": "did not answer in time",
    "crash": "crashed or closed its connection",
    "illegal": "made a move the rules do not allow",
    "protocol": "broke the protocol",
    "startup": "did not start and connect",
}


@click.group("bot")
def bot_group() -> None:
    """Work with bots: check one before submitting it."""


@bot_group.command("check")
@click.argument("path", type=click.Path(exists=False))
@click.option("--games", type=click.IntRange(min=1), default=3, show_default=True,
              help="Games to play; the bot sits in seat 0, 1, 2 in turn.")  # fmt: skip
@click.option(
    "--ruleset", default="classic", show_default=True, help=f"One of: {', '.join(PRESETS)}."
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--time-control",
    default="decision=1000,bank=10000,grace=50,startup=10000",
    show_default=True,
)
def check_command(path: str, games: int, ruleset: str, seed: int, time_control: str) -> None:
    """Play a few games of the bot at PATH against random bots through the real referee
    and report every fault in plain words. Exits 1 if there was any."""
    rules = resolve_ruleset(ruleset)
    control = resolve_time_control(time_control)
    try:
        manifest = load_manifest(path)
    except ManifestError as exc:
        raise click.BadParameter(str(exc), param_hint="PATH") from None
    ensure_built([manifest], rebuild=False)
    console = Console()
    console.print(f"checking {manifest.label} ({manifest.language}): {games} game(s) of {ruleset}")
    problems = 0
    for game in range(games):
        seat = game % 3
        seats: list[SeatSpec] = [PolicySeat(RandomPolicy(seed + game * 3 + i)) for i in range(3)]
        seats[seat] = manifest
        config = MatchConfig(rules, 1, seed + game, control)
        result = asyncio.run(play_match(seats, config))
        record = result.records[0]
        stats = result.stats[seat]
        faults = [f for f in record["faults"] if f["seat"] == seat]
        verdict = "[green]ok[/]" if not faults else f"[red]{len(faults)} fault(s)[/]"
        timing = f"{len(stats.decision_ms)} decisions, mean {stats.mean_ms:.1f} ms, p99 {stats.p99_ms:.1f} ms"
        console.print(f"game {game + 1} (seat {seat}): {verdict}; {timing}")
        for fault in faults:
            problems += 1
            console.print(
                f"  hand {fault['hand']}, {fault['decision']}: the bot {_PLAIN[fault['kind']]}"
                f" ({fault['kind']}): {fault['detail']}"
            )
            if fault.get("stderr_tail"):
                console.print(f"  its stderr ended with: {fault['stderr_tail']}")
    if problems:
        console.print(f"[red]{problems} fault(s): fix them before submitting.[/]")
        raise click.exceptions.Exit(1)
    console.print("[green]no faults: the bot speaks the protocol and plays legally.[/]")


@bot_group.command("submit")
@click.argument("path", type=click.Path(exists=False))
@click.option("--build-timeout", type=click.IntRange(min=1), default=600, show_default=True,
              help="Seconds the build step may take.")  # fmt: skip
@db_options
def submit_command(path: str, build_timeout: int, db: str | None, data: Path | None) -> None:
    """Validate, build and smoke-test the bot at PATH, then store it as a new version."""
    engine = open_engine(db, data)
    try:
        version, created = submit_bot(
            engine, path, data or data_dir(), build_timeout_s=build_timeout
        )
    except SubmitError as exc:
        raise click.ClickException(str(exc)) from None
    if created:
        click.echo(f"stored {version.label} (version {version.seq}, {version.checksum[:12]})")
    else:
        click.echo(f"unchanged: {version.label} is already stored ({version.checksum[:12]})")


@bot_group.command("list")
@db_options
def list_command(db: str | None, data: Path | None) -> None:
    """Every submitted bot with its latest version."""
    engine = open_engine(db, data)
    table = Table(title="Bots")
    for column in ("bot", "latest", "versions", "language", "submitted"):
        table.add_column(column)
    for bot in service.list_bots(engine):
        versions = service.bot_versions(engine, bot.name)
        latest = versions[-1]
        table.add_row(
            bot.name, latest.label, str(len(versions)), latest.language,
            latest.submitted_at.strftime("%Y-%m-%d %H:%M"),
        )  # fmt: skip
    Console().print(table)


@bot_group.command("show")
@click.argument("name")
@db_options
def show_command(name: str, db: str | None, data: Path | None) -> None:
    """A bot's versions and manifest."""
    engine = open_engine(db, data)
    versions = service.bot_versions(engine, name)
    if not versions:
        raise click.ClickException(f"no bot named {name!r}")
    console = Console()
    for version in versions:
        console.print(
            f"[bold]{version.label}[/] version {version.seq}, {version.language}, "
            f"sha256 {version.checksum[:16]}, submitted {version.submitted_at:%Y-%m-%d %H:%M}"
        )
        console.print(f"  files: {version.path}")
    console.print(f"manifest of the latest version: {versions[-1].manifest}")
