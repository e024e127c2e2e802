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
    FAULT_RULE,
    RATING_LAG_NOTE,
    STANDINGS_LEGEND,
    StandingRow,
    standings_json,
    without_retired,
)


def _console() -> Console:
    console = Console()
    if not console.is_terminal:
        console.width = 200  # logs and pipes get whole rows
    return console


def print_standings(
    engine: Engine, name: str | None, as_json: bool = False, show_all: bool = False
) -> None:
    """The standings table of tournament *name* (default: the latest), or every column of
    it as one JSON object (*as_json*); retired ladder versions only with *show_all*
    (marked), else hidden and the rest ranked among themselves."""
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
    hidden = 0 if show_all else sum(row.retired for row in rows)
    if hidden:
        rows = without_retired(rows)
    if as_json:
        shown = tournament.name if tournament is not None else None
        faults = tournament.arena_faults if tournament is not None else None
        answer = standings_json(shown, rows, faults, progress, retired_hidden=hidden)
        # json.dumps escapes every control and non-ASCII character (ensure_ascii).
        click.echo(json.dumps(answer, indent=1))
        return
    table = Table(title=f"Standings{f': {safe_markup(name)}' if name else ''}")
    # "rating" is mu - 3 sigma everywhere (docs/dashboard.md); the header says so.
    # wins and score/game leave out faulted games (the autopilot's play is not the bot's).
    headers = ("rank", "bot", "owner", "rating (mu-3sigma)", "mu", "sigma", "P(>next)",
               "rank 95%", "games", "faults", "wins", "score/game", "made 9", "made 5",
               "made 2")  # fmt: skip
    for header in headers:
        left = header in ("bot", "owner")
        table.add_column(header, justify="left" if left else "right", no_wrap=True)

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    def score(value: float | None) -> str:
        return "-" if value is None else f"{value:+.2f}"

    for row in rows:
        table.add_row(
            str(row.rank), safe_markup(_shown_bot(row)), safe_markup(row.owner),
            f"{row.conservative:.2f}",
            f"{row.mu:.2f}", f"{row.sigma:.2f}",
            rate(row.p_above_next), rank_span(row), str(row.games), str(row.faults),
            str(row.clean_wins), score(row.clean_mean_score),
            rate(row.made_9), rate(row.made_5), rate(row.made_2),
        )  # fmt: skip
    console = _console()
    console.print(table)
    if rows:
        console.print(STANDINGS_LEGEND, highlight=False)
        console.print(FAULT_RULE, highlight=False)
    if hidden:
        console.print(
            f"{hidden} retired ladder version(s) hidden (replaced by a newer version): "
            "--all shows them",
            highlight=False,
        )
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
    """The row's label, and why it left a ladder if it did (its rating stays): ``(retired)``
    for a version a newer one replaced, shown only with ``--all``."""
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
@click.option("--all", "show_all", is_flag=True,
              help="Show the retired ladder versions too (marked retired).")  # fmt: skip
@db_options
def standings_command(
    name: str | None, as_json: bool, show_all: bool, db: str | None, data: Path | None
) -> None:
    """Standings of tournament NAME (default: the most recent one that is not a test
    match), with how sure each rank is. A ladder's retired versions (replaced by a newer
    version of the same bot) are hidden unless --all; faulted games count as last place."""
    print_standings(open_engine(db, data), name, as_json, show_all)


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
