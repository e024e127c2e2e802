"""Helpers of the open-ladder tests: real bots made from the sample bots under new names,
and accounts to submit them as."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import Engine

from arena.storage.users import create_user

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def make_bot(
    where: Path,
    name: str,
    version: str = "1",
    *,
    sample: str = "random_bot",
    run: str | None = None,
    build: str | None = None,
) -> Path:
    """A copy of sample bot *sample* named *name* at *version* (each version's manifest
    differs, so each is a new set of files); *run* and *build* replace its commands."""
    folder = where / f"{name}-{version}"
    folder.mkdir(parents=True)
    shutil.copy2(SAMPLES / sample / "bot.py", folder / "bot.py")
    lines = [
        f'name = "{name}"',
        f'version = "{version}"',
        'language = "python"',
        f'run = "{run or "python bot.py"}"',
    ]
    if build is not None:
        lines.append(f'build = "{build}"')
    (folder / "bot.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def participants(engine: Engine, *names: str) -> None:
    """Participant accounts *names* (the CLI acts for them with ``--user``)."""
    for name in names:
        create_user(engine, name, "participant", None)
