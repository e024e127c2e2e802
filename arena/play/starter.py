"""Starting a Play page game's runner from the dashboard: ``python -m arena.play.runner ID``
in a detached process, as a test match's queue runner is started
(:mod:`arena.tournament.queue_starter`), never in the dashboard's own process.

The database URL and data directory go through ``ARENA_DB``/``ARENA_DATA``, never the
command line, where a password would show in ``ps``.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Engine

from arena.storage import play_games
from arena.storage.database import StorageError

LOGGER = logging.getLogger(__name__)

LOG_NAME: Final = "play.log"
"""The runners' output, appended under the data directory's ``logs``."""
_STARTED: list[subprocess.Popen[bytes]] = []
_LOCK = threading.Lock()


class PlayStartError(StorageError):
    """The game is stored, but its runner could not be started; one line."""


def start_play_runner(engine: Engine, database_url: str, data_dir: Path, game_id: int) -> int:
    """Start game *game_id*'s runner; its pid (also stored on the game's row).

    :raises PlayStartError: if the process cannot be started (the game is marked failed).
    """
    with _LOCK:
        _STARTED[:] = [p for p in _STARTED if p.poll() is None]  # reap the ended
        env = dict(os.environ, ARENA_DB=database_url, ARENA_DATA=str(data_dir))
        env.pop("STREAMLIT_SERVER_PORT", None)
        try:
            logs = data_dir / "logs"
            logs.mkdir(parents=True, exist_ok=True)
            with (logs / LOG_NAME).open("ab") as out:
                process = subprocess.Popen(
                    [sys.executable, "-m", "arena.play.runner", str(game_id)],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,  # its game ends by itself if the server stops
                )
        except OSError as exc:
            message = f"the game could not start: {exc.strerror or exc}"
            play_games.finish_play_game(engine, game_id, "failed", message)
            raise PlayStartError(message) from None
        _STARTED.append(process)
    # Reap it the moment it ends: a finished game leaves no zombie behind the server.
    threading.Thread(target=process.wait, name=f"play-runner-{game_id}", daemon=True).start()
    play_games.set_runner(engine, game_id, process.pid)
    LOGGER.info("started the runner of game %d on the Play page (pid %d)", game_id, process.pid)
    return process.pid


__all__ = ["PlayStartError", "start_play_runner"]
