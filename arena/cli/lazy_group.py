"""A Click group that imports a command's module only when that command runs.

Why: ``arena standings --json`` answers from tallies in tens of milliseconds, but importing
every command's module first (the HTTP API's FastAPI, the referee's gRPC, the sandbox,
the analysis) took one to several seconds (issue 35). Click documents the pattern
("Lazily Loading Subcommands"): the group knows each command by name and
``module:attribute``, and imports it in :meth:`LazyGroup.get_command`.

The group's own help lists every command with its short help without importing any of
them: each entry carries the first sentence of its command's help, which is all Click
shows there (``tests/test_cli_lazy_start.py`` checks that they agree).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from gettext import gettext
from typing import Any

import click
from click.exceptions import NoSuchCommand


@dataclass(frozen=True, slots=True)
class LazyCommand:
    """Where a command lives and what ``arena --help`` says of it."""

    target: str
    """``module:attribute`` of the :class:`click.Command` (or group)."""
    summary: str
    """The first sentence of the command's help: Click's short help is cut from it."""


class LazyGroup(click.Group):
    """A :class:`click.Group` whose commands named in *lazy_commands* are imported on use.

    Commands added the usual way (:meth:`add_command`) work as in any group; a lazy one,
    once imported, is added so and not imported again.
    """

    def __init__(
        self, *args: Any, lazy_commands: Mapping[str, LazyCommand] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands: dict[str, LazyCommand] = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands and cmd_name not in self.commands:
            self.add_command(self._import(cmd_name), cmd_name)
        return super().get_command(ctx, cmd_name)

    def _import(self, name: str) -> click.Command:
        module_name, _, attribute = self.lazy_commands[name].target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{module_name}.{attribute} is not a click command")
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Click's, with the lazy commands among the "did you mean" suggestions of an
        unknown command (Click offers only the commands already imported)."""
        try:
            return super().resolve_command(ctx, args)
        except NoSuchCommand as exc:
            raise NoSuchCommand(
                exc.command_name, possibilities=self.list_commands(ctx), ctx=ctx
            ) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Click's list of commands and their short help, laid out as Click does, with a
        command not yet imported described by its :attr:`LazyCommand.summary`."""
        shown: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is None:
                command = click.Command(name, help=self.lazy_commands[name].summary)
            if not command.hidden:
                shown.append((name, command))
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in shown)
        rows = [(name, command.get_short_help_str(limit)) for name, command in shown]
        with formatter.section(gettext("Commands")):
            formatter.write_dl(rows)
