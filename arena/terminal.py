"""Text that bots, bot authors and other users chose, made safe to print on a terminal.

A terminal obeys the control sequences in what it is given: ESC starts CSI and OSC
sequences (clear the screen, set the window title, a hidden hyperlink), the C1 controls
U+0080-U+009F do the same in one character on terminals that read 8-bit controls, and the
Unicode bidi controls reorder what the reader sees (Trojan Source). Bots write such text
(stderr, fault details, names, versions, manifests) and it reaches terminals: the CLI's
output (:mod:`arena.cli.terminal` adds Rich markup on top of this module) and the log lines
of the tournament's worker processes.

A control is replaced by a visible escape (``\\x1b``, ``\\u202e``), never dropped: the
organiser still sees what the bot printed, and a bot cannot hide a character by making it
invisible. Backslashes are left as they are, so a bot that prints the four characters
``\\x1b`` looks like one that printed ESC: that costs nothing, since neither reaches the
terminal as a control. Standard library only, so every layer may use it.
"""

from __future__ import annotations

import logging
import re
from typing import Final

CONTINUATION: Final = "  | "
"""The start of every further line of a multi-line text. Newlines stay, because a
multi-line stderr tail or build error reads far better on several lines; but the arena's
own lines never start with this, so a bot cannot print a line that passes for one of the
arena's (``no faults: the bot speaks the protocol...``) after its own output."""

_UNSAFE: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline (CR included), DEL, C1
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides, isolates
    "\u2028\u2029]"  # line and paragraph separators: some terminals and viewers break lines there
)
_NAMED: Final = {"\r": "\\r"}
"""Escapes read more easily by name; every other control is shown by its code point."""


def _visible(match: re.Match[str]) -> str:
    """The visible escape of one unsafe character: ``\\r``, ``\\x1b`` or ``\\u202e``."""
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def safe_text(text: str, continuation: str = CONTINUATION) -> str:
    """*text* with every terminal control shown as a visible escape, for plain output
    (``click.echo``, a log line, Rich with ``markup=False``).

    Tabs and newlines stay (a CRLF is one newline; a lone CR, which would move the cursor
    back over the arena's own words, becomes ``\\r``). Every line after the first starts
    with *continuation* (:data:`CONTINUATION`), so bot text never begins a line of its own.
    """
    lines = _UNSAFE.sub(_visible, text.replace("\r\n", "\n")).split("\n")
    return "\n".join([lines[0], *(continuation + line if line else line for line in lines[1:])])


class SafeLogFormatter(logging.Formatter):
    """A formatter whose final line (message, and any traceback) is :func:`safe_text`: a
    warning may quote a bot's output or a name its author chose."""

    def format(self, record: logging.LogRecord) -> str:
        return safe_text(super().format(record))
