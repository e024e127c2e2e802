"""The one ``--build-network`` option of every command that builds a bot, and how a failed
build is shown.

``arena match``, ``arena bot check`` and ``arena bot submit`` all run bots' build steps;
they take the same flag, resolve it the same way (the flag, else ``$ARENA_BUILD_NETWORK``,
else off) and show a failed build the same way: its last meaningful lines, then one line
saying what failed (and, when it needed a registry it could not reach, what to do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import click

from arena.cli.terminal import safe_text
from arena.sandbox.build.settings import NETWORK_ENV, network_allowed

F = TypeVar("F", bound=Callable[..., object])


def build_network_option(command: F) -> F:
    """``--build-network/--no-build-network`` (default ``None``: the environment)."""
    return click.option(
        "--build-network/--no-build-network",
        default=None,
        help="Let build steps reach the network (package registries), never the host's "
        f"loopback; default: ${NETWORK_ENV}, else off.",
    )(command)


def resolve_build_network(flag: bool | None) -> bool:
    """The flag if given, else ``$ARENA_BUILD_NETWORK`` (off when unset).

    :raises click.UsageError: for a value of the variable that is neither on nor off.
    """
    if flag is not None:
        return flag
    try:
        return network_allowed()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def echo_build_tail(tail: Sequence[str]) -> None:
    """A failed build's last meaningful lines on stderr, indented under a heading, so that
    the one-line error below them has its context."""
    if not tail:
        return
    click.echo("the build's last lines:", err=True)
    for line in tail:
        click.echo(f"  {safe_text(line)}", err=True)
