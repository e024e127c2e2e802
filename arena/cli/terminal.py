"""Text that bots, bot authors and other users chose, shown safely by the command line.

The command line prints text it did not write: a crashing bot's stderr and fault details,
bot names, versions and manifest fields, tournament and user names, and error and log
messages that quote any of these. :func:`safe_text` (from :mod:`arena.terminal`) shows
every terminal control in it as a visible escape; here are what Rich adds: :func:`safe_markup`
(the same, with ``[...]`` shown literally, never read as markup), :class:`Hanging` (a
wrapped line that bot text cannot make pass for one of the arena's own), and
:func:`safe_logging` for the CLI's log lines. Every place the CLI prints such text uses
one of them: the one way it shows bot-authored text.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import escape
from rich.text import Text

from arena.terminal import CONTINUATION, SafeLogFormatter, safe_text

__all__ = [
    "CONTINUATION",
    "Hanging",
    "SafeLogFormatter",
    "safe_logging",
    "safe_markup",
    "safe_text",
]


def safe_markup(text: str, continuation: str = CONTINUATION) -> str:
    """:func:`safe_text` for a Rich console or table cell: its ``[...]`` is shown as it is,
    never read as markup (a version ``[clk]`` used to vanish, a stderr ``[/x]`` to crash
    Rich), while the arena's own markup around it keeps working."""
    return escape(safe_text(text, continuation))


@dataclass(frozen=True)
class Hanging:
    """A line of the arena's markup holding bot text, printed with a hanging indent: Rich
    wraps a long line to the console's width (80 columns in a log or a pipe), and a bot
    could pad its text so that its own words start the next line, where they would pass
    for one of the arena's. Here every wrapped line starts with *indent* spaces."""

    markup: str
    indent: int = 4

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width - self.indent)
        lines = console.render_str(self.markup).wrap(console, width)
        for number, line in enumerate(lines):
            yield Text.assemble(" " * self.indent, line) if number else line


class _StderrNowHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is when a record comes, like logging's own
    last-resort handler (which the CLI used before), so a replaced stderr (a test's capture)
    gets the line."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # logging's own rule: a failed log line never raises
            self.handleError(record)


@contextlib.contextmanager
def safe_logging() -> Iterator[None]:
    """While the CLI runs: WARNING and above on stderr as ``%(message)s`` lines (what
    Python printed with no logging configured), each made safe by
    :class:`SafeLogFormatter`. The handler is removed afterwards, so a caller that runs the
    CLI in its own process (tests, a script) keeps its own logging as it was."""
    handler = _StderrNowHandler(logging.WARNING)
    handler.setFormatter(SafeLogFormatter("%(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
