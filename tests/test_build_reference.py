"""The SDK reference (scripts/build_reference.py): it builds from the docstrings with pdoc,
documents what a bot author reads, and fails on any warning, which the controls show by
building temporary modules with a broken cross-reference and a name that does not resolve."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts import build_reference


@pytest.fixture
def scratch_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on ``sys.path`` for throwaway modules, forgotten afterwards."""
    folder = tmp_path / "modules"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    before = set(sys.modules)
    yield folder
    for name in set(sys.modules) - before:
        if name.startswith("refcheck_"):
            del sys.modules[name]


@pytest.mark.slow
def test_the_sdk_reference_builds_without_a_warning(tmp_path: Path) -> None:
    out = tmp_path / "reference"
    assert build_reference.build(out, search=False) == []
    page = (out / "arena" / "sdk.html").read_text("utf-8")
    # What docs/bots.md sends readers there for: the trump calls, the observation's
    # fields, the lazily imported names, the bot's methods.
    for text in ("Trump", "NT", "current_trick", "tricks_won", "play_locally", "EncodedBot"):
        assert text in page, text
    parts = (out / "arena" / "game" / "observation.html").read_text("utf-8")
    assert "TrickView" in parts and "winner" in parts


def test_control_a_reference_that_points_nowhere_fails_the_build(
    tmp_path: Path, scratch_modules: Path
) -> None:
    (scratch_modules / "refcheck_broken.py").write_text(
        '"""See :meth:`refcheck_broken.Thing.go` and :func:`no_such_function`."""\n\n\n'
        "class Thing:\n"
        '    """Call :meth:`go` (fine), or :meth:`gone` (renamed away)."""\n\n'
        "    def go(self) -> None:\n"
        '        """Go."""\n',
        "utf-8",
    )
    assert build_reference.build(tmp_path / "out", ["refcheck_broken"], search=False) == [
        "refcheck_broken: :func:`no_such_function` points nowhere",
        "refcheck_broken.Thing: :meth:`gone` points nowhere",
    ]


def test_control_a_pdoc_warning_fails_the_build(tmp_path: Path, scratch_modules: Path) -> None:
    (scratch_modules / "refcheck_missing.py").write_text(
        '"""A module that exports a name it does not have."""\n\n__all__ = ["absent"]\n', "utf-8"
    )
    problems = build_reference.build(tmp_path / "out", ["refcheck_missing"], search=False)
    assert len(problems) == 1 and "'absent'" in problems[0] and "does not resolve" in problems[0]


def test_references_that_resolve_pass(tmp_path: Path, scratch_modules: Path) -> None:
    """The other side of the controls: relative, absolute, annotated and builtin targets."""
    (scratch_modules / "refcheck_fine.py").write_text(
        '"""See :class:`Thing`, :meth:`Thing.go`, :attr:`Thing.size`, :func:`os.getcwd`,\n'
        ':class:`~pathlib.Path`, :exc:`ValueError` and :mod:`json`."""\n\n\n'
        "class Thing:\n"
        '    """Call :meth:`go`; :attr:`size` is set in ``__init__``."""\n\n'
        "    size: int\n\n"
        "    def go(self) -> None:\n"
        '        """Go (:class:`Thing`)."""\n',
        "utf-8",
    )
    assert build_reference.build(tmp_path / "out", ["refcheck_fine"], search=False) == []


def test_the_command_lists_the_warnings_and_fails(
    tmp_path: Path, scratch_modules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch_modules / "refcheck_cli.py").write_text('"""See :func:`nowhere`."""\n', "utf-8")
    assert (
        build_reference.main(["--out", str(tmp_path / "out"), "--no-search", "refcheck_cli"]) == 1
    )
    error = capsys.readouterr().err.splitlines()
    assert error == [
        "build_reference: refcheck_cli: :func:`nowhere` points nowhere",
        "build_reference: 1 warning(s): fix the docstrings",
    ]
