"""The Play page's table (docs/play.md): the script and style of its Streamlit component.

``play.js`` draws the person's seat from the view and pending decision it is given
(:mod:`arena.play.view`) and sends back the choice; ``play.css`` sits on top of the card
table's one style sheet (:func:`arena.viewer.table_css`). Package data, read here.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from arena.viewer import table_css


@cache
def play_js() -> str:
    """The component's ES module (its default export draws the table)."""
    return files("arena.viewer").joinpath("play.js").read_text(encoding="utf-8")


@cache
def play_css() -> str:
    """The card table's style and the Play page's own."""
    return table_css() + files("arena.viewer").joinpath("play.css").read_text(encoding="utf-8")
