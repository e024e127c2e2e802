"""What the dashboard changes: bot submissions, new tournaments, starting a runner.

Each action goes through the same code as the CLI: :func:`arena.submission.submit_bot`
for bots, :func:`arena.tournament.setup.create_tournament` for tournaments, and
``python -m arena.cli tournament run --user NAME`` in a detached process for running one,
so a tournament started here is played exactly as one started from a shell and keeps going
if the dashboard stops. A test match is queued (:mod:`arena.storage.test_matches`) and
played by ``python -m arena.cli queue run --once``, detached likewise.

Every action takes the logged-in :class:`Actor` (``None`` for a spectator) and is refused
here, by the same role and ownership checks the CLI runs, whatever the page showed: a
participant submits only under names they own, an organiser creates, starts and stops
tournaments.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Engine

from arena.archive import ArchiveError, extract_bot_archive
from arena.storage import Actor, test_matches
from arena.storage.database import StorageError
from arena.storage.ladder import set_ladder_open as set_open
from arena.submission import SubmitError, submit_bot
from arena.tournament import queue_starter, setup

LOGGER = logging.getLogger(__name__)

DEFAULT_TIME_CONTROL: Final = setup.DEFAULT_TIME_CONTROL


class ActionError(ValueError):
    """The action was refused; the message is one line for the user."""


# ------------------------------------------------------------------------------- bots


def _logged_in(by: Actor | None, role: str, action: str) -> Actor:
    """*by*, or a refusal for a spectator. What a logged-in user may do is decided by the
    functions the CLI calls too (:func:`arena.submission.submit_bot`,
    :mod:`arena.tournament.setup`), with the same words.

    :raises ActionError: for a spectator.
    """
    if by is None:
        raise ActionError(f"log in as {'an' if role == 'organiser' else 'a'} {role} to {action}")
    return by


def _may_run(by: Actor | None, action: str) -> Actor:
    """*by*, if it may start or stop tournaments (the CLI's check, the CLI's words).

    :raises ActionError: for a spectator or a participant.
    """
    user = _logged_in(by, "organiser", action)
    try:
        setup.check_may_run(user)
    except StorageError as exc:
        raise ActionError(str(exc)) from None
    return user


def submit_archive(
    engine: Engine, data: bytes, filename: str, data_dir: Path, by: Actor | None
) -> tuple[str, bool]:
    """Unpack an uploaded archive safely and submit the bot in it for *by*:
    ``(label, created)``.

    :raises ActionError: for a spectator, a name another user owns, a refused archive or a
        bot that fails ``arena bot submit``'s checks (manifest, build, smoke game); nothing
        is stored then.
    """
    submitter = _logged_in(by, "participant", "submit a bot")
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as scratch:
        try:
            root = extract_bot_archive(data, filename, Path(scratch) / "bot")
        except ArchiveError as exc:
            raise ActionError(f"archive refused: {exc}") from None
        try:
            version, created = submit_bot(
                engine, root, data_dir, submitter=submitter, via="dashboard", name_hint=filename
            )
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
    by: Actor | None,
) -> str:
    """Create a tournament between the latest versions of *bots* (the same checks as
    ``arena tournament create``); returns a one-line description.

    Deals come from a fresh secret unless a reproducible *seed* is asked for explicitly.

    :raises ActionError: for a visitor who is no organiser, any invalid field, unknown bot
        or taken name.
    """
    user = _logged_in(by, "organiser", "create a tournament")
    try:
        _, description = setup.create_tournament(
            engine,
            by=user,
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


def set_ladder_open(
    engine: Engine,
    tournament_id: int,
    *,
    is_open: bool,
    max_versions_per_day: int | None,
    by: Actor | None,
) -> str:
    """Open or close a ladder and set its daily quota (``arena tournament open|close``);
    one line saying what it is now.

    :raises ActionError: for a visitor who is no organiser, a quota below 1 or no ladder.
    """
    user = _logged_in(by, "organiser", "open or close a ladder")
    try:
        set_open(
            engine,
            tournament_id,
            is_open=is_open,
            max_versions_per_day=max_versions_per_day,
            by=user,
        )
    except StorageError as exc:
        raise ActionError(str(exc)) from None
    if not is_open:
        return "closed: new versions no longer enter it by themselves"
    quota = max_versions_per_day
    limit = "no daily quota" if quota is None else f"at most {quota} versions a day each"
    return f"open: every newly stored version enters it ({limit})"


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


def start_runner(database_url: str, data_dir: Path, name: str, by: Actor | None) -> RunnerProcess:
    """Start ``arena tournament run NAME`` for organiser *by* as a detached process
    (resuming if partly played).

    The database URL and data directory go through ``ARENA_DB``/``ARENA_DATA`` rather than
    the command line, where a password would show in ``ps``; ``ARENA_USER`` names *by*, so
    the runner checks the role again as any CLI run does.

    :raises ActionError: for a visitor who is no organiser, or if this dashboard's runner
        for *name* is still going.
    """
    user = _may_run(by, "start a tournament")
    with _LOCK:
        current = _RUNNERS.get(name)
        if current is not None and current.running:
            raise ActionError(f"tournament {name!r} is already running (pid {current.process.pid})")
        logs = data_dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"tournament-{_safe_name(name)}.log"
        env = dict(
            os.environ, ARENA_DB=database_url, ARENA_DATA=str(data_dir), ARENA_USER=user.name
        )
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


def stop_runner(name: str, by: Actor | None) -> None:
    """Stop this dashboard's runner of tournament *name* for organiser *by*, as Ctrl-C
    would: finished games stay, the tournament is marked interrupted and resumes later.

    :raises ActionError: for a visitor who is no organiser, or no runner of *name* here.
    """
    user = _may_run(by, "stop a tournament")
    with _LOCK:
        current = _RUNNERS.get(name)
        if current is None or not current.running:
            raise ActionError(f"this dashboard is not running tournament {name!r}")
        try:
            # The runner alone, not its process group: its bots must not see the signal,
            # or the interrupted games would read as their faults.
            os.kill(current.process.pid, signal.SIGINT)
        except ProcessLookupError:
            return
        LOGGER.info("%s stopped the runner of %s (pid %d)", user.name, name, current.process.pid)


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:100] or "tournament"


# ----------------------------------------------------------------------- test matches

HOUSE_BOTS: Final = tuple(test_matches.HOUSE_BOTS)
"""The house bots a test match may name (``builtin:random`` ...)."""


def request_test_match(
    engine: Engine,
    database_url: str,
    data_dir: Path,
    *,
    bot: str,
    opponents: list[str],
    boards: int,
    ruleset: str,
    by: Actor | None,
) -> int:
    """Queue a test match for *by* (the checks of ``arena bot test``) and make sure a
    queue runner plays it; the match's id.

    The match is played by ``arena queue run --once`` in a detached process, never in the
    dashboard's: started here unless a queue runner already holds the queue (which plays
    every queued match in turn).

    :raises ActionError: for a spectator, someone else's bot, an unknown or inactive
        opponent, a quota spent (saying when to try again), or any invalid field.
    """
    user = _logged_in(by, "participant", "start a test match")
    try:
        match = test_matches.request_test_match(
            engine, by=user, bot=bot, opponents=opponents, boards=boards, ruleset=ruleset
        )
    except StorageError as exc:
        raise ActionError(str(exc)) from None
    start_queue_runner(engine, database_url, data_dir)
    return test_matches.match_id(match)


def start_queue_runner(engine: Engine, database_url: str, data_dir: Path) -> int | None:
    """Start ``arena queue run --once`` as a detached process unless a queue runner holds
    the queue; its pid, or ``None`` when one is already playing
    (:func:`arena.tournament.queue_starter.start_queue_runner`, which the HTTP API calls too).

    :raises ActionError: if no runner could be started (the match stays queued).
    """
    try:
        return queue_starter.start_queue_runner(engine, database_url, data_dir)
    except StorageError as exc:
        raise ActionError(str(exc)) from None


def cancel_test_match(engine: Engine, test_match_id: int, by: Actor | None) -> None:
    """Cancel a queued test match of *by*'s (an organiser: anyone's).

    :raises ActionError: for a spectator, someone else's match, or one no longer queued.
    """
    user = _logged_in(by, "participant", "cancel a test match")
    try:
        test_matches.cancel_test_match(engine, test_match_id, user)
    except StorageError as exc:
        raise ActionError(str(exc)) from None
