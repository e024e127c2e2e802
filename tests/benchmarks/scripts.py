"""A script of ``benchmarks/`` imported as a module, for the tests of its logic: the
scripts are run, not installed, so they are loaded from their files."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_benchmark(script: str) -> ModuleType:
    """``benchmarks/<script>.py`` as the module ``<script>_benchmark``."""
    name = f"{script}_benchmark"
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, so worker processes can unpickle its functions.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
