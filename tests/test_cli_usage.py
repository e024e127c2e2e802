"""How the command line answers a group named without a command, and a usage error that
Click words over several lines."""

from __future__ import annotations

import click
import pytest

from arena.cli import cli, main


@pytest.mark.parametrize("argv", [[], ["user"], ["tournament"]])
def test_a_group_without_a_command_prints_its_help_not_an_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"Usage: {' '.join(['arena', *argv])} [OPTIONS] COMMAND")
    assert "arena: error" not in err and "(arena" not in err


def test_a_usage_error_click_words_over_lines_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Control: Click's own message for a missing choice option spans several lines.
    with pytest.raises(click.UsageError) as raised:
        cli.main(args=["user", "add", "bob"], prog_name="arena", standalone_mode=False)
    assert raised.value.format_message().count("\n") >= 2
    capsys.readouterr()
    assert main(["user", "add", "bob"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "Missing option '--role'. Choose from: organiser, participant" in err
