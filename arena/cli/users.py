"""``arena user ...`` and the ``--user`` option of the commands that change things.

The host's CLI acts as ``local``, the arena's built-in organiser, unless ``--user NAME``
(or ``ARENA_USER``) names another account: then ownership and roles are checked for that
user exactly as the dashboard checks them for a logged-in one. Whoever runs the CLI can
open the database directly, so ``--user`` says on whose behalf the host acts; it is not a
login (see docs/accounts.md).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena.accounts import admin, joining, policy
from arena.cli.common import ROW_ID
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_markup
from arena.storage.bots import name_collisions
from arena.storage.database import StorageError
from arena.storage.models import LOCAL_ORGANISER, ROLES, Role, utcnow
from arena.storage.users import Actor, UserInfo, actor

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
    """Manage accounts and invitations (organisers only): add, list, disable, enable,
    reset, invite, invites, revoke-invite."""


def _show_password(name: str, password: str, what: str) -> None:
    click.echo(
        f"{what} {name!r}. One-time password (shown only now, stored only as a hash; "
        "it must be replaced at the first dashboard login):"
    )
    click.echo(password)


def ask_password_option(function: F) -> F:
    """Add ``--ask-password``: type the password (twice, hidden) instead of a random one."""
    return click.option(
        "--ask-password",
        is_flag=True,
        help="Type the one-time password (twice, not shown) instead of getting a random one; "
        f"at least {policy.MIN_LENGTH} characters, not the user name.",
    )(function)


def _typed_password(ask: bool) -> str | None:
    """The password the organiser types, if ``--ask-password`` asked for one."""
    if not ask:
        return None
    typed = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    return str(typed)


@user_group.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), required=True,
              help="organiser: everything; participant: submits and manages own bots.")  # fmt: skip
@click.option("--email", default=None,
              help="Address an identity provider vouches for (dashboard single sign-on).")  # fmt: skip
@ask_password_option
@user_option
@db_options
def add_command(
    name: str,
    role: Role,
    email: str | None,
    ask_password: bool,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Add account NAME and print its one-time password."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    typed = _typed_password(ask_password)
    try:
        password = admin.add_user(engine, by, name, role, email, password=typed)
    except (StorageError, policy.PasswordRefused) as exc:
        raise click.ClickException(str(exc)) from None
    if typed is None:
        _show_password(name, password, f"added {role}")
    else:
        click.echo(f"added {role} {name!r}; the password must be replaced at the first login")


@user_group.command("reset")
@click.argument("name")
@ask_password_option
@user_option
@db_options
def reset_command(
    name: str, ask_password: bool, user: str | None, db: str | None, data: Path | None
) -> None:
    """Give NAME a new one-time password (its open sessions end)."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    typed = _typed_password(ask_password)
    try:
        password = admin.reset_password(engine, by, name, password=typed)
    except (StorageError, policy.PasswordRefused) as exc:
        raise click.ClickException(str(exc)) from None
    if typed is None:
        _show_password(name, password, "new password for")
    else:
        click.echo(f"new password for {name!r}; it must be replaced at the first login")


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


def _password_state(account: UserInfo) -> str:
    """``set``, ``one-time`` (an organiser's, to be replaced at the first login) or ``none``."""
    if not account.has_password:
        return "none"
    return "one-time" if account.must_change_password else "set"


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
            _password_state(account),
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


# -------------------------------------------------------------------------- invitations


def _duration(ctx: click.Context, param: click.Parameter, value: str) -> timedelta | None:
    try:
        return joining.parse_duration(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _when(moment: datetime | None) -> str:
    return "never" if moment is None else f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


@user_group.command("invite")
@click.option("--uses", type=click.IntRange(1, 10_000), default=1, show_default=True,
              help="Accounts the code may make.")  # fmt: skip
@click.option("--expires", "expires_in", default="7d", show_default=True, callback=_duration,
              help="How long the code works: 7d, 12h, 30m, or never.")  # fmt: skip
@click.option("--role", type=click.Choice(ROLES), default="participant", show_default=True,
              help="The role of the accounts the code makes.")  # fmt: skip
@user_option
@db_options
def invite_command(
    uses: int,
    expires_in: timedelta | None,
    role: Role,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Print a new invitation code for the dashboard's sign-up page (shown only now)."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    try:
        invite = joining.create_invite(engine, by, role, uses, expires_in)
        mode = joining.join_mode(engine)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    plural = "" if uses == 1 else "s"
    click.echo(
        f"invitation {invite.id}: {uses} {role} account{plural}, expires "
        f"{_when(invite.expires_at)}. Code (shown only now, stored only as a hash):"
    )
    click.echo(invite.code)
    if mode != "invite":
        click.echo(
            f"note: joining is {mode!r}; sign-up takes codes once `arena settings set join invite`",
            err=True,
        )


@user_group.command("invites")
@user_option
@db_options
def invites_command(user: str | None, db: str | None, data: Path | None) -> None:
    """Every invitation: id, role, uses, expiry, state (never the code)."""
    engine = open_engine(db, data)
    try:
        found = joining.list_invites(engine, acting_user(engine, user))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    now = utcnow()
    table = Table(title="Invitations")
    for column in ("id", "role", "uses", "expires", "state", "created", "by"):
        table.add_column(column)
    for invite in found:
        table.add_row(
            str(invite.id),
            invite.role,
            f"{invite.uses}/{invite.max_uses}",
            _when(invite.expires_at),
            invite.state(now),
            _when(invite.created_at),
            safe_markup(invite.created_by),
        )
    Console().print(table)


@user_group.command("revoke-invite")
@click.argument("invite_id", metavar="ID", type=ROW_ID)
@user_option
@db_options
def revoke_invite_command(
    invite_id: int, user: str | None, db: str | None, data: Path | None
) -> None:
    """Revoke invitation ID: its code makes no more accounts (those made stay)."""
    engine = open_engine(db, data)
    try:
        joining.revoke_invite(engine, acting_user(engine, user), invite_id)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"revoked invitation {invite_id}")
