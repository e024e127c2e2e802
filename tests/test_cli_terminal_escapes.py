"""No terminal control a bot, a bot author or another user chose reaches the organiser's
terminal through the command line (a security audit found OSC 8 links, OSC 0 titles and a
cleared screen coming through `arena bot check` and `arena bot submit`).

Each hostile test has a control showing the same text does reach the output when the
sanitiser (:mod:`arena.cli.terminal`) is bypassed, so a pass means the sanitiser held.
"""

from __future__ import annotations

import io
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from rich.console import Console, RenderableType
from rich.markup import escape
from rich.table import Table

import arena.cli
from arena.cli import bot as bot_cli
from arena.cli import main, storage_options
from arena.cli import match as match_cli
from arena.cli.terminal import CONTINUATION, Hanging, safe_logging, safe_markup, safe_text
from arena.referee.manifest import load_manifest
from arena.storage.database import StorageError

ROOT = Path(__file__).resolve().parents[1]
RANDOM = ROOT / "sample_bots" / "random_bot"

OSC8_LINK = "\x1b]8;;http://evil/\x1b\\click\x1b]8;;\x1b\\"
OSC0_TITLE = "\x1b]0;pwned\x07"
CLEAR_SCREEN = "\x1b[2J\x1b[H"
C1_CSI = "\x9b31m"
RLO = "\u202e"
HOSTILE = f"{OSC8_LINK} {OSC0_TITLE} {CLEAR_SCREEN}all games finished, no fault {C1_CSI} {RLO}exe"
"""What the audit's hostile bot printed, plus an 8-bit CSI and a right-to-left override."""

SEEN = ("\\x1b]8;;http://evil/", "\\x1b]0;pwned\\x07", "\\x1b[2J\\x1b[H", "\\x9b31m", "\\u202eexe")
"""The same text as the organiser sees it: every control a visible escape."""

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
FORBIDDEN = {chr(c) for c in [*range(0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]} | set(BIDI)
"""What must never be printed: C0 but tab and newline, DEL, C1, and the bidi controls."""


def _forbidden_in(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text if c in FORBIDDEN})


def _assert_terminal_safe(output: bytes) -> str:
    """*output* decoded, after checking that no ESC, BEL, C1 or bidi control is in it."""
    assert b"\x1b" not in output and b"\x07" not in output
    text = output.decode("utf-8", "surrogateescape")
    assert _forbidden_in(text) == [], text
    return text


# ------------------------------------------------------------------ the function itself


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x00\x01\x08", "\\x00\\x01\\x08"),  # C0
        ("a\x07b", "a\\x07b"),  # BEL: ends an OSC, rings the bell
        ("\x0b\x0c\x1c\x1f", "\\x0b\\x0c\\x1c\\x1f"),  # VT, FF, the separators C0 ends with
        (CLEAR_SCREEN, "\\x1b[2J\\x1b[H"),  # ESC
        (OSC8_LINK, "\\x1b]8;;http://evil/\\x1b\\click\\x1b]8;;\\x1b\\"),
        ("done\roverwritten", "done\\roverwritten"),  # a lone CR: back over the arena's words
        ("line\r\nnext", f"line\n{CONTINUATION}next"),  # CRLF: one newline
        ("\x7f", "\\x7f"),  # DEL
        ("\x80\x85\x9b31m\x9d\x9f", "\\x80\\x85\\x9b31m\\x9d\\x9f"),  # C1: NEL, CSI, OSC
        ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),  # bidi marks
        ("\u202a\u202b\u202c\u202d\u202e", "\\u202a\\u202b\\u202c\\u202d\\u202e"),  # embeddings
        ("\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069"),  # isolates
        ("\u2028\u2029", "\\u2028\\u2029"),  # line and paragraph separators
        ("a\tb", "a\tb"),  # tabs stay
        ("one\ntwo\n\nthree\n", f"one\n{CONTINUATION}two\n\n{CONTINUATION}three\n"),
        ("élan ♠ 9-5-2", "élan ♠ 9-5-2"),  # ordinary Unicode passes unchanged
        ("漢字 👍🏽 é", "漢字 👍🏽 é"),  # wide, emoji with a modifier, a combining accent
        ("\u200b\u200d\ufeff", "\u200b\u200d\ufeff"),  # zero-width, but no control of a terminal
        ("[bold]x[/] \\x1b", "[bold]x[/] \\x1b"),  # markup and backslashes: plain text here
    ],
)
def test_safe_text_shows_every_control_as_an_escape(raw: str, shown: str) -> None:
    assert safe_text(raw) == shown
    assert _forbidden_in(safe_text(raw)) == []


