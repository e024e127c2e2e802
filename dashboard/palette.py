"""The dashboard's one set of chart colours, and the rule for text drawn on a coloured cell.

**Bots** (:data:`BOT_COLOURS`, every chart that colours by bot): 20 colours that people with
any of the three colour-vision deficiencies can still tell apart, none too pale for the
white chart background (the dashboard runs Streamlit's light theme). Published 20-colour
lists fail one of the two: Kelly's colours of maximum contrast, Trubetskoy's 20 and the
paired category20/tableau20 each hold a pair that a protanope sees as one colour, and
yellows or pastels that vanish on white. So the list is Okabe and Ito's colour-blind-safe
blue, vermillion and bluish green (Okabe & Ito 2008, *Color Universal Design*,
https://jfly.uni-koeln.de/color/) extended by Glasbey's greedy max-min rule (Glasbey, van
der Heijde & Fisher 2007, *Colour displays for categorical images*, Color Res. Appl.
32(4)), the distance being the smallest CAM02-UCS difference under normal vision and
simulated deuteranopia, protanopia and tritanopia (Machado, Oliveira & Fernandes 2009);
``scripts/gen_palette.py`` derives it and prints its figures, tests/dashboard/
test_palette.py checks them (docs/dashboard.md). Greedy order means the first *n* colours
are the most distinct *n*, so a small tournament gets the clearest ones.

A bot's colour follows its place in the tournament's entrant order (:func:`bot_scale`),
never the current sort or selection, so it keeps its colour on every chart and every visit.

**Signed cells** (:data:`DIVERGING`): ColorBrewer's RdBu (Brewer, colorbrewer2.org; the
scheme Vega calls ``redblue``), colour-blind safe, white at zero. Its stops are given here,
interpolated in RGB by both Vega and :func:`diverging_colour`, so the page knows each cell's
colour and :func:`ink_on` can pick black or white text with WCAG contrast of at least 4.5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import altair as alt

BOT_COLOURS: Final = (
    "#0072B2", "#D55E00", "#009E73", "#4A313A", "#8C2900", "#10317B", "#63636B", "#8C8CA5",
    "#0000F7", "#B573FF", "#734A42", "#9C6342", "#085A7B", "#632119", "#C519A5", "#A54A00",
    "#6B9C4A", "#3A3A52", "#847B84", "#A552E6",
)  # fmt: skip
"""Categorical colours for up to 20 bots; a 21st bot starts the list again."""

DIVERGING: Final = (
    "#67001F", "#B2182B", "#D6604D", "#F4A582", "#FDDBC7", "#F7F7F7",
    "#D1E5F0", "#92C5DE", "#4393C3", "#2166AC", "#053061",
)  # fmt: skip
"""ColorBrewer RdBu, 11 classes: red for negative, white at zero, blue for positive."""

BLACK: Final = "#000000"
WHITE: Final = "#FFFFFF"
MIN_TEXT_CONTRAST: Final = 4.5
"""WCAG 2.1 SC 1.4.3, normal text: what every cell label must reach."""


def bot_scale(entrants: Sequence[str]) -> alt.Scale:
    """The colour scale of every chart by bot: entrant *i* gets colour *i* (mod 20)."""
    return alt.Scale(
        domain=list(entrants),
        range=[BOT_COLOURS[i % len(BOT_COLOURS)] for i in range(len(entrants))],
    )


def diverging_domain(largest: float) -> list[float]:
    """Where :data:`DIVERGING`'s stops sit for values in ``[-largest, largest]``."""
    half = max(abs(largest), 1e-9) if math.isfinite(largest) else 1.0
    steps = len(DIVERGING) - 1
    return [-half + 2 * half * i / steps for i in range(len(DIVERGING))]


def diverging_scale(largest: float) -> alt.Scale:
    """RdBu centred on zero, interpolated in RGB exactly as :func:`diverging_colour` does."""
    return alt.Scale(
        domain=diverging_domain(largest), range=list(DIVERGING), interpolate="rgb", clamp=True
    )


def diverging_colour(value: float, largest: float) -> str:
    """The colour Vega paints *value* with :func:`diverging_scale` (*largest*)."""
    domain = diverging_domain(largest)
    if not math.isfinite(value):
        return DIVERGING[len(DIVERGING) // 2]
    value = min(max(value, domain[0]), domain[-1])
    for i in range(len(domain) - 1):
        if value <= domain[i + 1]:
            share = (value - domain[i]) / (domain[i + 1] - domain[i])
            low, high = _rgb(DIVERGING[i]), _rgb(DIVERGING[i + 1])
            mixed = (a + (b - a) * share for a, b in zip(low, high, strict=True))
            return "#" + "".join(f"{round(c):02X}" for c in mixed)
    return DIVERGING[-1]


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def relative_luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of a ``#rrggbb`` colour."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2.1 contrast ratio, 1 to 21."""
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def ink_on(fill: str) -> str:
    """Black or white, whichever reads better on *fill* (always at least 4.58:1)."""
    return BLACK if contrast_ratio(BLACK, fill) >= contrast_ratio(WHITE, fill) else WHITE
