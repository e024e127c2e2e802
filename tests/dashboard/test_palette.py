"""The dashboard's colours: bots told apart under normal vision and each dichromacy, no line
too pale for the white chart, and cell text that reads on its cell (docs/dashboard.md).

Every check has a control that fails it: the paired category20 for the palette, fixed black
text for the cells, a sorted subset for the colour order.
"""

from __future__ import annotations

import pytest

from dashboard import palette
from scripts import gen_palette

MIN_SEPARATION = 8.0
"""CAM02-UCS distance every pair of the 20 colours keeps under each vision (docs/dashboard.md;
the palette has 9.1 at worst, under protanopia)."""
MIN_CONTRAST_ON_WHITE = 3.0
"""WCAG 2.1 SC 1.4.11 (graphics): a line must reach 3:1 against the white chart."""
CATEGORY20 = (
    "#1F77B4", "#AEC7E8", "#FF7F0E", "#FFBB78", "#2CA02C", "#98DF8A", "#D62728", "#FF9896",
    "#9467BD", "#C5B0D5", "#8C564B", "#C49C94", "#E377C2", "#F7B6D2", "#7F7F7F", "#C7C7C7",
    "#BCBD22", "#DBDB8D", "#17BECF", "#9EDAE5",
)  # fmt: skip
"""Vega's category20 (d3's, Tableau's pale/dark pairs): the scheme the trial found vanishing."""


def worst_separation(colours: tuple[str, ...]) -> float:
    return min(distance for distance, _a, _b in gen_palette.separations(colours).values())


def test_the_palette_has_twenty_different_colours() -> None:
    assert len(palette.BOT_COLOURS) == 20
    assert len({c.upper() for c in palette.BOT_COLOURS}) == 20


@pytest.mark.parametrize("vision", gen_palette.VISIONS)
def test_every_pair_stays_apart_under_each_vision(vision: str) -> None:
    distance, a, b = gen_palette.separations(palette.BOT_COLOURS)[vision]
    assert distance >= MIN_SEPARATION, (vision, a, b)


def test_control_a_paired_scheme_fails_the_same_check() -> None:
    separations = gen_palette.separations(CATEGORY20)
    assert min(d for d, _a, _b in separations.values()) < MIN_SEPARATION
    distance, _a, _b = separations["protanomaly"]
    assert distance < 2  # a protanope sees one of its pairs as a single colour


def test_every_line_stands_out_on_white_and_the_pale_pairs_do_not() -> None:
    for colour in palette.BOT_COLOURS:
        assert palette.contrast_ratio(colour, palette.WHITE) >= MIN_CONTRAST_ON_WHITE, colour
    pale = [c for c in CATEGORY20 if palette.contrast_ratio(c, palette.WHITE) < 3]
    assert len(pale) >= 10  # the control: every pale half of category20's pairs


def test_the_script_still_derives_the_shipped_palette() -> None:
    assert tuple(gen_palette.search()) == palette.BOT_COLOURS


def test_a_bot_keeps_its_colour_whatever_else_is_shown() -> None:
    entrants = [f"bot-{i}" for i in range(25)]
    scale = palette.bot_scale(entrants).to_dict()
    colour = dict(zip(scale["domain"], scale["range"], strict=True))
    assert [colour[f"bot-{i}"] for i in range(20)] == list(palette.BOT_COLOURS)
    assert colour["bot-20"] == palette.BOT_COLOURS[0]  # the 21st starts the list again
    # Control: colouring by the bots shown (here sorted) would move bot-3's colour.
    shown = sorted(["bot-3", "bot-17"], reverse=True)
    assert palette.bot_scale(shown).to_dict()["range"][1] != colour["bot-3"]


def test_the_diverging_scale_is_white_at_zero_and_hits_its_stops() -> None:
    assert palette.diverging_colour(0.0, 5.0) == "#F7F7F7"
    domain = palette.diverging_domain(5.0)
    assert domain[0] == -5.0 and domain[-1] == 5.0 and domain[5] == 0.0
    for value, stop in zip(domain, palette.DIVERGING, strict=True):
        assert palette.diverging_colour(value, 5.0) == stop
    assert palette.diverging_colour(99.0, 5.0) == palette.DIVERGING[-1]  # clamped
    assert palette.diverging_colour(float("nan"), 5.0) == "#F7F7F7"


def test_cell_text_reads_on_every_cell_colour() -> None:
    values = [i / 100 for i in range(-500, 501)]
    for value in values:
        fill = palette.diverging_colour(value, 5.0)
        assert palette.contrast_ratio(palette.ink_on(fill), fill) >= palette.MIN_TEXT_CONTRAST
    assert palette.ink_on(palette.DIVERGING[0]) == palette.WHITE  # darkest red
    assert palette.ink_on(palette.DIVERGING[-1]) == palette.WHITE  # darkest blue
    assert palette.ink_on(palette.DIVERGING[5]) == palette.BLACK  # white-ish zero
    # Control: the old fixed black text fails on the dark ends.
    assert palette.contrast_ratio(palette.BLACK, palette.DIVERGING[0]) < 4.5
    assert palette.contrast_ratio(palette.BLACK, palette.DIVERGING[-1]) < 4.5


def test_contrast_ratio_matches_wcag_reference_values() -> None:
    assert palette.contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert palette.contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
