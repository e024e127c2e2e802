"""A tournament worker process: reads game jobs as JSON lines on stdin, plays each, and
writes one JSON line per result on stdout: ``{"schedule_index": i, "record": {...}}``,
``{"schedule_index": i, "arena_fault": "..."}`` when the arena itself failed the game (the
runner replays it and rates nothing), or ``{"schedule_index": i, "error": "..."}``.

Run by :class:`arena.tournament.executor.LocalProcessExecutor` under a parent-death
signal, so a killed runner takes its workers (and their bots) with it.
"""

from __future__ import annotations

import json
import logging
import sys

from arena.referee import manifest  # noqa: F401 - sets gRPC's fork settings before grpc loads
from arena.referee.errors import ArenaFault
from arena.tournament.jobs import GameJob, VersionChangedError, play_job


def main() -> int:
    """Serve jobs until stdin closes."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        job = GameJob.from_json(json.loads(line))
        reply: dict[str, object]
        try:
            reply = {"schedule_index": job.schedule_index, "record": play_job(job)}
        except ArenaFault as exc:
            reply = {"schedule_index": job.schedule_index, "arena_fault": _one_line(exc)}
        except VersionChangedError as exc:
            reply = {"schedule_index": job.schedule_index, "error": _one_line(exc)}
        except Exception as exc:  # reported to the runner, which stops the tournament
            reply = {"schedule_index": job.schedule_index, "error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply, separators=(",", ":")) + "\n")
        out.flush()
    return 0


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
