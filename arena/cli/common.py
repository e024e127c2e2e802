"""Pieces shared by the ``arena`` subcommands."""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from arena.game.rules import RuleSet, RuleSetError, get_ruleset
from arena.referee.timecontrol import TimeControl
from arena.tournament.deals import SEED_MAX


def resolve_ruleset(name: str) -> RuleSet:
    """The preset *name*, or a usage error naming the choices."""
    try:
        return get_ruleset(name)
    except RuleSetError as exc:
        raise click.BadParameter(str(exc), param_hint="--ruleset") from None


def resolve_time_control(text: str) -> TimeControl:
    """Parse ``--time-control``, or a usage error: every command that takes one calls this
    before anything is stored or started, so a limit the protocol cannot carry (or a key
    given twice) is refused here rather than mid-match."""
    try:
        return TimeControl.parse(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--time-control") from None


def progress_bar(verb: str) -> Progress:
    """A progress bar on stderr: done/total, a rate, elapsed time and ETA."""
    return Progress(
        TextColumn(f"[bold]{verb}[/] {{task.description}}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )


ROW_ID = click.IntRange(min=1, max=2**31 - 1)
"""A stored row's id (a game's, for ``arena replay``): the database keeps them in 32 bits,
so a larger number is a usage error here rather than an overflow deep in the driver."""


SEED = click.IntRange(min=0, max=SEED_MAX)
"""A ``--seed``: what the tournament store keeps (a signed 64-bit column, ``SEED_MAX``)
and far inside what keyed dealing takes (0 to 2**256 - 1, including the ``S + i`` of game
*i*), so a negative or huge seed is a usage error here rather than a traceback from the
dealer."""


def prepare_out_dir(out: Path, param_hint: str = "--out") -> Path:
    """Create the output directory *out* now, so an unusable path is a usage error before
    any work starts (``/dev/null/x``, a file in the way, no permission)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = tempfile.TemporaryFile(dir=out)  # noqa: SIM115  (closed at once: a write test)
        probe.close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise click.BadParameter(
            f"{out}: cannot write there: {reason}", param_hint=param_hint
        ) from None
    return out


class ListenAddress(click.ParamType[str]):
    """``HOST:PORT`` (``[v6]:PORT`` for IPv6) that this machine can listen on, checked when
    the command line is parsed: a port of 1-65535, a host that resolves, an address free to
    bind. The text is passed on unchanged."""

    name = "HOST:PORT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        host, colon, port_text = text.rpartition(":")
        if not colon or not host:
            self.fail(f"{text!r} is not HOST:PORT (for example 127.0.0.1:50051)", param, ctx)
        if not port_text.isascii() or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
            self.fail(f"{text!r}: the port must be a number from 1 to 65535", param, ctx)
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        port = int(port_text)
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            self.fail(f"{text!r}: unknown host {host!r} ({exc})", param, ctx)
        family, kind, proto, _, address = infos[0]
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
        except OSError as exc:
            self.fail(f"cannot listen on {text}: {exc.strerror or exc}", param, ctx)
        return text
