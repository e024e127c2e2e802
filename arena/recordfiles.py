"""Writing game records to files, atomically: a crash never leaves half a record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_record(directory: Path, record: dict[str, Any]) -> Path:
    """Write *record* as ``directory/<seed>.json`` (via a temporary file and a rename)."""
    path = directory / f"{record['seed']}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
