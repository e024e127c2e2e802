"""The newest migration's revision, read from the migration scripts' text without Alembic.

Why: every command and every dashboard process opens the database, and opening it first
asks whether the schema is at the newest migration already (one query). Alembic answers
that by importing itself and loading every script: about 0.15 s of a command's start,
most of what ``arena standings`` spent before its query (issue 35). The scripts state
their place in the chain as two plain assignments (``revision = "0007"``,
``down_revision = "0006"``), which a regular expression reads.

Only a plain chain is trusted: one root, each revision the parent of at most one other,
every assignment a string literal (or ``None`` for the root). Anything else (a branch, a
merge, a script this reading does not understand) gives ``None``, and
:func:`arena.storage.database.migrate` then takes Alembic's full path, as it did before.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Final

VERSIONS_DIR: Final = Path(__file__).parent / "migrations" / "versions"

_ASSIGNMENT: Final = re.compile(
    r"""^(revision|down_revision)\b[^=\n]*=[ \t]*(?:None|(["'])([^"'\n]+)\2)[ \t]*(?:\#.*)?$""",
    re.MULTILINE,
)
"""``revision: str = "0007"`` or ``down_revision: str | None = None``, one a line."""


@functools.cache
def head_revision(versions: Path = VERSIONS_DIR) -> str | None:
    """The revision no other script revises (read once a process: the scripts do not
    change), or ``None`` if the scripts in *versions* are not one plain chain."""
    parents: dict[str, str | None] = {}
    # Alembic's own choice of files: every .py but __init__ and editors' lock files.
    for script in sorted(versions.glob("*.py")):
        if script.name.startswith(("__init__", ".#")):
            continue
        found = {name: value or None for name, _, value in _ASSIGNMENT.findall(script.read_text())}
        named = found.get("revision")
        if named is None or "down_revision" not in found or named in parents:
            return None
        parents[named] = found["down_revision"]
    heads = parents.keys() - set(parents.values())
    if len(heads) != 1:
        return None
    head = heads.pop()
    # Walk down from the head: a plain chain reaches the root through every script once.
    seen: set[str] = set()
    revision: str | None = head
    while revision is not None and revision in parents and revision not in seen:
        seen.add(revision)
        revision = parents[revision]
    return head if revision is None and len(seen) == len(parents) else None
