"""``arena tournament stop``: ask the runner playing a tournament to stop, politely.

Its own module because it is the one tournament command that signals a process: it checks
that the lock's holder is an arena runner before it does (:func:`_is_arena_process`).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import click
from sqlalchemy.engine import Engine

from arena import storage
from arena.cli.storage_options import db_options, open_engine
from arena.cli.terminal import safe_text
from arena.cli.users import acting_user, user_option
from arena.storage.database import StorageError
from arena.storage.runner_lock import Holder, lock_holder
from arena.tournament import setup

STOP_WAIT_SECONDS = 60.0
"""How long ``stop`` waits for the runner to let its lock go."""


@click.command("stop")
@click.argument("name")
@click.option("--no-wait", is_flag=True, help="Send the stop request and return at once.")
@user_option
@db_options
def stop_command(
    name: str, no_wait: bool, user: str | None, db: str | None, data: Path | None
) -> None:
    """Stop the runner playing tournament NAME politely (organisers only).

    The runner holding NAME's lock is sent SIGTERM, as by Ctrl-C: it abandons the games in
    play (played again by the next run), sets the status to "interrupted" and lets the lock
    go. Only a runner on this machine can be reached; for one on another host it says
    which process to stop there.
    """
    engine = open_engine(db, data)
    try:
        setup.check_may_run(acting_user(engine, user))
        tournament = storage.get_tournament(engine, name)
        holder = lock_holder(engine, storage.row_id(tournament))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    shown = safe_text(name)
    if holder is None:
        click.echo(f"{shown}: no runner is playing it")
        return
    if not holder.local:
        raise click.ClickException(
            f"{name} is played by {holder}, not on this machine: stop it there "
            f"(kill -TERM {holder.pid}, or `arena tournament stop` on that host)"
        )
    if not _is_arena_process(holder.pid):
        raise click.ClickException(
            f"{holder} holds {name}'s lock but is not an arena runner: not signalled"
        )
    try:
        os.kill(holder.pid, signal.SIGTERM)
    except ProcessLookupError:
        click.echo(f"{shown}: its runner (process {holder.pid}) has just ended")
        return
    except PermissionError:
        raise click.ClickException(f"not allowed to signal {holder} (another user's)") from None
    if no_wait:
        click.echo(f"{shown}: asked {holder} to stop")
        return
    _wait_released(engine, storage.row_id(tournament), name, holder)


def _is_arena_process(pid: int) -> bool:
    """Whether process *pid* runs the arena (``arena ...`` or ``python -m arena.cli ...``),
    from its command line where the system shows it (``/proc``); elsewhere, trusted.

    The lock names its holder by what the holder wrote (a lock file's text, a PostgreSQL
    connection's application name), which anyone able to write to the database can forge:
    ``stop`` must not become a way to signal any process of this user's."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return not Path("/proc/self").exists()  # no /proc here: nothing to check against
    except OSError:
        return False
    words = [word.decode(errors="replace") for word in argv[:4]]
    return any(w.rsplit("/", 1)[-1] == "arena" or w.startswith("arena.cli") for w in words)


def _wait_released(engine: Engine, tournament_id: int, name: str, holder: Holder) -> None:
    """Wait until *holder* lets tournament *name*'s lock go; say so."""
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            if lock_holder(engine, tournament_id) != holder:
                click.echo(f"{safe_text(name)}: stopped ({holder})")
                return
        except StorageError as exc:
            raise click.ClickException(str(exc)) from None
        time.sleep(0.2)
    raise click.ClickException(
        f"{holder} was asked to stop {STOP_WAIT_SECONDS:.0f} s ago and still holds {name}"
    )
