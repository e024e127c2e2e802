"""Empty cells, shown one way on every page: an em dash, never ``None``.

Streamlit's tables show a missing value as the word "None" unless told otherwise, and
pages used to mix "None", "-" and blank cells for the same thing (an entrant still in a
ladder has no "left at", a bot with no games has no rating). Every table goes through
:func:`table`, which shows missing values as :data:`EMPTY` and keeps numeric columns
numeric (sortable, aligned); text built outside a table uses :func:`text`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

import pandas as pd
import streamlit as st

EMPTY: Final = "—"
"""What a missing value shows as (an em dash), in tables and in text."""

T = TypeVar("T")


def text(value: T | None, show: Callable[[T], str] = str) -> str:
    """*value* shown with *show*, or :data:`EMPTY` when it is ``None``."""
    return EMPTY if value is None else show(value)


def table(data: pd.DataFrame, **options: Any) -> None:
    """``st.dataframe(data, **options)``, missing values shown as :data:`EMPTY`, without the
    index unless *options* say otherwise."""
    options.setdefault("hide_index", True)
    st.dataframe(data, placeholder=EMPTY, **options)
