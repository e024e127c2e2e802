"""The dashboard's charts by bot, built from plain frames so tests can build them at any size.

Both keep every bot's full name (Vega's ``labelLimit`` 0: no cut, however long) and colour
by :mod:`dashboard.palette`: a bot's colour comes from its place among the tournament's
entrants, so it is the same on every chart whatever is chosen or sorted.
"""

# ruff: noqa: RUF001, RUF002  (Greek mu, sigma and the minus sign are shown on screen)

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import altair as alt
import pandas as pd

from dashboard import palette

CELL_WIDTH: Final = 44
"""Pixels per heatmap column: room for "+12.3" at 12 px; 20 columns and full names on
the rows still fit a 1500-pixel window beside the sidebar."""
CELL_HEIGHT: Final = 30
"""Pixels per heatmap row: a 12 px label with air above and below."""
LABEL_SIZE: Final = 12
LINE_WIDTH: Final = 3
"""Pixels: thick enough to see a line's colour, and to hover it."""
RATING: Final = "Rating (μ − 3σ)"
"""The one label of the conservative rating, the leaderboard key."""
MU_BAND: Final = "μ with a ±σ band"


def head_to_head(matrix: pd.DataFrame, entrants: Sequence[str]) -> alt.LayerChart:
    """Head to head as a grid readable at 20 bots.

    *matrix* has columns bot, opponent, mean, games, low, high (one row per ordered pair).
    Full names on both axes, fixed steps per row and column (the chart grows rather than
    squashes), RdBu centred on zero, each cell's text black or white by that cell's own
    colour (:func:`dashboard.palette.ink_on`), rows and columns in entrant order.
    """
    largest = float(matrix["mean"].abs().max()) if not matrix.empty else 1.0
    matrix = matrix.assign(
        ink=[palette.ink_on(palette.diverging_colour(m, largest)) for m in matrix["mean"]]
    )
    present = set(matrix["bot"]) | set(matrix["opponent"])
    order = [e for e in entrants if e in present] + sorted(present - set(entrants))
    # Slanted labels never touch (the steps are wider than a line of text), but Vega's
    # overlap test sees their upright bounding boxes and would drop most names: off.
    across = alt.Axis(
        labelAngle=-40,
        labelAlign="right",
        labelLimit=0,
        labelOverlap=False,
        labelFontSize=LABEL_SIZE,
    )
    down = alt.Axis(labelLimit=0, labelFontSize=LABEL_SIZE)  # untitled: a title would sit on them
    base = alt.Chart(matrix).encode(
        x=alt.X("opponent:N", title="column: opponent", sort=order, axis=across),
        y=alt.Y("bot:N", title=None, sort=order, axis=down),
    )
    heat = base.mark_rect(stroke="white", strokeWidth=1).encode(
        color=alt.Color(
            "mean:Q",
            title="points/game, row − column",
            scale=palette.diverging_scale(largest),
            legend=alt.Legend(format="+.1f", orient="top", gradientLength=240, titleLimit=0),
        ),
        tooltip=[
            "bot:N",
            "opponent:N",
            alt.Tooltip("mean:Q", format="+.2f"),
            alt.Tooltip("low:Q", format="+.2f", title="95% CI low"),
            alt.Tooltip("high:Q", format="+.2f", title="95% CI high"),
            "games:Q",
        ],
    )
    text = base.mark_text(baseline="middle", fontSize=LABEL_SIZE).encode(
        text=alt.Text("mean:Q", format="+.1f"), color=alt.Color("ink:N", scale=None)
    )
    # The text's colours are literal (no scale): resolved apart from the cells' RdBu, or
    # Vega fails to draw a colour scale both quantitative and nominal (and draws nothing).
    grid: alt.LayerChart = (
        (heat + text)
        .resolve_scale(color="independent")
        .properties(width=alt.Step(CELL_WIDTH), height=alt.Step(CELL_HEIGHT))
    )
    return grid


def rating_history(frame: pd.DataFrame, entrants: Sequence[str], shown: str) -> alt.Chart:
    """Lines over games played: the rating (μ − 3σ) if *shown* is :data:`RATING`, else μ
    with a ±σ band. *frame* has columns bot, games, rating, mu, low, high, sigma."""
    x = alt.X("games:Q", title="games played")
    legend = alt.Legend(
        labelLimit=0,
        labelFontSize=LABEL_SIZE,
        symbolType="stroke",
        symbolStrokeWidth=LINE_WIDTH,
        symbolSize=300,
    )
    colour = alt.Color("bot:N", title="bot", scale=palette.bot_scale(entrants), legend=legend)
    tooltip = [
        "bot:N",
        "games:Q",
        alt.Tooltip("rating:Q", format=".2f", title=RATING),
        alt.Tooltip("mu:Q", format=".2f", title="μ"),
        alt.Tooltip("sigma:Q", format=".2f", title="σ"),
    ]
    plotted = "rating" if shown == RATING else "mu"
    line = (
        alt.Chart(frame)
        .mark_line(strokeWidth=LINE_WIDTH)
        .encode(x=x, y=alt.Y(f"{plotted}:Q", title=shown), color=colour, tooltip=tooltip)
    )
    if shown == RATING:
        chart: alt.Chart = line.interactive().properties(height=_height(entrants))
        return chart
    band = (
        alt.Chart(frame)
        .mark_area(opacity=0.15)
        .encode(x=x, y=alt.Y("low:Q", title=shown), y2="high:Q", color=colour)
    )
    layered: alt.Chart = (band + line).interactive().properties(height=_height(entrants))
    return layered


def _height(entrants: Sequence[str]) -> int:
    """Tall enough for the legend's every entry (Vega clips a legend to the plot's height)."""
    return max(350, 24 * len(entrants) + 60)
