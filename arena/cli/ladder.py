"""``arena tournament add|open|close``: a ladder's entrants, added by an organiser or, while
it is open, by every newly stored version itself (docs/ladder.md)."""

from __future__ import annotations

from pathlib import Path

import click

from arena import storage
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_text
from arena.cli.users import acting_user, user_option
from arena.storage.database import StorageError
from arena.tournament import setup


@click.command("add")
@click.argument("name")
@click.argument("bot")
@user_option
@db_options
def add_command(name: str, bot: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Enter the latest version of BOT into ladder NAME, even while it runs (organisers
    only); an entered older version of BOT is retired from matchmaking, its games kept."""
    engine = open_engine(db, data)
    try:
        setup.check_may_run(acting_user(engine, user))
        tournament = storage.get_tournament(engine, name)
        version = storage.latest_version(engine, bot)
        if version is None:
            raise click.BadParameter(f"no bot named {bot!r} (submit it first)", param_hint="BOT")
        storage.enter_version(engine, storage.row_id(tournament), storage.row_id(version))
        retired = [
            e.label
            for e in storage.ladder_entrants(engine, storage.row_id(tournament))
            if e.retired and e.bot_id == version.bot_id
        ]
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    retiring = f" (retires {safe_text(', '.join(retired))})" if retired else ""
    click.echo(f"entered {safe_text(version.label)} into ladder {name!r}{retiring}")


@click.command("open")
@click.argument("name")
@click.option("--max-versions-per-day", type=click.IntRange(min=1), default=None,
              help="Versions a participant may submit in 24 hours [default: keep the "
              "ladder's quota].")  # fmt: skip
@click.option("--no-quota", is_flag=True, help="Remove the ladder's daily quota.")
@user_option
@db_options
def open_command(
    name: str,
    max_versions_per_day: int | None,
    no_quota: bool,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Open ladder NAME (organisers only): from now on every newly stored version enters
    it by itself, retiring its bot's previous version there."""
    if no_quota and max_versions_per_day is not None:
        raise click.BadParameter(
            "give a quota or --no-quota, not both", param_hint="--max-versions-per-day"
        )
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
        tournament_id = storage.row_id(tournament)
        quota = storage.ladder_settings(engine, tournament_id).max_versions_per_day
        if no_quota or max_versions_per_day is not None:
            quota = max_versions_per_day
        storage.set_ladder_open(
            engine,
            tournament_id,
            is_open=True,
            max_versions_per_day=quota,
            by=acting_user(engine, user),
        )
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    limit = "no daily quota" if quota is None else f"at most {quota} versions a day per participant"
    click.echo(f"ladder {safe_text(tournament.name)!r} is open: new versions enter it ({limit})")


@click.command("close")
@click.argument("name")
@user_option
@db_options
def close_command(name: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Close ladder NAME (organisers only): new versions no longer enter it by themselves
    (nor count against its quota); its entrants stay and it plays on."""
    engine = open_engine(db, data)
    try:
        tournament = storage.get_tournament(engine, name)
        tournament_id = storage.row_id(tournament)
        quota = storage.ladder_settings(engine, tournament_id).max_versions_per_day
        storage.set_ladder_open(
            engine,
            tournament_id,
            is_open=False,
            max_versions_per_day=quota,
            by=acting_user(engine, user),
        )
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"ladder {safe_text(tournament.name)!r} is closed: new versions no longer enter it")
