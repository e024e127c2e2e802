"""``arena user ...`` and the ``--user`` option of the commands that change things.

The host's CLI acts as ``local``, the arena's built-in organiser, unless ``--user NAME``
(or ``ARENA_USER``) names another account: then ownership and roles are checked for that
user exactly as the dashboard checks them for a logged-in one. Whoever runs the CLI can
open the database directly, so ``--user`` says on whose behalf the host acts; it is not a
login (see docs/accounts.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena.accounts import admin
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_markup
from arena.storage.bots import name_collisions
from arena.storage.database import StorageError
from arena.storage.models import LOCAL_ORGANISER, ROLES, Role
from arena.storage.users import Actor, actor

F = TypeVar("F", bound=Callable[..., Any])


def user_option(function: F) -> F:
    """Add ``--user NAME`` (or ``ARENA_USER``): the account the command acts for."""
    return click.option(
        "--user",
        "user",
        envvar="ARENA_USER",
        default=None,
        metavar="NAME",
        help=f"Act as this account [env ARENA_USER; default: {LOCAL_ORGANISER}, the host's "
        "organiser].",
    )(function)


def acting_user(engine: Engine, user: str | None) -> Actor:
    """The account named by ``--user`` (``local`` when not given), or a one-line error."""
    try:
        return actor(engine, user or LOCAL_ORGANISER)
    except StorageError as exc:
        raise click.BadParameter(str(exc), param_hint="--user") from None


@click.group("user")
def user_group() -> None:
    """Manage accounts (organisers only): add, list, disable, enable, reset."""


def _show_password(name: str, password: str, what: str) -> None:
    click.echo(f"{what} {name!r}. One-time password (shown only now, stored only as a hash):")
    click.echo(password)


@user_group.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), required=True,
              help="organiser: everything; participant: submits and manages own bots.")  # fmt: skip
@click.option("--email", default=None,
              help="Address an identity provider vouches for (dashboard single sign-on).")  # fmt: skip
@user_option
@db_options
def add_command(
    name: str, role: Role, email: str | None, user: str | None, db: str | None, data: Path | None
) -> None:
    """Add account NAME and print its one-time password."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    try:
        password = admin.add_user(engine, by, name, role, email)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    _show_password(name, password, f"added {role}")


@user_group.command("reset")
@click.argument("name")
@user_option
@db_options
def reset_command(name: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Give NAME a new one-time password (its open sessions end)."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    try:
        password = admin.reset_password(engine, by, name)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    _show_password(name, password, "new password for")


@user_group.command("disable")
@click.argument("name")
@user_option
@db_options
def disable_command(name: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Disable NAME: logins and --user refused, sessions ended; bots and games kept."""
    engine = open_engine(db, data)
    try:
        admin.disable_user(engine, acting_user(engine, user), name)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"disabled {name!r}")


@user_group.command("enable")
@click.argument("name")
@user_option
@db_options
def enable_command(name: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Enable NAME again."""
    engine = open_engine(db, data)
    try:
        admin.enable_user(engine, acting_user(engine, user), name)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"enabled {name!r}")


@user_group.command("list")
@user_option
@db_options
def list_command(user: str | None, db: str | None, data: Path | None) -> None:
    """Every account: role, state, whether it has a password, bots owned."""
    engine = open_engine(db, data)
    try:
        accounts = admin.users(engine, acting_user(engine, user))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    table = Table(title="Users")
    for column in ("user", "role", "state", "password", "email", "bots", "created"):
        table.add_column(column)
    for account in accounts:
        table.add_row(
            safe_markup(account.name),
            safe_markup(account.role),
            "disabled" if account.disabled else "enabled",
            "set" if account.has_password else "none",
            safe_markup(account.email or ""),
            str(account.bots),
            f"{account.created_at:%Y-%m-%d %H:%M}",
        )
    console = Console()
    console.print(table)
    for collision in name_collisions(engine):
        if collision.kind == "user":
            console.print(
                f"[yellow]look-alike names kept from before:[/] {safe_markup(str(collision))}"
            )
