"""What the dashboard changes: bot submissions, new tournaments, starting a runner.

Each action goes through the same code as the CLI: :func:`arena.submission.submit_bot`
for bots, :func:`arena.storage.create_tournament` with the CLI's checks for
tournaments, and ``python -m arena.cli tournament run`` in a detached process for running
one, so a tournament started here is played exactly as one started from a shell and keeps
going if the dashboard stops.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Engine

from arena.storage.database import StorageError
from arena.submission import SubmitError, submit_bot
from arena.tournament import setup
from dashboard.archive import ArchiveError, extract_bot_archive

LOGGER = logging.getLogger(__name__)

DEFAULT_TIME_CONTROL: Final = setup.DEFAULT_TIME_CONTROL


class ActionError(ValueError):
    """The action was refused; the message is one line for the user."""


# ------------------------------------------------------------------------------- bots


def submit_archive(engine: Engine, data: bytes, filename: str, data_dir: Path) -> tuple[str, bool]:
    """Unpack an uploaded archive safely and submit the bot in it: ``(label, created)``.

    :raises ActionError: for a refused archive or a bot that fails ``arena bot submit``'s
        checks (manifest, build, smoke game); nothing is stored then.
    """
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as scratch:
        try:
            root = extract_bot_archive(data, filename, Path(scratch) / "bot")
        except ArchiveError as exc:
            raise ActionError(f"archive refused: {exc}") from None
        try:
            version, created = submit_bot(engine, root, data_dir)
        except (SubmitError, StorageError) as exc:
            raise ActionError(f"submission refused: {exc}") from None
    return str(version.label), bool(created)


# ------------------------------------------------------------------------ tournaments


def create_tournament(  # noqa: PLR0913  (one keyword per form field)
    engine: Engine,
    *,
    name: str,
    ruleset: str,
    bots: list[str],
    boards: int,
    seed: int | None = None,
    format_name: str = "round_robin",
    rating_mode: str = "board",
    time_control: str = DEFAULT_TIME_CONTROL,
) -> str:
    """Create a tournament between the latest versions of *bots* (the same checks as
    ``arena tournament create``); returns a one-line description.

    Deals come from a fresh secret unless a reproducible *seed* is asked for explicitly.

    :raises ActionError: for any invalid field, unknown bot or taken name.
    """
    try:
        _, description = setup.create_tournament(
            engine,
            name=name,
            ruleset=ruleset,
            bots=bots,
            boards=boards,
            seed=seed,
            format_name=format_name,
            rating_mode=rating_mode,
            time_control=time_control,
        )
    except (setup.TournamentSetupError, StorageError) as exc:
        raise ActionError(str(exc)) from None
    return description


@dataclass
class RunnerProcess:
    """A ``tournament run`` process this dashboard started."""

    tournament: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def running(self) -> bool:
        """True while the process lives (polling also reaps it once it has ended)."""
        return self.process.poll() is None

    @property
    def exit_code(self) -> int | None:
        """The exit status once ended."""
        return self.process.poll()

    def log_tail(self, lines: int = 15) -> str:
        """The last lines of the runner's output."""
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        # Rich redraws its progress bar with carriage returns; keep the last drawing.
        cleaned = [line.rsplit("\r", 1)[-1] for line in text.splitlines()]
        return "\n".join(cleaned[-lines:])


_RUNNERS: dict[str, RunnerProcess] = {}
_LOCK = threading.Lock()


def runner(name: str) -> RunnerProcess | None:
    """The runner this dashboard started for tournament *name*, if any."""
    with _LOCK:
        return _RUNNERS.get(name)


def start_runner(database_url: str, data_dir: Path, name: str) -> RunnerProcess:
    """Start ``arena tournament run NAME`` as a detached process (resuming if partly played).

    The database URL and data directory go through ``ARENA_DB``/``ARENA_DATA`` rather than
    the command line, where a password would show in ``ps``.

    :raises ActionError: if this dashboard's runner for *name* is still going.
    """
    with _LOCK:
        current = _RUNNERS.get(name)
        if current is not None and current.running:
            raise ActionError(f"tournament {name!r} is already running (pid {current.process.pid})")
        logs = data_dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"tournament-{_safe_name(name)}.log"
        env = dict(os.environ, ARENA_DB=database_url, ARENA_DATA=str(data_dir))
        env.pop("STREAMLIT_SERVER_PORT", None)
        with log.open("ab") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "tournament", "run", name],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # detached: Ctrl-C on the dashboard leaves it running
            )
        LOGGER.info("started tournament runner for %s (pid %d)", name, process.pid)
        started = RunnerProcess(name, process, log)
        _RUNNERS[name] = started
        return started


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:100] or "tournament"
