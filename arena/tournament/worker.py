"""A tournament worker process: reads game jobs as JSON lines on stdin, plays each, and
writes one JSON line per result on stdout (a :class:`arena.tournament.replies.WorkerReply`):
``{"schedule_index": i, "record": {...}}``,
``{"schedule_index": i, "arena_fault": "..."}`` when the arena itself failed the game (the
runner replays it and rates nothing), or ``{"schedule_index": i, "error": "..."}``.

A job line with ``"live": true`` asks for the live feed too: while the game is played, lines
``{"schedule_index": i, "live": {...}}`` carry its public view (never a private card:
:func:`arena.game.public.public_view`), at most one per
:data:`arena.tournament.live_feed.LIVE_INTERVAL_S`, all before the game's reply line.

A job line is ``{"job": {...}}``, or ``{"job": {...}, "upcoming": {...}}`` when the runner
pre-starts: *upcoming* is the job this worker will likely get next, whose bot processes
the player may start during this game (:meth:`GamePlayer.play`); the reply then may carry
``"prestarted": true`` and ``"warm": true``.

Run by :class:`arena.tournament.executor.LocalProcessExecutor` under a parent-death
signal, so a killed runner takes its workers (and their bots) with it. One event loop runs
for the worker's whole life, in its main thread, so that a :class:`GamePlayer` can keep a
seating's bot processes between games (``--reuse none``: fresh processes for every game;
the runner's executor passes its own setting, this is no user interface).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

from arena.protocol.grpc_env import configure_grpc

configure_grpc(os.environ)  # an entry point: before the player imports grpc

from arena.terminal import SafeLogFormatter  # noqa: E402
from arena.tournament.jobs import GameJob  # noqa: E402
from arena.tournament.live_feed import Coalescer  # noqa: E402
from arena.tournament.player import GamePlayer, Reuse  # noqa: E402

JOB_LINE_LIMIT = 16 * 1024 * 1024
"""Longest job line read from the runner (a job is a few hundred bytes)."""


async def serve(reuse: Reuse) -> None:
    """Play the jobs on stdin until it closes; then stop every bot process."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=JOB_LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    player = GamePlayer(reuse)
    out = sys.stdout
    try:
        while line := await reader.readline():
            if not line.strip():
                continue
            message = json.loads(line)
            upcoming = message.get("upcoming")
            job = GameJob.from_json(message["job"])
            feed = Coalescer(_live_writer(out, job.schedule_index)) if message.get("live") else None
            try:
                reply = await player.play(
                    job, None if upcoming is None else GameJob.from_json(upcoming), feed
                )
            finally:
                if feed is not None:
                    feed.close()
            out.write(json.dumps(reply, separators=(",", ":")) + "\n")
            out.flush()
    finally:
        await player.aclose()


def _live_writer(out: TextIO, index: int) -> Callable[[dict[str, Any], float], None]:
    """Writes one live line of game *index* (a public view made at *at*) to *out*."""

    def write(view: dict[str, Any], at: float) -> None:
        line = {"schedule_index": index, "live": view, "at": at}
        out.write(json.dumps(line, separators=(",", ":")))
        out.write("\n")
        out.flush()

    return write


def configure_logging() -> None:
    """WARNING and above to stderr, which is the organiser's terminal: a warning may quote
    a bot's text (a label, an error), so each line's controls are shown as escapes."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(SafeLogFormatter(logging.BASIC_FORMAT))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


def main(argv: list[str] | None = None) -> int:
    """Serve jobs until stdin closes."""
    parser = argparse.ArgumentParser(prog="python -m arena.tournament.worker")
    parser.add_argument(
        "--reuse",
        choices=[reuse.value for reuse in Reuse],
        default=Reuse.SAFE.value,
        help="which games may share bot processes (board: unsafe, for tests only)",
    )
    args = parser.parse_args(argv)
    configure_logging()
    asyncio.run(serve(Reuse(args.reuse)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
