"""``arena standings`` and ``arena ratings recompute``: a tournament's standings table (or
its JSON), which ``arena tournament run`` prints too when it ends."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_markup
from arena.storage.database import StorageError
from arena.storage.standings import (
    RATING_LAG_NOTE,
    STANDINGS_LEGEND,
    StandingRow,
    standings_json,
)


def _console() -> Console:
    console = Console()
    if not console.is_terminal:
        console.width = 200  # logs and pipes get whole rows
    return console


def print_standings(engine: Engine, name: str | None, as_json: bool = False) -> None:
    """The standings table of tournament *name* (default: the latest), or every column of
    it as one JSON object (*as_json*)."""
    try:
        tournament = storage.get_tournament(engine, name) if name else None
        # By default the newest public tournament: a test match's is private to its requester.
        public = (t for t in storage.list_tournaments(engine) if t.private_to is None)
        shown_one = tournament or next(public, None)
        shown_id = storage.row_id(shown_one) if shown_one is not None else None
        rows = storage.standings(engine, shown_id) if shown_id is not None else []
        progress = storage.progress(engine, shown_id) if shown_id is not None else None
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        shown = tournament.name if tournament is not None else None
        faults = tournament.arena_faults if tournament is not None else None
        # json.dumps escapes every control and non-ASCII character (ensure_ascii).
        click.echo(json.dumps(standings_json(shown, rows, faults, progress), indent=1))
        return
    table = Table(title=f"Standings{f': {safe_markup(name)}' if name else ''}")
    # "rating" is mu - 3 sigma everywhere (docs/dashboard.md); the header says so.
    headers = ("rank", "bot", "owner", "rating (mu-3sigma)", "mu", "sigma", "P(>next)",
               "rank 95%", "games", "wins", "score/game", "made 9", "made 5", "made 2",
               "faults")  # fmt: skip
    for header in headers:
        left = header in ("bot", "owner")
        table.add_column(header, justify="left" if left else "right", no_wrap=True)

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    for row in rows:
        table.add_row(
            str(row.rank), safe_markup(_shown_bot(row)), safe_markup(row.owner),
            f"{row.conservative:.2f}",
            f"{row.mu:.2f}", f"{row.sigma:.2f}",
            rate(row.p_above_next), rank_span(row), str(row.games), str(row.wins),
            f"{row.mean_score:+.2f}", rate(row.made_9), rate(row.made_5), rate(row.made_2),
            str(row.faults),
        )  # fmt: skip
    console = _console()
    console.print(table)
    if rows:
        console.print(STANDINGS_LEGEND, highlight=False)
    if progress is not None and progress.rated < progress.stored:
        console.print(
            f"ratings cover {progress.rated} of {progress.stored} stored games: {RATING_LAG_NOTE}",
            highlight=False,
        )
    if tournament is not None and tournament.arena_faults:
        console.print(
            f"arena faults: {tournament.arena_faults} game(s) failed by the arena itself, "
            "replayed and never rated"
        )


def _shown_bot(row: StandingRow) -> str:
    """The row's label, and why it left a ladder if it did (its rating stays)."""
    return row.bot if row.left is None else f"{row.bot} ({row.left})"


def rank_span(row: StandingRow) -> str:
    """The 95% rank interval as text: ``2`` when certain, else ``1-3``."""
    if row.rank_low == row.rank_high:
        return str(row.rank_low)
    return f"{row.rank_low}-{row.rank_high}"


@click.command("standings")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True,
              help="Print every column (with the rank confidence) as one JSON object.")  # fmt: skip
@db_options
def standings_command(name: str | None, as_json: bool, db: str | None, data: Path | None) -> None:
    """Standings of tournament NAME (default: the most recent one that is not a test
    match), with how sure each rank is."""
    print_standings(open_engine(db, data), name, as_json)


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
