"""The compiled engine: the same typed source, compiled by mypyc when a build exists.

Why: random playouts and Monte-Carlo search spend their time in four modules (state,
dealing, exchange, ending). mypyc compiles exactly these sources, unchanged, to C extensions that run them
about 1.3 to 1.5 times faster (docs/engine.md, "Speed"). The Python
source stays the one source of rules truth: the build is optional, and the package uses
it only when it was made from the very sources beside it.

How: ``python -m arena.game._build`` (``make engine``) compiles the four modules into
``arena/game/_compiled/`` and writes there the sha256 of each source it compiled. When
``arena.game`` is imported, :func:`compiled_path` puts that directory first on the
package's ``__path__`` only if every digest matches the source on disk now. So an edited
source is never shadowed by a stale build, and with no build (no C compiler, a wheel, or
``ARENA_PURE_PYTHON=1``) the pure-Python modules run, with the same results. This module
reads those few files at import time; nothing else in ``arena.game`` touches the disk.

Every process that imports the engine runs this check, each bot process among them, so it
uses only what the engine imports anyway (``hashlib``, for :mod:`arena.game.dealing`) and
``os.path``: ``pathlib`` would add about 4 ms of imports to every start, and ``json`` is
imported only when a build is there to check (docs/performance.md, "A bot process's own
cost").
"""

from __future__ import annotations

import hashlib
import os
import sys
from typing import Final

COMPILED_MODULES: Final = ("state", "dealing", "exchange", "ending")
"""Modules of ``arena.game`` that the build compiles: the hot path of a playout. The frozen
values that leave the engine live in :mod:`arena.game.values`, which is not compiled:
compiled, they could no longer be copied or pickled."""
BUILD_DIR: Final = "_compiled"
STAMP: Final = "SOURCES.json"
PURE_ENV: Final = "ARENA_PURE_PYTHON"
"""Set to a non-empty value to ignore the compiled build."""
GROUP: Final = "arena.game._engine"
"""mypyc's name for the shared library of the compiled modules (found on ``__path__`` too)."""


def stamp(package_dir: str | os.PathLike[str]) -> dict[str, object]:
    """What a build must have been made from: this Python, and each source's digest."""
    sources = {}
    for name in COMPILED_MODULES:
        with open(os.path.join(package_dir, f"{name}.py"), "rb") as source:
            sources[name] = hashlib.sha256(source.read()).hexdigest()
    return {"python": sys.implementation.cache_tag, "sources": sources}


def compiled_path(package_dir: str) -> list[str]:
    """``[build directory]`` if an up-to-date build exists and is not switched off, else ``[]``."""
    if os.environ.get(PURE_ENV):
        return []
    build = os.path.join(package_dir, BUILD_DIR)
    try:
        with open(os.path.join(build, STAMP), encoding="utf-8") as file:
            text = file.read()
        import json  # noqa: PLC0415 - only with a build to check: every bot process imports this

        built_from = json.loads(text)
        current = stamp(package_dir)
    except (OSError, ValueError):
        return []
    return [build] if built_from == current else []


def is_compiled() -> bool:
    """True when ``arena.game.state`` was loaded from the compiled build."""
    from arena.game import state  # noqa: PLC0415  (the package imports this module first)

    return not (state.__file__ or "").endswith(".py")
