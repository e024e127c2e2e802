"""The optional dependencies of arena.envs: a test that needs one fails on CI, skips elsewhere."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def require(module: str, extra: str) -> ModuleType:
    """Import *module*, or fail (``CI=true``) / skip: ``make venv`` installs *extra*.

    Called at the top of a test module, before its optional imports, it skips (or fails)
    the whole module.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        message = f"{module} is not installed (the {extra!r} extra; run make venv): {exc}"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message, allow_module_level=True)
