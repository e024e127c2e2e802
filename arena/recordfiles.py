"""Game records as files: writing them atomically, naming them safely, and loading a stored
record only once it has been checked.

Each record goes to a temporary file that is renamed over its final name, so a kill of the
process leaves either the whole record or none. With ``durable=True`` (``arena match``, one
record per game played) the file and the directory entry are also flushed to disk before
:func:`write_record` returns, so the game survives a crash of the machine too; bulk
writers (``arena simulate``) skip that cost (milliseconds per record).

:func:`export_file_name` makes a file name from a tournament name that always stays inside
the directory it is joined to, whatever the database holds (an older arena accepted
``../x`` and ``a/b`` as names). :func:`load_record` parses a stored record and checks it
against the rules (docs/record-format.md: a record that fails to load or to check is reported, never
silently accepted), so ``arena replay`` and ``arena export`` refuse a damaged record with
one line naming the game instead of a traceback or a file that is not a record.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from arena.game.record import RecordError, replay_record

SAFE_STEM: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,119}")
"""A tournament name used as it is in file names: one path component, no ``.``/``..``,
nothing a shell or another system's file names would trip on."""
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]")
FAULT_KEYS: Final = ("seat", "hand", "decision", "kind", "detail")
"""What every fault entry holds (docs/record-format.md), and what a text replay prints of it."""


def write_record(directory: Path, record: dict[str, Any], *, durable: bool = False) -> Path:
    """Write *record* as ``directory/<seed>.json`` (via a temporary file and a rename;
    *durable*: flushed to disk before returning).

    :raises OSError: if the record cannot be written (no space, no descriptor, ...).
    """
    path = directory / f"{record['seed']}.json"
    tmp = path.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as file:
        file.write(json.dumps(record, separators=(",", ":")) + "\n")
        if durable:
            file.flush()
            os.fsync(file.fileno())
    tmp.replace(path)
    if not durable:
        return path
    with contextlib.suppress(OSError):  # not every filesystem lets a directory be synced
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return path


def export_file_name(tournament: str, schedule_index: int) -> str:
    """``<stem>-<index:06d>.json``: the file ``arena export`` writes for one game.

    The stem is the tournament name when that is :data:`SAFE_STEM`; otherwise every other
    character becomes ``_``, a leading ``.`` or ``-`` gets a ``_`` before it, and 8 hex
    digits of the name's SHA-256 follow, so two names that differ only in unsafe
    characters (``a/b``, ``a b``) never write over each other's files. Either way the
    result is one path component: joined to a directory, it stays in that directory.
    """
    return f"{export_stem(tournament)}-{schedule_index:06d}.json"


def export_stem(tournament: str) -> str:
    """The file stem :func:`export_file_name` uses for *tournament*."""
    if SAFE_STEM.fullmatch(tournament):
        return tournament
    stem = _UNSAFE.sub("_", tournament)[:100]
    if not stem[:1].isalnum() and not stem.startswith("_"):
        stem = "_" + stem  # "", ".", "..", ".x" and "-x" never start a stem
    digest = hashlib.sha256(tournament.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{stem}-{digest}"


def load_record(text: str, *, game: str) -> dict[str, Any]:
    """Parse stored record *text* of *game* and check it (:func:`check_record`).

    :raises RecordError: naming *game* and the first thing wrong: not JSON, or a record
        that does not replay under its rules.
    """
    try:
        record = json.loads(text)
    except RecursionError:
        raise RecordError("not readable: nested too deeply", game=game) from None
    except (TypeError, ValueError) as exc:
        raise RecordError(f"not valid JSON ({exc})", game=game) from None
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object", game=game)
    check_record(record, game=game)
    return record


def check_record(record: Mapping[str, Any], *, game: str) -> None:
    """Check that *record* is an ``arena952.game/1`` record of a finished game that replays
    step by step under its rules (:func:`arena.game.record.replay_record`), and that its
    faults hold what docs/record-format.md asks (which the replay itself does not read).

    :raises RecordError: naming *game* (and the hand and step) where it first goes wrong.
    """
    try:
        replay_record(record, game=game)
    except (RecursionError, OverflowError, MemoryError) as exc:
        raise RecordError(f"unreadable record: {type(exc).__name__}", game=game) from None
    for number, fault in enumerate(record["faults"], start=1):
        if not isinstance(fault, Mapping) or fault.get("seat") not in (0, 1, 2):
            raise RecordError(f"fault {number} is not an entry with a seat 0, 1 or 2", game=game)
        missing = [key for key in FAULT_KEYS if key not in fault]
        if missing:
            raise RecordError(f"fault {number} has no {', '.join(missing)}", game=game)