def test_no_code_point_of_the_first_planes_survives_as_a_control() -> None:
    everything = "".join(chr(c) for c in range(0x3000) if not 0xD800 <= c < 0xE000)
    assert _forbidden_in(safe_text(everything)) == []
    # Control: the text did hold every forbidden character.
    assert len(_forbidden_in(everything)) == len(FORBIDDEN)


def test_continuation_lines_can_never_pass_for_the_arenas_own() -> None:
    fake = "boom\nno faults: the bot speaks the protocol and plays legally."
    assert not any(line.startswith("no faults") for line in safe_text(fake).splitlines())
    assert safe_text(fake, continuation="> ").splitlines()[1].startswith("> no faults")


def _rendered(renderable: RenderableType, width: int = 200) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    return output


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("[/x] [bold]v1[/bold]", "[/x] [bold]v1[/bold]"),
        ("random_bot@[clk]", "random_bot@[clk]"),
        (f"{OSC0_TITLE}[red]", "\\x1b]0;pwned\\x07[red]"),
        ("ends in a backslash\\", "ends in a backslash\\"),
        ("élan ♠ 9-5-2", "élan ♠ 9-5-2"),
    ],
)
def test_safe_markup_is_shown_literally_inside_the_arenas_markup(raw: str, shown: str) -> None:
    console = Console(file=io.StringIO(), width=200, record=True)
    console.print(f"[bold]bot[/] {safe_markup(raw)}[green] ok[/]")
    assert console.export_text() == f"bot {shown} ok\n"
    text = console.render_str(f"[green]{safe_markup(raw)}[/]", highlight=False)
    styles = {str(span.style) for span in text.spans}
    assert styles == {"green"}  # the arena's own markup still works around it


def test_rich_and_click_pass_raw_controls_when_the_sanitiser_is_bypassed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Control for every test here: neither printer strips ESC, C1 or bidi controls.
    assert OSC8_LINK in _rendered(escape(HOSTILE))
    assert C1_CSI in _rendered(escape(HOSTILE)) and RLO in _rendered(escape(HOSTILE))
    click.echo(HOSTILE)
    # (click drops CSI sequences such as the clear screen, on a pipe only: never OSC.)
    out = capsys.readouterr().out
    assert OSC8_LINK in out and OSC0_TITLE in out and C1_CSI in out and RLO in out
    assert OSC8_LINK not in _rendered(safe_markup(HOSTILE))


def test_a_wrapped_line_of_bot_text_never_starts_at_the_margin() -> None:
    padded = safe_markup("x " * 20 + " " * 60 + "no faults: the bot speaks the protocol")
    # Control: Rich wraps at the console's width, and the bot's words start a line.
    plain = _rendered(f"  its stderr ended with: {padded}", width=80)
    assert any(line.startswith("no faults") for line in plain.splitlines())
    hanging = _rendered(Hanging(f"  its stderr ended with: {padded}"), width=80)
    assert len(hanging.splitlines()) > 1
    assert all(line.startswith("  ") for line in hanging.splitlines())


# -------------------------------------------------------------------------- logging


def test_log_lines_are_made_safe_and_keep_their_one_line_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logger = logging.getLogger("arena.tests.hostile")
    record = logger.makeRecord(
        logger.name, logging.WARNING, __file__, 1, "bot said %s", (HOSTILE,), None
    )
    # Control: with no logging configured (the CLI before), Python prints the line raw.
    assert logging.lastResort is not None
    logging.lastResort.handle(record)
    assert capsys.readouterr().err == f"bot said {HOSTILE}\n"

    handlers = list(logging.getLogger().handlers)
    with safe_logging():
        logger.warning("bot said %s", HOSTILE)
        logger.info("not shown: below WARNING")
    err = capsys.readouterr().err
    _assert_terminal_safe(err.encode())
    assert err == f"bot said {safe_text(HOSTILE)}\n"
    assert logging.getLogger().handlers == handlers  # the CLI leaves a caller's logging alone


