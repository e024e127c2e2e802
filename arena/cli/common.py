"""Pieces shared by the ``arena`` subcommands."""

from __future__ import annotations

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


def resolve_ruleset(name: str) -> RuleSet:
    """The preset *name*, or a usage error naming the choices."""
    try:
        return get_ruleset(name)
    except RuleSetError as exc:
        raise click.BadParameter(str(exc), param_hint="--ruleset") from None


def resolve_time_control(text: str) -> TimeControl:
    """Parse ``--time-control``, or a usage error."""
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
