"""A worker's reply to one game job, typed, and checked where it enters the runner.

A worker (a local worker process, a Ray actor) answers each job with one JSON object: the
game's record, or the arena's failure to play it (replayed), or an error (the run stops);
with flags about its bot processes. :class:`WorkerReply` is that object's type, written by
:class:`arena.tournament.player.GamePlayer` and read by the pool
(:class:`arena.tournament.pool.PoolExecutor`); :func:`parse_reply` checks one where it
arrives from outside the runner's process (the worker's JSON line, the Ray actor's return),
so the pool never reads a field of the wrong type.
"""

from __future__ import annotations

from typing import Any, Final, Required, TypedDict, cast


class WorkerReply(TypedDict, total=False):
    """One job's reply: ``schedule_index`` and exactly one of ``record``, ``arena_fault``
    and ``error``; the flags only when they are true (or, for ``started``, not 0)."""

    schedule_index: Required[int]
    record: dict[str, Any]
    """The finished game's record (``arena952.game/1``)."""
    arena_fault: str
    """The arena itself failed the game, in one line: it is played again, rated never."""
    error: str
    """A failure that is nobody's to replay (a stored version's files changed): the run stops."""
    warm: bool
    """A seat's process was pre-started for this game."""
    prestarted: bool
    """Processes were pre-started for the job named as upcoming."""
    started: int
    """Bot processes this game started itself (what process reuse saves)."""


OUTCOMES: Final = ("record", "arena_fault", "error")
_TYPES: Final[dict[str, type]] = {
    "record": dict,
    "arena_fault": str,
    "error": str,
    "warm": bool,
    "prestarted": bool,
    "started": int,
}


class MalformedReply(ValueError):
    """A reply that is not a :class:`WorkerReply` (the arena's bug, never a bot's); the
    message is one line."""


def parse_reply(data: object) -> WorkerReply:
    """*data* (a decoded JSON line, a Ray actor's return) as a :class:`WorkerReply`.

    :raises MalformedReply: if it is not an object with an integer ``schedule_index``,
        exactly one outcome and known fields of their types.
    """
    if not isinstance(data, dict):
        raise MalformedReply(f"a worker reply is an object, not {type(data).__name__}")
    index = data.get("schedule_index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise MalformedReply("a worker reply has no integer schedule_index")
    outcomes = [name for name in OUTCOMES if name in data]
    if len(outcomes) != 1:
        raise MalformedReply(f"worker reply for game {index}: outcomes {outcomes or 'none'}")
    for name, value in data.items():
        expected = _TYPES.get(name)
        if name == "schedule_index":
            continue
        if expected is None:
            raise MalformedReply(f"worker reply for game {index}: unknown field {name!r}")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise MalformedReply(
                f"worker reply for game {index}: {name} is not {expected.__name__}"
            )
    return cast(WorkerReply, data)
