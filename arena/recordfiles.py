"""Writing game records to files, atomically: a crash never leaves half a record.

Each record goes to a temporary file that is renamed over its final name, so a kill of the
process leaves either the whole record or none. With ``durable=True`` (``arena match``, one
record per game played) the file and the directory entry are also flushed to disk before
:func:`write_record` returns, so the game survives a crash of the machine too; bulk
writers (``arena simulate``) skip that cost (milliseconds per record).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any


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
