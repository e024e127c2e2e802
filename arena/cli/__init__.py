"""The ``arena`` command line.

Every usage error (a bad flag, an unknown ruleset or policy) is reported as one line on
stderr with exit code 2, so scripts and people both get a clear answer.
"""

from __future__ import annotations

import click

from arena import __version__
from arena.cli.bot import bot_group
from arena.cli.dashboard import dashboard_command
from arena.cli.doctor import doctor_command
from arena.cli.match import match_command
from arena.cli.simulate import simulate_command
from arena.cli.tournament import (
    export_command,
    ratings_group,
    replay_command,
    standings_command,
    tournament_group,
)
from arena.cli.users import user_group

EXIT_USAGE = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def cli() -> None:
    """952 Arena: play, referee and rate bots for the 9-5-2 card game."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning usage errors into one line and exit code 2."""
    try:
        code = cli.main(args=argv, prog_name="arena", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        # A group named without a command (`arena`, `arena user`): its help, not an error.
        click.echo(exc.format_message(), err=True)
        return EXIT_USAGE
    except click.UsageError as exc:
        hint = f" ({exc.ctx.command_path} --help)" if exc.ctx is not None else ""
        # Click words some errors over several lines (a choice's values, one per line).
        message = " ".join(exc.format_message().split())
        click.echo(f"arena: error: {message}{hint}", err=True)
        return EXIT_USAGE
    except click.ClickException as exc:
        click.echo(f"arena: error: {exc.format_message()}", err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("arena: aborted", err=True)
        return 130
    return code if isinstance(code, int) else 0


for command in (
    simulate_command,
    match_command,
    bot_group,
    user_group,
    tournament_group,
    standings_command,
    replay_command,
    export_command,
    ratings_group,
    dashboard_command,
    doctor_command,
):
    cli.add_command(command)
