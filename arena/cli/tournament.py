"""``arena tournament create|run|status``, ``arena standings``, ``arena replay``,
``arena export`` and ``arena ratings recompute``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli.common import (
    ROW_ID,
    prepare_out_dir,
    progress_bar,
    resolve_ruleset,
    resolve_time_control,
)
from arena.cli.storage_options import db_options, open_engine
from arena.game.rules import PRESETS
from arena.game.textreplay import replay_text
from arena.storage.database import StorageError
from arena.tournament import setup
from arena.tournament.deals import SEED_MAX
from arena.tournament.executor import ExecutorError, LocalProcessExecutor
from arena.tournament.formats import FORMATS
from arena.tournament.runner import RunProgress, run_tournament


def _console() -> Console:
    console = Console()
    if not console.is_terminal:
        console.width = 140  # logs and pipes get whole rows
    return console


@click.group("tournament")
def tournament_group() -> None:
    """Create, run and follow tournaments."""


@tournament_group.command("create")
@click.argument("name")
@click.option(
    "--ruleset", default="classic", show_default=True, help=f"One of: {', '.join(PRESETS)}."
)
@click.option("--bots", required=True, help="Comma-separated bot names (their latest versions).")
@click.option("--boards", type=click.IntRange(min=1), default=4, show_default=True,
              help="Duplicate boards per table; each is played under all 6 seatings.")  # fmt: skip
@click.option("--seed", type=click.IntRange(min=0, max=SEED_MAX), default=None,
              help="Reproducible, predictable deals from this seed (research runs only); "
              "default: a fresh secret no bot can search.")  # fmt: skip
@click.option("--format", "format_name", type=click.Choice(sorted(FORMATS)), default="round_robin",
              show_default=True)  # fmt: skip
@click.option("--rating-mode", type=click.Choice(["board", "game"]), default="board", show_default=True,
              help="Rate once per board from its 6 games' totals, or every game.")  # fmt: skip
@click.option("--time-control", default="decision=1000,bank=10000,grace=50,startup=10000",
              show_default=True)  # fmt: skip
@db_options
def create_command(
    name: str,
    ruleset: str,
    bots: str,
    boards: int,
    seed: int | None,
    format_name: str,
    rating_mode: str,
    time_control: str,
    db: str | None,
    data: Path | None,
) -> None:
    """Create tournament NAME between the latest versions of --bots."""
    resolve_ruleset(ruleset)
    resolve_time_control(time_control)
    engine = open_engine(db, data)
    try:
        _, description = setup.create_tournament(
            engine,
            name=name,
            ruleset=ruleset,
            bots=[b.strip() for b in bots.split(",") if b.strip()],
            boards=boards,
            seed=seed,
            format_name=format_name,
            rating_mode=rating_mode,
            time_control=time_control,
        )
    except setup.TournamentSetupError as exc:
        raise click.BadParameter(str(exc), param_hint=exc.param) from None
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(description)


@tournament_group.command("run")
@click.argument("name")
@click.option("--parallel", type=click.IntRange(min=1), default=None,
              help="Games played at once [default: number of cores].")  # fmt: skip
@db_options
def run_command(name: str, parallel: int | None, db: str | None, data: Path | None) -> None:
    """Play (or resume) tournament NAME, then print its standings."""
    engine = open_engine(db, data)
    try:
        storage.get_tournament(engine, name)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    progress = progress_bar("tournament")
    with progress:
        task = progress.add_task(name, total=None, rate="")

        def show(state: RunProgress) -> None:
            rate = state.played_now / state.seconds if state.seconds else 0.0
            progress.update(
                task, total=state.total, completed=state.done, rate=f"{rate:.2f} games/s"
            )

        try:
            asyncio.run(run_tournament(engine, name, LocalProcessExecutor(parallel), show))
        except StorageError as exc:
            raise click.ClickException(str(exc)) from None
        except ExecutorError as exc:
            raise click.ClickException(
                f"{exc} (finished games are kept; run again to resume)"
            ) from None
    print_standings(engine, name)


@tournament_group.command("status")
@click.argument("name")
@db_options
def status_command(name: str, db: str | None, data: Path | None) -> None:
    """Show how far tournament NAME has got."""
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    done = len(storage.stored_indexes(engine, storage.row_id(tournament)))
    entrants = ", ".join(v.label for v in storage.entries(engine, storage.row_id(tournament)))
    deals = (
        "secret deals"
        if tournament.seed is None
        else f"seed {tournament.seed} (deals are predictable)"
    )
    click.echo(
        f"{tournament.name}: {tournament.status}, {done}/{tournament.games_total} games, "
        f"{tournament.ruleset}, {tournament.boards} board(s), {deals}, "
        f"rating per {tournament.rating_mode}, {tournament.arena_faults} arena fault(s) "
        f"(replayed, not rated); bots: {entrants}"
    )
    ids = storage.tournament_game_ids(engine, storage.row_id(tournament))
    if ids:
        click.echo(f"game ids for `arena replay`: {min(ids)}..{max(ids)} ({len(ids)} stored)")


def print_standings(engine: Engine, name: str | None) -> None:
    """The standings table of tournament *name* (default: the latest)."""
    try:
        tournament = storage.get_tournament(engine, name) if name else None
        tournament_id = storage.row_id(tournament) if tournament is not None else None
        rows = storage.standings(engine, tournament_id)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    table = Table(title=f"Standings{f': {name}' if name else ''}")
    headers = ("rank", "bot", "rating", "mu", "sigma", "games", "wins", "score/game",
               "made 9", "made 5", "made 2", "faults")  # fmt: skip
    for header in headers:
        table.add_column(header, justify="left" if header == "bot" else "right", no_wrap=True)

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    for row in rows:
        table.add_row(
            str(row.rank), row.bot, f"{row.conservative:.2f}", f"{row.mu:.2f}", f"{row.sigma:.2f}",
            str(row.games), str(row.wins), f"{row.mean_score:+.2f}", rate(row.made_9),
            rate(row.made_5), rate(row.made_2), str(row.faults),
        )  # fmt: skip
    console = _console()
    console.print(table)
    if tournament is not None and tournament.arena_faults:
        console.print(
            f"arena faults: {tournament.arena_faults} game(s) failed by the arena itself, "
            "replayed and never rated"
        )


@click.command("standings")
@click.argument("name", required=False)
@db_options
def standings_command(name: str | None, db: str | None, data: Path | None) -> None:
    """Standings of tournament NAME (default: the most recent)."""
    print_standings(open_engine(db, data), name)


@click.command("replay")
@click.argument("game_id", type=ROW_ID)
@db_options
def replay_command(game_id: int, db: str | None, data: Path | None) -> None:
    """A readable replay of stored game GAME_ID (ids are shown by the dashboard and export)."""
    engine = open_engine(db, data)
    try:
        record = storage.game_record(engine, game_id)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(replay_text(record))


@click.command("export")
@click.argument("name")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@db_options
def export_command(name: str, out: Path, db: str | None, data: Path | None) -> None:
    """Write every record of tournament NAME to --out as RECORD.md files."""
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
        records = storage.tournament_records(engine, storage.row_id(tournament))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    prepare_out_dir(out)
    for index, record in records:
        path = out / f"{name}-{index:06d}.json"
        path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    click.echo(f"wrote {len(records)} record(s) to {out}")


@click.group("ratings")
def ratings_group() -> None:
    """Maintain ratings."""


@ratings_group.command("recompute")
@click.argument("name")
@db_options
def recompute_command(name: str, db: str | None, data: Path | None) -> None:
    """Recompute tournament NAME's ratings and snapshots from its stored games."""
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
        storage.recompute_ratings(engine, storage.row_id(tournament))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    print_standings(engine, name)