def test_the_cli_logs_through_the_safe_formatter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Other tests in this process may have changed logging (libraries set levels, disable
    # loggers): this test's logger and the root's level are its own.
    monkeypatch.setattr(logging.root, "level", logging.WARNING)
    logging.disable(logging.NOTSET)
    logger = logging.getLogger(f"arena.tests.hostile.{tmp_path.name}")

    def hostile_database(url: str | None) -> object:
        logger.warning("opening %s", HOSTILE)
        raise StorageError(f"cannot open {HOSTILE}")

    monkeypatch.setattr(storage_options, "open_database", hostile_database)
    assert main(["bot", "list", "--data", str(tmp_path)]) == 1
    err = _assert_terminal_safe(capsys.readouterr().err.encode())
    assert err.splitlines() == [
        f"opening {safe_text(HOSTILE)}",
        f"arena: error: cannot open {safe_text(HOSTILE)}",
    ]
    # Control: the same error printed with the sanitiser bypassed carries the raw bytes.
    monkeypatch.setattr(arena.cli, "safe_text", lambda text: text)
    assert main(["bot", "list", "--data", str(tmp_path)]) == 1
    assert OSC8_LINK in capsys.readouterr().err


# ---------------------------------------------------------------- a hostile bot, for real


def hostile_bot(tmp_path: Path, manifest: str = 'version = "1"\n') -> Path:
    """A bot that prints :data:`HOSTILE` on stderr and crashes (exit status 3) before it
    connects: a startup fault, whose detail quotes its stderr. It needs no SDK, so it
    fails the same way whichever copy of the arena runs it. *manifest*: its version line
    and any more lines of its bot.toml."""
    bot = tmp_path / "hostile"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        f'name = "hostile"\nlanguage = "python"\nrun = "python bot.py"\n{manifest}'
    )
    (bot / "bot.py").write_text(
        f"import sys\n\nsys.stderr.write({HOSTILE!r} + '\\n')\nsys.stderr.flush()\nsys.exit(3)\n"
    )
    return bot


def run_cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m arena.cli ARGS`` as an organiser would run it, output to pipes."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    env |= {"COLUMNS": "80", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=180,
        check=False,
    )


ARENA_LINES = ("checking hostile@1", "game 1 (seat 0):", "1 fault(s): fix them")


def test_bot_check_shows_a_hostile_bots_stderr_escaped(tmp_path: Path) -> None:
    done = run_cli("bot", "check", str(hostile_bot(tmp_path)), "--games", "1")
    assert done.returncode == 1, done
    out = _assert_terminal_safe(done.stdout)
    _assert_terminal_safe(done.stderr)
    shown = "".join(line.strip() for line in out.splitlines())  # undo Rich's wrapping
    for text in SEEN:
        assert text in shown, out
    # Only the arena's own lines start at the margin: the bot's text cannot fake one.
    assert all(line.startswith((*ARENA_LINES, "  ")) for line in out.splitlines()), out


def test_bot_check_control_the_raw_stderr_comes_through_without_the_sanitiser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot_cli, "safe_markup", escape)  # markup still escaped, controls not
    assert main(["bot", "check", str(hostile_bot(tmp_path)), "--games", "1"]) == 1
    out = capsys.readouterr().out
    assert OSC8_LINK in out and OSC0_TITLE.rstrip("\x07") in out and C1_CSI in out
    assert RLO in out


def test_bot_submit_refuses_a_hostile_bot_in_one_escaped_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = run_cli("bot", "submit", str(hostile_bot(tmp_path)), "--data", str(data))
    assert done.returncode == 1, done
    assert done.stdout == b""
    err = _assert_terminal_safe(done.stderr)
    # One error line (a sandbox warning may come before it on a machine without bwrap).
    errors = [line for line in err.splitlines() if line.startswith("arena: error: ")]
    assert len(errors) == 1 and "smoke game failed: startup" in errors[0], err
    for text in SEEN:
        assert text in errors[0], err


def test_bot_submit_control_the_raw_stderr_comes_through_without_the_sanitiser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena.cli, "safe_text", lambda text: text)
    data = tmp_path / "data"
    assert main(["bot", "submit", str(hostile_bot(tmp_path)), "--data", str(data)]) == 1
    err = capsys.readouterr().err
    assert OSC8_LINK in err and OSC0_TITLE in err and C1_CSI in err and RLO in err


# A version with a C1 CSI and a right-to-left override (the manifest refuses only C0 there),
# and a build command with an OSC title (the manifest refuses only NUL there).
HOSTILE_MATCH_BOT = 'version = "1\\u009b2J\\u202e"\nbuild = "true \\u001b]0;pwned\\u0007"\n'


def test_arena_match_shows_hostile_labels_and_build_commands_escaped(tmp_path: Path) -> None:
    bot = hostile_bot(tmp_path, HOSTILE_MATCH_BOT)
    done = run_cli("match", str(bot), "builtin:random", "builtin:random", "--games", "1")
    assert done.returncode == 0, done
    out = _assert_terminal_safe(done.stdout)
    err = _assert_terminal_safe(done.stderr)
    assert "building hostile@1\\x9b2J\\u202e: true \\x1b]0;pwned\\x07" in err
    assert "hostile@1\\x9b2J\\u202e" in out  # the results table
    assert "seat 0 startup" in out  # the fault line


