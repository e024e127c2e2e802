"""The replay viewer: one self-contained HTML page that draws a stored game in the browser.

The page gets a whole game's frames (:mod:`arena.replay.frames`, computed once on the
server by the observer) and steps, goes back, autoplays and switches the seat view in
JavaScript, with no request to anyone: the dashboard's Replays page embeds it in an
iframe, and ``arena replay ID --html FILE`` writes it to a file that works offline
(docs/replays.md). Its template, script and style are package data (``viewer.html``,
``viewer.js``, ``viewer.css``), read here: this package does I/O, :mod:`arena.replay`
stays pure.

Bot text is hostile: the frames are embedded as JSON with ``<``, ``>``, ``&`` and the
line separators U+2028/U+2029 escaped (no ``</script>`` breaks out), the title is
HTML-escaped, and the script draws every text with ``textContent``. The page's
Content-Security-Policy allows no network request at all.
"""

from __future__ import annotations

import json
import re
from functools import cache
from html import escape
from importlib.resources import files
from typing import Final

_MARKER: Final = re.compile(r"@@(TITLE|CSS|JS|FRAMES|OPTIONS)@@")
_JSON_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_JSON_UNSAFE: Final = re.compile("[<>&\u2028\u2029]")


def script_safe_json(text: str) -> str:
    """JSON text made safe inside an HTML ``<script>`` element: no ``</script>`` or
    ``<!--`` can end or bend it, and it parses to the same value (each replaced character
    becomes its ``\\u`` escape, which is only valid inside JSON strings, where they are)."""
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


@cache
def _asset(name: str) -> str:
    """One of the viewer's package files (read once a process: they never change)."""
    return files(__name__).joinpath(name).read_text(encoding="utf-8")


def table_css() -> str:
    """The card table's style sheet (``table.css``): the one source of how a card, a seat
    and a trick look, in the viewer and on the dashboard's own tables
    (``dashboard/render.py``)."""
    return _asset("table.css")


def viewer_html(
    frames_json: str, *, start_step: int = 0, title: str, sync_parent_url: bool = False
) -> str:
    """The viewer as ONE HTML document, the game's frames inside it.

    *frames_json* is :func:`arena.replay.frames.frames_json`'s text; *start_step* the step
    shown first (clamped to the game); *title* plain text (a player's name may be in it);
    *sync_parent_url* makes the viewer keep ``?step=`` in the URL of the page embedding
    it (the dashboard), so that a copied link opens the same step.
    """
    options = json.dumps(
        {"start_step": max(0, start_step), "title": title, "sync_parent_url": sync_parent_url}
    )
    parts = {
        "TITLE": escape(title),
        "CSS": table_css() + _asset("viewer.css"),
        "JS": _asset("viewer.js"),
        "FRAMES": script_safe_json(frames_json),
        "OPTIONS": script_safe_json(options),
    }
    # One pass: an inserted part is never searched for markers itself.
    return _MARKER.sub(lambda m: parts[m.group(1)], _asset("viewer.html"))


__all__ = ["script_safe_json", "table_css", "viewer_html"]
