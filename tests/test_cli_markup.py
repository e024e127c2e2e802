"""Bot authors' text in the command line's Rich tables and lines is shown as it is: a
version such as ``[clk]`` used to vanish (read as a style tag), and a bot's stderr with
``[/x]`` made `arena bot check` crash with Rich's MarkupError."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rich.console import Console
from rich.errors import MarkupError

from arena.cli import main

ROOT = Path(__file__).resolve().parents[1]
RANDOM = ROOT / "sample_bots" / "random_bot"


def _bot(tmp_path: Path, version: str, run: str | None = None) -> Path:
    bot = tmp_path / "bot"
    shutil.copytree(RANDOM, bot)
    manifest = bot / "bot.toml"
    lines = [
        line
        for line in manifest.read_text().splitlines()
        if not line.startswith(("version", "run" if run else "\0"))
    ]
    lines.append(f'version = "{version}"')
    if run:
        lines.append(f'run = "{run}"')
    manifest.write_text("\n".join(lines) + "\n")
    return bot


def test_a_version_that_looks_like_markup_is_listed_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the label on one line of the table
    # Control: Rich reads the version as a tag and drops it.
    console = Console(record=True, width=200)
    console.print("random_bot@[clk]")
    assert console.export_text().strip() == "random_bot@"

    data = tmp_path / "data"
    assert main(["bot", "submit", str(_bot(tmp_path, "[clk]")), "--data", str(data)]) == 0
    capsys.readouterr()
    assert main(["bot", "list", "--data", str(data)]) == 0
    assert "random_bot@[clk]" in capsys.readouterr().out


def test_a_bots_stderr_that_looks_like_markup_does_not_crash_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Control: printed as markup, the line is an error in Rich itself.
    with pytest.raises(MarkupError):
        Console().print("its stderr ended with: [/x]")

    bot = _bot(
        tmp_path, "1", run="python -c 'import sys; sys.stderr.write(\\\"[/x]\\\"); sys.exit(3)'"
    )
    assert main(["bot", "check", str(bot), "--games", "1"]) == 1
    out = capsys.readouterr().out
    assert "[/x]" in out