def test_arena_match_control_raw_labels_come_through_without_the_sanitiser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(match_cli, "safe_markup", escape)
    monkeypatch.setattr(match_cli, "safe_text", lambda text: text)
    bot = hostile_bot(tmp_path, HOSTILE_MATCH_BOT)
    assert main(["match", str(bot), "builtin:random", "builtin:random", "--games", "1"]) == 0
    captured = capsys.readouterr()
    assert f"hostile@1\x9b2J{RLO}" in captured.out
    assert f"true {OSC0_TITLE}" in captured.err


# ------------------------------------------------- names and versions bot authors choose

HOSTILE_VERSION = "1\u202e\u009b2J"
HOSTILE_LANGUAGE = "py\u009b2J\u202ethon[red]"


def hostile_label_bot(tmp_path: Path, name: str) -> Path:
    """A copy of the random bot named *name* whose version and language hold a C1 CSI and
    a right-to-left override (the manifest refuses C0 controls only)."""
    bot = tmp_path / name
    shutil.copytree(RANDOM, bot)
    manifest = bot / "bot.toml"
    kept = [
        line
        for line in manifest.read_text().splitlines()
        if not line.startswith(("name", "version", "language"))
    ]
    manifest.write_text(
        "\n".join([*kept, f'name = "{name}"', 'version = "1\\u202e\\u009b2J"',
                   'language = "py\\u009b2J\\u202ethon[red]"']) + "\n"
    )  # fmt: skip
    return bot


def test_the_manifest_parser_lets_c1_and_bidi_through_in_versions_and_languages(
    tmp_path: Path,
) -> None:
    manifest = load_manifest(hostile_label_bot(tmp_path, "sly"))
    assert (manifest.version, manifest.language) == (HOSTILE_VERSION, HOSTILE_LANGUAGE)


@pytest.mark.slow
def test_hostile_versions_are_escaped_in_every_listing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # whole cells: the label on one line
    data = tmp_path / "data"
    names = ["sly", "sneaky", "shady"]
    for name in names:
        assert (
            main(["bot", "submit", str(hostile_label_bot(tmp_path, name)), "--data", str(data)])
            == 0
        )
    email = f"eve{OSC0_TITLE}{RLO}@example.org"
    assert (
        main(["user", "add", "eve", "--role", "participant", "--email", email, "--data", str(data)])
        == 0
    )
    assert main(["tournament", "create", "t1", "--bots", ",".join(names), "--boards", "1",
                 "--seed", "1", "--data", str(data)]) == 0  # fmt: skip
    assert main(["tournament", "run", "t1", "--parallel", "2", "--data", str(data)]) == 0
    capsys.readouterr()
    label = f"sly@{safe_text(HOSTILE_VERSION)}"
    for command, expected in [
        (["bot", "list"], label),
        (["bot", "show", "sly"], label),
        (["standings", "t1"], label),
        (["tournament", "status", "t1"], label),
        (["replay", "1"], label),
        (["user", "list"], "eve\\x1b]0;pwned\\x07\\u202e@example.org"),
    ]:
        assert main([*command, "--data", str(data)]) == 0
        out = _assert_terminal_safe(capsys.readouterr().out.encode())
        assert expected in out.replace("\n", ""), (command, out)
        if command[:2] == ["bot", "list"]:
            assert "py\\x9b2J\\u202ethon[red]" in out  # markup shown, not applied


def test_hostile_version_control_rich_tables_pass_c1_and_bidi_through() -> None:
    # Control for the listing test: a Rich table shows the raw label, controls and all.
    table = Table()
    table.add_column("bot")
    table.add_row(escape(f"sly@{HOSTILE_VERSION}"))
    assert f"sly@{HOSTILE_VERSION}" in _rendered(table)


def test_a_tournament_workers_log_lines_show_controls_as_escapes() -> None:
    """Worker processes (``python -m arena.tournament.worker``) write their warnings to the
    organiser's terminal; a warning may quote a bot's label or error."""
    hostile = "bot x@1\x1b]0;pwned\x07\x9b2J\u202e done"
    script = (
        "import logging, sys\n"
        "from arena.tournament import worker\n"
        "getattr(worker, sys.argv[1])() if sys.argv[1] != 'plain' else logging.basicConfig()\n"
        f"logging.getLogger('arena.referee.lobby').warning({hostile!r})\n"
    )
    for how in ("configure_logging", "plain"):
        done = subprocess.run(
            [sys.executable, "-c", script, how],
            capture_output=True, text=True, check=False, timeout=60, cwd=ROOT,
        )  # fmt: skip
        raw = any(c in done.stderr for c in ("\x1b", "\x07", "\x9b", "\u202e"))
        if how == "plain":
            assert raw, done.stderr  # control: plain logging lets them through
        else:
            assert done.returncode == 0, done.stderr
            assert not raw and "\\x1b]0;pwned\\x07\\x9b2J\\u202e" in done.stderr
