"""``arena queue run|list|cancel`` (the test-match queue) and ``arena bot test`` (a test
match from the command line: queued, then played by this process, or watched while
another queue runner plays it)."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from sqlalchemy.engine import Engine

from arena.cli.storage_options import data_dir, db_options, open_engine
from arena.cli.terminal import safe_markup, safe_text
from arena.cli.users import acting_user, user_option
from arena.game.rules import PRESETS
from arena.storage import test_matches as queue
from arena.storage.database import StorageError
from arena.storage.models import TestMatch
from arena.tournament.test_matches import (
    FINISHED,
    POLL_SECONDS,
    MatchProgress,
    QueueStopped,
    play_queue,
    run_queue,
)

THIRD_SEAT = (
    "With one opponent the third seat goes to builtin:random (builtin:greedy if "
    "builtin:random is the opponent)."
)


@click.group("queue")
def queue_group() -> None:
    """The test-match queue: play it, list it, cancel a request."""


def _show_progress(state: MatchProgress) -> None:
    click.echo(f"test match #{state.test_match_id}: {state.games_done}/{state.games_total} games")


def _show_finished(match: TestMatch) -> None:
    why = f": {safe_text(match.message)}" if match.message else ""
    click.echo(f"test match #{match.id}: {match.status}{why}")


@queue_group.command("run")
@click.option("--once", is_flag=True,
              help="Play what is queued, then exit (the dashboard starts it so); without "
              "it the runner waits for new requests until Ctrl-C.")  # fmt: skip
@db_options
def queue_run_command(once: bool, db: str | None, data: Path | None) -> None:
    """Play queued test matches in order, each as a private round robin on at most
    `test_games_at_once` games at once (`arena settings`). One queue runner plays at a
    time; a match a killed runner left running is resumed first."""
    engine = open_engine(db, data)
    try:
        finished = run_queue(
            engine,
            data or data_dir(),
            once=once,
            on_progress=_show_progress,
            on_finished=_show_finished,
        )
    except (StorageError, QueueStopped) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"queue empty: {finished} test match(es) finished")


@queue_group.command("list")
@click.option("--limit", type=click.IntRange(min=1, max=1000), default=50, show_default=True)
@user_option
@db_options
def queue_list_command(limit: int, user: str | None, db: str | None, data: Path | None) -> None:
    """The acting user's test matches, newest first (an organiser's: everyone's)."""
    engine = open_engine(db, data)
    viewer = acting_user(engine, user)
    try:
        rows = queue.list_test_matches(engine, viewer, limit)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    table = Table(title="Test matches")
    for column in ("id", "by", "bot", "opponents", "boards", "rules", "status", "tournament"):
        table.add_column(column)
    for row in rows:
        status = row.status if row.queue_position is None else f"queued ({row.queue_position})"
        if row.message:
            status += f": {row.message}"
        table.add_row(
            str(row.id), safe_markup(row.requested_by), safe_markup(row.bot),
            safe_markup(", ".join(row.opponents)), str(row.boards), safe_markup(row.ruleset),
            safe_markup(status), safe_markup(row.tournament or "-"),
        )  # fmt: skip
    console = Console()
    if not console.is_terminal:
        console.width = 200
    console.print(table)


@queue_group.command("cancel")
@click.argument("test_match_id", type=click.IntRange(min=1))
@user_option
@db_options
def queue_cancel_command(
    test_match_id: int, user: str | None, db: str | None, data: Path | None
) -> None:
    """Cancel queued test match TEST_MATCH_ID (its requester or an organiser)."""
    engine = open_engine(db, data)
    try:
        queue.cancel_test_match(engine, test_match_id, acting_user(engine, user))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"test match #{test_match_id} cancelled")


@click.command("test")
@click.argument("name")
@click.option("--opponents", required=True,
              help="One or two comma-separated opponents: bot names (their latest "
              "versions) or house bots builtin:random, builtin:greedy, builtin:pimc. "
              + THIRD_SEAT)  # fmt: skip
@click.option("--boards", type=click.IntRange(min=1, max=queue.MAX_TEST_BOARDS), default=1,
              show_default=True, help="Boards, each played under all 6 seatings.")  # fmt: skip
@click.option("--version", "version", default=None,
              help="The version of NAME to test (its version or label) [default: latest].")  # fmt: skip
@click.option(
    "--ruleset", default="classic", show_default=True, help=f"One of: {', '.join(PRESETS)}."
)
@user_option
@db_options
def test_command(
    name: str,
    opponents: str,
    boards: int,
    version: str | None,
    ruleset: str,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Queue an unranked test match of bot NAME (yours; organisers: any) and play the
    queue until it is played, or follow it while another queue runner plays it.

    Its games form a private tournament `test match #ID`, seen only by you and
    organisers, that moves no other standings. Participants have a quota of
    `test_boards_per_hour` boards (`arena settings`). Exit 0 once played.
    """
    if ruleset not in PRESETS:
        raise click.BadParameter(f"one of {', '.join(PRESETS)}", param_hint="--ruleset")
    engine = open_engine(db, data)
    by = acting_user(engine, user)
    asked = [o.strip() for o in opponents.split(",") if o.strip()]
    try:
        match = queue.request_test_match(
            engine, by=by, bot=name, opponents=asked, boards=boards, ruleset=ruleset,
            version=version,
        )  # fmt: skip
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    match_id = match.id
    assert match_id is not None
    click.echo(f"queued test match #{match_id} ({boards} board(s), {6 * boards} games)")
    final = _play_until_finished(engine, match_id, data or data_dir())
    tournament = queue.tournament_name(match_id)
    if final.status != "played":
        why = f": {final.message}" if final.message else ""
        raise click.ClickException(f"test match #{match_id} {final.status}{why}")
    click.echo(
        f"test match #{match_id} played: `arena standings '{tournament}'` and the "
        "dashboard's Replays show its games"
    )


def _play_until_finished(engine: Engine, match_id: int, data: Path) -> TestMatch:
    """Play the queue until match *match_id* is finished; while another runner holds the
    queue, print the match's state whenever it changes and try again."""
    shown = ""
    while True:
        try:
            play_queue(engine, data, until=match_id, on_progress=_show_progress)
        except queue.QueueBusy:
            pass
        except (StorageError, QueueStopped) as exc:
            raise click.ClickException(str(exc)) from None
        try:
            match = queue.get_test_match(engine, match_id)
        except StorageError as exc:
            raise click.ClickException(str(exc)) from None
        if match is None:
            raise click.ClickException(f"test match #{match_id} is gone")
        if match.status in FINISHED:
            return match
        state = _waiting_line(engine, match)
        if state != shown:
            click.echo(state)
            shown = state
        time.sleep(POLL_SECONDS)


def _waiting_line(engine: Engine, match: TestMatch) -> str:
    """Where the match stands while another queue runner has the queue."""
    position = queue.queue_position(engine, match.id or 0)
    if position is not None:
        return f"waiting for another queue runner: position {position} in the queue"
    return f"being played by another queue runner ({match.status})"
