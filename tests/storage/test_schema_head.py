"""The newest migration read from the scripts' text (:mod:`arena.storage.schema_head`), so
that opening a database at that revision needs no Alembic (issue 35).

It must agree with Alembic on the arena's own scripts, and give ``None`` (Alembic's full
path then decides) for anything but one plain chain. Refusing a database at a wrong
revision is tests/storage/test_database.py's (a newer arena's, another program's).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory

from arena.storage.database import MIGRATIONS_DIR
from arena.storage.schema_head import head_revision


def _alembic_head() -> str | None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("path_separator", "os")
    return ScriptDirectory.from_config(config).get_current_head()


def test_the_arenas_scripts_give_alembics_head() -> None:
    assert head_revision() is not None
    assert head_revision() == _alembic_head()


def _script(revision: str, down: str | None) -> str:
    """A migration script's header as Alembic's template writes it."""
    parent = "None" if down is None else f'"{down}"'
    return (
        f'"""Revision {revision}."""\n\n'
        f'revision: str = "{revision}"\n'
        f"down_revision: str | None = {parent}\n"
        "branch_labels: str | None = None\n"
    )


def _versions(tmp_path: Path, scripts: dict[str, str]) -> Path:
    for name, text in scripts.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_plain_chain_gives_its_last_revision(tmp_path: Path) -> None:
    scripts = {
        "0001_a.py": _script("0001", None),
        "0002_b.py": _script("0002", "0001"),
        "0003_c.py": _script("0003", "0002"),
        "__init__.py": "",
    }
    assert head_revision(_versions(tmp_path, scripts)) == "0003"


def _scripts(*pairs: tuple[str, str | None]) -> dict[str, str]:
    """One script per (revision, down_revision), its file named after its place."""
    return {f"{i:04}.py": _script(revision, down) for i, (revision, down) in enumerate(pairs)}


MERGE = 'revision = "3"\ndown_revision = ("1", "2")\n'


@pytest.mark.parametrize(
    "scripts",
    [
        pytest.param(_scripts(("1", None), ("2", "1"), ("3", "1")), id="branch"),
        pytest.param({**_scripts(("1", None), ("2", "1")), "3.py": MERGE}, id="merge"),
        pytest.param(_scripts(("1", None), ("3", "2")), id="missing"),
        pytest.param({**_scripts(("1", None)), "2.py": "x = 1\n"}, id="no-revision"),
        pytest.param(_scripts(("1", None), ("2", "1"), ("3", "4"), ("4", "3")), id="cycle"),
        pytest.param(_scripts(("1", None), ("1", None)), id="twice"),
    ],
)
def test_anything_but_a_plain_chain_is_left_to_alembic(
    tmp_path: Path, scripts: dict[str, str]
) -> None:
    assert head_revision(_versions(tmp_path, scripts)) is None
