"""Participant text made literal for Streamlit's Markdown.

Streamlit renders Markdown in ``st.markdown``, captions, headers, alerts and widget labels
(radio options, expander titles, ...), with extensions: LaTeX (``$``), colour and badge
directives (``:red[...]``), Material icons (``:material/x:``), emoji shortcodes and GFM
autolinks. Text that a bot author or an organiser chose (bot names and versions, fault
details quoting bot output, tournament names) must show as itself there: no image that
every spectator's browser fetches, no link, no formula, colour, icon or emoji.

Two layers, because Streamlit's frontend transforms some things after the Markdown parser
has resolved backslash escapes:

* Markdown syntax is backslash-escaped (CommonMark escapes any ASCII punctuation).
* Shortcodes (``:smile:``, ``:material/x:``, ``:streamlit:``) and GFM autolinks
  (``https://``, ``www.``, ``a@b.org``) are found in the *unescaped* text, so there an
  invisible WORD JOINER (U+2060) breaks the pattern instead.

Characters that cannot start any syntax where they stand are left alone (``random_bot``,
``1.0.0+build``, ``table(s)``, ``--seed 42``, ``name: detail``), so ordinary text reads and
compares the same. (Streamlit's typographic arrows and dashes, ``->`` and `` -- `` between
spaces, are not escapable; they only change how text looks.) The result is meant to be
interpolated between spaces or punctuation: never glue it directly after a ``:`` or before
a letter or digit in a template.
"""

from __future__ import annotations

import re
import string
from typing import Final

JOINER: Final = "\u2060"
"""WORD JOINER: invisible and unbreakable; splits shortcodes and autolinks."""

_ALWAYS: Final = frozenset("\\`*[]<>!&|~${}#")
"""Syntax wherever it stands: escapes, code, emphasis, links and images, HTML, entities,
tables, strikethrough, LaTeX, directive attributes, headings."""
_LINE_BREAKS: Final = re.compile(r"\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")
_LIST_MARKER: Final = re.compile(r"\s*\d{1,9}[.)](?=\s|$)")
_EMAIL_DOMAIN: Final = re.compile(r"[-\w]+(?:\.[-\w]+)+", re.ASCII)
"""What GFM links as an e-mail domain after ``@`` (unless it ends in ``-``, ``_`` or a digit)."""


def md(text: str) -> str:
    """*text* as Markdown source that Streamlit shows literally, on one line.

    Line breaks become spaces: a line start is where lists, headings, quotes and tables
    begin, and one line is all a label or an inline mention needs.
    """
    flat = _LINE_BREAKS.sub(" ", text)
    first = len(flat) - len(flat.lstrip())  # where the (only) line starts
    marker = _LIST_MARKER.match(flat)
    line_syntax = {first, marker.end() - 1} if marker else {first}
    return "".join(_literal(flat, i, i in line_syntax) for i in range(len(flat)))


def _literal(text: str, i: int, line_syntax: bool) -> str:
    """The source for ``text[i]``; *line_syntax*: it may start a list or a thematic break
    (the line's first character, or the ``.`` of ``1.``)."""
    char = text[i]
    if char == ":":
        # Directives, icons, emoji and URL schemes all need a non-space after a colon.
        return char if _next_is_space(text, i) else f"{JOINER}\\:{JOINER}"
    if char in _ALWAYS or (line_syntax and char in string.punctuation):
        return "\\" + char
    if char == "_":  # emphasis, except inside a word
        return char if _inside_word(text, i) else "\\" + char
    if char == "." and text[max(0, i - 3) : i].lower() == "www":
        return JOINER + char
    if char == "@" and _email_domain_follows(text, i):
        return char + JOINER
    return char


def _inside_word(text: str, i: int) -> bool:
    """True when both neighbours are letters or digits (``random_bot``, ``1.0-rc``)."""
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


def _next_is_space(text: str, i: int) -> bool:
    return i + 1 < len(text) and text[i + 1].isspace()


def _email_domain_follows(text: str, i: int) -> bool:
    """True when GFM would link ``...@`` + what follows as an e-mail address."""
    domain = _EMAIL_DOMAIN.match(text, i + 1)
    return domain is not None and domain.group()[-1] not in "-_0123456789"


def code(text: str) -> str:
    """*text* as an inline code span, which Markdown shows literally (no escapes needed):
    its fence is one backtick longer than any run of backticks inside."""
    flat = _LINE_BREAKS.sub(" ", text)
    fence = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"
