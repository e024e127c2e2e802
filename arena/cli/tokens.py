"""``arena token create|list|revoke``: personal tokens for the HTTP API (``arena api``).

A token belongs to ``--user`` (the host's ``local`` by default), who is also the one
acting; the Account page of the dashboard does the same for a logged-in user, through the
same functions of :mod:`arena.storage.tokens`. The secret is printed once, alone on
stdout, so that ``ARENA_TOKEN=$(arena token create ci --user alice)`` keeps it and nothing
else; what the command says about it goes to stderr. ``list`` never shows a secret (the
database has none to show: only its SHA-256 and the first characters).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.table import Table

from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_markup, safe_text
from arena.cli.users import acting_user, user_option
from arena.storage.database import StorageError
from arena.storage.models import utcnow
from arena.storage.tokens import (
    MAX_DAYS,
    SCOPES,
    TokenInfo,
    create_token,
    list_tokens,
    parse_scopes,
    revoke_token,
)


@click.group("token")
def token_group() -> None:
    """Personal tokens for the HTTP API: create, list, revoke (your own, as --user)."""


def _when(moment: datetime | None, none: str = "never") -> str:
    return none if moment is None else f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _cell(moment: datetime | None, none: str = "never") -> str:
    """A time for a table cell (whose caption says UTC)."""
    return none if moment is None else f"{moment.astimezone(UTC):%Y-%m-%d %H:%M}"


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat()


def _chosen_scopes(scope: tuple[str, ...], scopes: str | None) -> tuple[str, ...]:
    """The scopes of ``--scope`` (repeated) and ``--scopes a,b`` together; both when
    neither is given.

    :raises click.BadParameter: for an unknown scope in ``--scopes``.
    """
    if not scope and scopes is None:
        return SCOPES
    try:
        return parse_scopes([*scope, *(parse_scopes(scopes) if scopes is not None else ())])
    except StorageError as exc:
        raise click.BadParameter(str(exc), param_hint="--scopes") from None


@token_group.command("create")
@click.argument("name")
@click.option("--scope", "scope", type=click.Choice(SCOPES), multiple=True,
              help="A scope the token gets (repeat for both): read (look), submit (submit "
              "bots, queue test matches) [default: both].")  # fmt: skip
@click.option("--scopes", "scopes", default=None, metavar="LIST",
              help="The scopes as one list instead: read,submit.")  # fmt: skip
@click.option("--expires-in-days", "expires_in_days", type=click.IntRange(1, MAX_DAYS),
              default=None, metavar="N",
              help=f"The token stops working after N days (1-{MAX_DAYS}) [default: never].")  # fmt: skip
@click.option("-q", "--quiet", is_flag=True,
              help="Print the secret only (no note on stderr).")  # fmt: skip
@user_option
@db_options
def create_command(
    name: str,
    scope: tuple[str, ...],
    scopes: str | None,
    expires_in_days: int | None,
    quiet: bool,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Create token NAME for --user and print its secret: shown only now, stored only as
    a hash. A token never carries organiser rights."""
    chosen = _chosen_scopes(scope, scopes)
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    try:
        secret, info = create_token(
            engine, by, owner=by.name, name=name, scopes=chosen, expires_in_days=expires_in_days
        )
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(secret)
    if not quiet:
        click.echo(
            safe_text(
                f"token {info.id} {info.name!r} of {info.user} ({', '.join(info.scopes)}; "
                f"expires {_when(info.expires_at)}): the secret above is shown only now "
                "and stored only as a hash"
            ),
            err=True,
        )


def token_json(token: TokenInfo, now: datetime) -> dict[str, Any]:
    """One token in ``arena token list --json`` (never its secret, nor its hash)."""
    return {
        "id": token.id,
        "user": token.user,
        "name": token.name,
        "prefix": token.prefix,
        "scopes": list(token.scopes),
        "created_at": _iso(token.created_at),
        "expires_at": _iso(token.expires_at),
        "last_used_at": _iso(token.last_used_at),
        "revoked_at": _iso(token.revoked_at),
        "state": token.state(now),
    }


def _table(title: str) -> Table:
    """The token table, laid out to fit 80 columns (a pipe's, a log's) without cutting a
    prefix (which ``revoke`` takes) or a date: no vertical rules, one space between
    columns, times wrapped at their space, scopes one per line, names folded."""
    table = Table(
        title=title,
        caption="times in UTC",
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
        pad_edge=False,
        show_edge=False,
    )
    table.add_column("id", no_wrap=True)
    table.add_column("name", overflow="fold")
    table.add_column("prefix", no_wrap=True)
    table.add_column("scopes", min_width=6, max_width=6)
    for column in ("created", "expires", "last used"):
        table.add_column(column, min_width=10)
    table.add_column("state", min_width=8)
    return table


@token_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@user_option
@db_options
def list_command(as_json: bool, user: str | None, db: str | None, data: Path | None) -> None:
    """Every token of --user, revoked and expired ones too (never a secret)."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    try:
        tokens = list_tokens(engine, by, by.name)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    now = utcnow()
    if as_json:
        shown = {"user": by.name, "tokens": [token_json(t, now) for t in tokens]}
        click.echo(json.dumps(shown, indent=2))
        return
    table = _table(f"Tokens of {safe_markup(by.name)}")
    for token in tokens:
        table.add_row(
            str(token.id),
            safe_markup(token.name),
            token.prefix,
            " ".join(token.scopes),
            _cell(token.created_at),
            _cell(token.expires_at),
            _cell(token.last_used_at, none="-"),
            token.state(now),
        )
    console = Console()
    console.print(table)
    if not tokens:
        console.print("no token yet: arena token create NAME")


@token_group.command("revoke")
@click.argument("token")
@user_option
@db_options
def revoke_command(token: str, user: str | None, db: str | None, data: Path | None) -> None:
    """Revoke --user's token TOKEN (its id, name or prefix): it stops working at once."""
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    before = utcnow()
    try:
        info = revoke_token(engine, by, by.name, token)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    what = f"token {info.id} {info.name!r} of {info.user}"
    if info.revoked_at is not None and info.revoked_at < before:
        click.echo(safe_text(f"{what} was already revoked ({_when(info.revoked_at)})"))
    else:
        click.echo(safe_text(f"revoked {what}"))
