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
# module imports grpc, which reads them once (arena.protocol.grpc_env says why). Command
# modules are imported after this, when their command runs (COMMANDS below); importing
# arena.protocol.grpc_env loads no protobuf.
configure_grpc(os.environ)

from arena.cli.lazy_group import LazyCommand, LazyGroup  # noqa: E402
from arena.cli.terminal import safe_logging, safe_text  # noqa: E402

COMMANDS: dict[str, LazyCommand] = {
    # name: where the command lives, and the first sentence of its help (what
    # `arena --help` shows of it; tests/test_cli_lazy_start.py checks the two agree).
    "analyse": LazyCommand(
        "arena.cli.analyse:analyse_command",
        "Duplicate analysis of BOT in tournament NAME: each board and seat's traveller "
        "(every bot that held the same cards in the same seat, with its score, tricks and "
        "contracts), BOT's biggest losses and gains against them, the first step where its "
        "games part from theirs, and its results by contract and by decision kind against "
        "the field.",
    ),
    "api": LazyCommand(
        "arena.cli.api:api_command",
        "Serve the HTTP API (/api/v1) on the arena database until Ctrl-C.",
    ),
    "bot": LazyCommand(
        "arena.cli.bot:bot_group", "Work with bots: check one before submitting it."
    ),
    "dashboard": LazyCommand(
        "arena.cli.dashboard:dashboard_command",
        "Serve the dashboard on the arena database until Ctrl-C.",
    ),
    "doctor": LazyCommand(
        "arena.cli.doctor:doctor_command",
        "Probe every sandbox layer (bubblewrap, Landlock, seccomp, uid switch, cgroups, "
        "rlimits) by actually using it, and say which protections bots get here: the "
        "layers, then each channel between bots and each place a bot can write, with the "
        "layer that closes or bounds it.",
    ),
    "export": LazyCommand(
        "arena.cli.records:export_command",
        "Write every stored game of tournament NAME to --out as JSON game records in the "
        "arena952.game/1 format (docs/record-format.md, docs/record-format.md), one file "
        "per game: NAME-000000.json, NAME-000001.json, ... by schedule index.",
    ),
    "match": LazyCommand(
        "arena.cli.match:match_command",
        "Play GAMES games between three BOTS (bot directories, builtin:random|greedy|pimc, "
        "or remote[:NAME] with --listen) through the referee, and print a table of results.",
    ),
    "queue": LazyCommand(
        "arena.cli.queue:queue_group",
        "The test-match queue: play it, list it, cancel a request.",
    ),
    "ratings": LazyCommand("arena.cli.standings:ratings_group", "Maintain ratings."),
    "remote": LazyCommand(
        "arena.cli.remote:remote_group",
        "Submit, follow and test your bots on a hosted arena through its HTTP API.",
    ),
    "replay": LazyCommand(
        "arena.cli.records:replay_command",
        "A readable replay of stored game GAME_ID: the number `arena tournament status "
        'NAME` lists under "game ids for `arena replay`" (and the dashboard\'s Replays page '
        'shows), not the "game_id" text inside a record.',
    ),
    "settings": LazyCommand(
        "arena.cli.settings:settings_group",
        "Show or change the arena-wide settings (changing them: organisers only).",
    ),
    "simulate": LazyCommand(
        "arena.cli.simulate:simulate_command",
        "Play games in-process between built-in policies and write their records.",
    ),
    "standings": LazyCommand(
        "arena.cli.standings:standings_command",
        "Standings of tournament NAME (default: the most recent one that is not a test "
        "match), with how sure each rank is.",
    ),
    "token": LazyCommand(
        "arena.cli.tokens:token_group",
        "Personal tokens for the HTTP API: create, list, revoke (your own, as --user).",
    ),
    "tournament": LazyCommand(
        "arena.cli.tournament:tournament_group", "Create, run and follow tournaments."
    ),
    "user": LazyCommand(
        "arena.cli.users:user_group",
        "Manage accounts and invitations (organisers only): add, list, disable, enable, "
        "reset, invite, invites, revoke-invite.",
    ),
}
"""Every ``arena`` command. Each is imported only when it runs (:mod:`arena.cli.lazy_group`),
so ``arena standings`` never loads the HTTP API, the referee or the sandbox. A new command:
its module under ``arena/cli/``, and an entry here."""

EXIT_USAGE = 2


@click.group(
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
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
