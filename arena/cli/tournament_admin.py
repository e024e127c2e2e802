"""``arena tournament list|remove``, and what ``tournament status`` shows of a run.

Every status shown here follows one rule (:mod:`arena.storage.runner_liveness`): a
tournament is *running* only while a runner holds its runner lock. A runner killed with
``kill -9`` leaves ``running`` stored; it is shown as stopped, with the command that
resumes it.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_markup, safe_text
from arena.cli.users import acting_user, user_option
from arena.storage.database import StorageError
from arena.storage.models import Tournament
from arena.storage.runner_liveness import NO_RUNNER, runner_alive, shown_status
from arena.tournament import setup


def run_status(engine: Engine, tournament: Tournament) -> str:
    """*tournament*'s status as it is now: its stored one, corrected by whether a runner
    holds it.

    :raises StorageError: if the runner lock cannot be probed.
    """
    return shown_status(tournament.status, runner_alive(engine, storage.row_id(tournament)))


def resume_hint(name: str, status: str) -> str | None:
    """The line telling how to go on with a run whose runner is gone, if it is one."""
    if status != NO_RUNNER:
        return None
    return (
        f"its runner is not running (killed or crashed); finished games are kept: "
        f"arena tournament run {_quoted(name)} resumes it"
    )


def latest_name(engine: Engine) -> str:
    """The name of the newest tournament (what ``tournament status`` shows without NAME).

    :raises click.ClickException: if there is none.
    """
    try:
        tournaments = storage.list_tournaments(engine)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    if not tournaments:
        raise click.ClickException(
            "no tournaments yet: create one with arena tournament create NAME --bots A,B,C"
        )
    return tournaments[0].name


def _quoted(name: str) -> str:
    """*name* as a shell word (safe text, in single quotes when it needs them)."""
    shown = safe_text(name)
    return shown if shown.replace("_", "").replace("-", "").isalnum() else f"'{shown}'"


@click.command("list")
@db_options
def list_command(db: str | None, data: Path | None) -> None:
    """Every tournament, newest first: format, status (running only while its runner
    lives), games stored of the schedule, and when it was created."""
    engine = open_engine(db, data)
    try:
        tournaments = storage.list_tournaments(engine)
        rows = []
        for tournament in tournaments:
            tournament_id = storage.row_id(tournament)
            stored = storage.progress(engine, tournament_id).stored
            rows.append((tournament, run_status(engine, tournament), stored))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    if not rows:
        click.echo("no tournaments yet: create one with arena tournament create NAME --bots A,B,C")
        return
    table = Table(title="Tournaments", title_justify="left")
    for column in ("name", "format", "status", "games", "ruleset", "created"):
        table.add_column(column, no_wrap=column in ("status", "games", "created"))
    for tournament, status, stored in rows:
        table.add_row(
            safe_markup(tournament.name),
            safe_markup(tournament.format),
            safe_markup(status),
            f"{stored}/{tournament.games_total}",
            safe_markup(tournament.ruleset),
            f"{tournament.created_at:%Y-%m-%d %H:%M}",
        )
    Console(soft_wrap=False).print(table)


@click.command("remove")
@click.argument("name")
@click.argument("bot")
@user_option
@db_options
def remove_command(
    name: str, bot: str, user: str | None, db: str | None, data: Path | None
) -> None:
    """Remove BOT from ladder NAME (organisers only), even while it runs: the ladder
    schedules it no more (a match already chosen is still played); its games and ratings
    stay, and the standings show it as withdrawn. ``arena tournament add`` enters it again."""
    engine = open_engine(db, data)
    try:
        by = acting_user(engine, user)
        setup.check_may_run(by)
        tournament = storage.get_tournament(engine, name)
        tournament_id = storage.row_id(tournament)
        if tournament.format != storage.LADDER_FORMAT:
            raise click.ClickException(
                f"{safe_text(tournament.name)!r} is a {safe_text(tournament.format)}: only a "
                "ladder's entrants can be removed (a round robin's schedule is fixed)"
            )
        version_id, label = _entrant(engine, tournament_id, bot)
        storage.withdraw_entry(engine, tournament_id, version_id, by)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"removed {safe_text(label)} from ladder {safe_text(tournament.name)!r}: it is "
        "scheduled no more; its games and ratings stay"
    )


def _entrant(engine: Engine, tournament_id: int, bot: str) -> tuple[int, str]:
    """The entered version of *bot* that the ladder still plays (its id and label), or,
    if none is left, its last one (which :func:`arena.storage.withdraw_entry` refuses,
    saying why).

    :raises StorageError: for an unknown bot, or one never entered in this ladder.
    """
    versions = storage.bot_versions(engine, bot)
    if not versions:
        raise StorageError(f"no bot named {bot!r}")
    bot_id = versions[0].bot_id
    entered = [e for e in storage.ladder_entrants(engine, tournament_id) if e.bot_id == bot_id]
    chosen = [e for e in entered if e.active] or entered[-1:]
    if not chosen:
        raise StorageError(f"bot {bot!r} is not entered in this ladder")
    return chosen[-1].bot_version_id, chosen[-1].label
