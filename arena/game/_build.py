"""Build (or remove) the compiled engine described in :mod:`arena.game._native`.

Run ``python -m arena.game._build [build|clean|status]`` (``make engine``). Build-time
only: nothing imports this module, and it needs mypy (the ``dev`` extra), setuptools and
a C compiler.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from arena.game._native import BUILD_DIR, COMPILED_MODULES, GROUP, STAMP, is_compiled, stamp


def build() -> Path:
    """Compile :data:`COMPILED_MODULES` with mypyc into the build directory; return it.

    Needs mypy (the ``dev`` extra), setuptools and a C compiler.
    """
    from mypyc.build import mypycify  # noqa: PLC0415  (build-time only)
    from setuptools import Distribution  # type: ignore[import-untyped]  # noqa: PLC0415
    from setuptools.command.build_ext import build_ext  # type: ignore[import-untyped]  # noqa: PLC0415

    package = Path(__file__).resolve().parent
    root = package.parent.parent
    target = package / BUILD_DIR
    # Stamp the sources as they are before compiling: a source edited during the build
    # then no longer matches, and the build is not used.
    built_from = stamp(package)
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path.cwd()
        os.chdir(root)  # mypyc names modules after their paths relative to the root
        try:
            extensions = mypycify(
                [f"arena/game/{name}.py" for name in COMPILED_MODULES],
                opt_level="3",
                group_name=GROUP,
                target_dir=str(Path(tmp) / "c"),
            )
            command = build_ext(Distribution({"ext_modules": extensions}))
            command.build_lib = str(Path(tmp) / "lib")
            command.build_temp = str(Path(tmp) / "temp")
            command.ensure_finalized()
            command.run()
        finally:
            os.chdir(cwd)
        built = sorted((Path(tmp) / "lib" / "arena" / "game").glob("*.so"))
        expected = {*COMPILED_MODULES, GROUP.rsplit(".", 1)[1] + "__mypyc"}
        if {p.name.split(".", 1)[0] for p in built} != expected:
            raise RuntimeError(f"mypyc built {[p.name for p in built]}, expected {expected}")
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        for path in built:
            shutil.copy2(path, target / path.name)
    # The stamp last: a build interrupted before this line is never used.
    (target / STAMP).write_text(json.dumps(built_from, indent=2) + "\n", encoding="utf-8")
    return target


def main() -> int:
    """``python -m arena.game._build [build|clean|status]``."""
    command = sys.argv[1] if len(sys.argv) > 1 else "build"
    target = Path(__file__).resolve().parent / BUILD_DIR
    if command == "build":
        print(f"compiled engine built in {build()}")
    elif command == "clean":
        shutil.rmtree(target, ignore_errors=True)
        print(f"removed {target}")
    elif command == "status":
        print("compiled" if is_compiled() else "pure Python")
    else:
        print("usage: python -m arena.game._build [build|clean|status]", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
