"""The ``arena`` command line.

Every usage error (a bad flag, an unknown ruleset or policy) is reported as one line on
stderr with exit code 2, so scripts and people both get a clear answer. Error and log
lines may quote what bots and other users wrote: their terminal controls are shown as
escapes (:mod:`arena.cli.terminal`).
"""

from __future__ import annotations

import os

import click

from arena import __version__
from arena.protocol.grpc_env import configure_grpc

# The `arena` command is an entry point: gRPC's settings go in place before any command
# module imports grpc, which reads them once (arena.protocol.grpc_env says why).
configure_grpc(os.environ)

from arena.cli.analyse import analyse_command  # noqa: E402
from arena.cli.api import api_command  # noqa: E402
from arena.cli.bot import bot_group  # noqa: E402
from arena.cli.dashboard import dashboard_command  # noqa: E402
from arena.cli.doctor import doctor_command  # noqa: E402
from arena.cli.match import match_command  # noqa: E402
from arena.cli.queue import queue_group  # noqa: E402
from arena.cli.records import export_command, replay_command  # noqa: E402
from arena.cli.remote import remote_group  # noqa: E402
from arena.cli.settings import settings_group  # noqa: E402
from arena.cli.simulate import simulate_command  # noqa: E402
from arena.cli.standings import ratings_group, standings_command  # noqa: E402
from arena.cli.terminal import safe_logging, safe_text  # noqa: E402
from arena.cli.tokens import token_group  # noqa: E402
from arena.cli.tournament import tournament_group  # noqa: E402
from arena.cli.users import user_group  # noqa: E402

EXIT_USAGE = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def cli() -> None:
    """952 Arena: play, referee and rate bots for the 9-5-2 card game."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning usage errors into one line and exit code 2.

    Every error message is printed through :func:`~arena.cli.terminal.safe_text`, here
    and only here: a ``ClickException`` may quote a bot's stderr, a build's output or a
    name someone else chose, and the commands raise them from many places. Log lines get
    the same treatment from :func:`~arena.cli.terminal.safe_logging`.
    """
    with safe_logging():
        try:
            code = cli.main(args=argv, prog_name="arena", standalone_mode=False)
        except click.exceptions.NoArgsIsHelpError as exc:
            # A group named without a command (`arena`, `arena user`): its help, not an
            # error. The help is the arena's own text, laid out over many lines: shown as is.
            click.echo(exc.format_message(), err=True)
            return EXIT_USAGE
        except click.UsageError as exc:
            hint = f" ({exc.ctx.command_path} --help)" if exc.ctx is not None else ""
            # Click words some errors over several lines (a choice's values, one per line).
            message = " ".join(exc.format_message().split())
            _print_error(f"{message}{hint}")
            return EXIT_USAGE
        except click.ClickException as exc:
            _print_error(exc.format_message())
            return exc.exit_code
        except click.exceptions.Abort:
            click.echo("arena: aborted", err=True)
            return 130
    return code if isinstance(code, int) else 0


def _print_error(message: str) -> None:
    """``arena: error: MESSAGE`` on stderr, every control in it shown as an escape."""
    click.echo(f"arena: error: {safe_text(message)}", err=True)


for command in (
    simulate_command,
    match_command,
    bot_group,
    user_group,
    token_group,
    settings_group,
    tournament_group,
    queue_group,
    remote_group,
    standings_command,
    replay_command,
    export_command,
    analyse_command,
    ratings_group,
    dashboard_command,
    api_command,
    doctor_command,
):
    cli.add_command(command)
