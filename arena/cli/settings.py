"""``arena settings ...``: the organiser's arena-wide settings (how people join, quotas).

The settings, their meaning and what values fit are declared once, in
:data:`arena.storage.settings.SETTINGS`; this is their command line.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_markup
from arena.cli.users import acting_user, user_option
from arena.storage.database import StorageError
from arena.storage.settings import SETTINGS, all_settings, set_setting
from arena.storage.users import require_role


@click.group("settings")
def settings_group() -> None:
    """Show or change the arena-wide settings (changing them: organisers only)."""


@settings_group.command("show")
@db_options
def show_command(db: str | None, data: Path | None) -> None:
    """Every setting: its value, its default and what it means."""
    engine = open_engine(db, data)
    try:
        values = all_settings(engine)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    table = Table(title="Arena settings")
    for column in ("setting", "value", "default", "meaning"):
        table.add_column(column)
    for key, value in values.items():
        setting = SETTINGS[key]
        table.add_row(key, safe_markup(value), setting.default, setting.help)
    Console().print(table)


@settings_group.command("set")
@click.argument("key", metavar="KEY", type=click.Choice(list(SETTINGS)))
@click.argument("value", metavar="VALUE")
@user_option
@db_options
def set_command(key: str, value: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Set KEY to VALUE (for example: arena settings set join invite)."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    try:
        require_role(by, "organiser", "changing the arena's settings")
        stored = set_setting(engine, key, value, by.id)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{key} = {stored}")
