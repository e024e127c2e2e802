"""Print the project's requirements, one a line, from pyproject.toml: its dependencies and
those of the extras named in the first argument (comma-separated, e.g. ``ray``).

Both images install these in a layer of their own, before the sources are copied in: a
change to the code then rebuilds only the small layer that installs the arena itself, and
the two images share the one layer of dependencies (identical steps, so the build cache
reuses it). An extra that names the project itself (``arena952[dev]``) is expanded, never
fetched from an index. Standard library only (it runs in the base image, before anything
is installed); an unknown extra ends it with one line and exit code 1.

Usage: ``python dependencies.py [EXTRA,...] > requirements.txt`` beside pyproject.toml.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

SELF_REFERENCE = re.compile(r"^\s*(?P<name>[A-Za-z0-9._-]+)\s*\[(?P<extras>[^\]]*)\]\s*$")


def requirements(project: dict[str, object], extras: list[str]) -> list[str]:
    """The dependencies and those of *extras*, self-references expanded, each once."""
    name = str(project["name"]).lower()
    optional = project.get("optional-dependencies") or {}
    assert isinstance(optional, dict)
    found: list[str] = []
    seen_extras: set[str] = set()

    def add(lines: object) -> None:
        assert isinstance(lines, list)
        for line in lines:
            match = SELF_REFERENCE.match(str(line))
            if match and match["name"].lower().replace("_", "-") == name:
                expand([part.strip() for part in match["extras"].split(",")])
            elif line not in found:
                found.append(str(line))

    def expand(names: list[str]) -> None:
        for extra in names:
            if not extra or extra in seen_extras:
                continue
            if extra not in optional:
                known = ", ".join(sorted(optional)) or "none"
                raise SystemExit(f"error: no extra {extra!r} in pyproject.toml (known: {known})")
            seen_extras.add(extra)
            add(optional[extra])

    add(project.get("dependencies") or [])
    expand(extras)
    return found


def main(argv: list[str]) -> int:
    project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
    extras = argv[0].split(",") if argv else []
    try:
        lines = requirements(project, extras)
    except SystemExit as failure:
        print(failure, file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
