"""Derive and check the dashboard's categorical palette (:mod:`dashboard.palette`).

Run ``python scripts/gen_palette.py`` to print the palette and its figures; the test
(tests/dashboard/test_palette.py) runs :func:`separations` on the shipped colours and on a
paired control (category20), and checks that :func:`search` still gives the shipped list.

Why a search and not a published 20-colour list as is: Kelly's 20 colours, Trubetskoy's 20
and category20/tableau20 all hold pairs that a protanope or deuteranope sees as one colour
(CAM02-UCS distance about 0.5 to 1.1 under Machado et al. 2009's full-severity simulation),
and each has yellows or pastels that vanish on a white chart. So the palette starts from
Okabe and Ito's colour-blind-safe set (Okabe & Ito 2008, "Color Universal Design",
https://jfly.uni-koeln.de/color/) less its colours too pale for white, and extends it with
Glasbey's greedy max-min rule (Glasbey, van der Heijde & Fisher 2007, "Colour displays for
categorical images", Color Research & Application 32(4)): each next colour is the candidate
whose smallest distance to the colours already chosen is largest, the distance being the
smallest CAM02-UCS difference under normal vision and simulated deuteranopia, protanopia
and tritanopia (Machado, Oliveira & Fernandes 2009, as implemented by colorspacious).
Candidates must keep a WCAG 2.1 non-text contrast of 3:1 to 12:1 on white (SC 1.4.11 asks
3:1; above 12:1 is near-black), white being the only chart background: the dashboard runs Streamlit's light theme (arena/cli/dashboard.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Final

import colorspacious  # type: ignore[import-untyped]
import numpy as np

VISIONS: Final = ("normal", "deuteranomaly", "protanomaly", "tritanomaly")
"""Normal vision and the three dichromacies (severity 100: the strongest form)."""
OKABE_ITO_ON_WHITE: Final = ("#0072B2", "#D55E00", "#009E73")
"""Okabe-Ito's blue, vermillion and bluish green: its colours with 3:1 on white (black is
left out with the near-blacks, below)."""
MIN_CONTRAST_ON_WHITE: Final = 3.0
MAX_CONTRAST_ON_WHITE: Final = 12.0
"""No near-black: dark lines differ mostly in lightness, which a thin line shows worst."""
GRID_STEPS: Final = 32
"""Candidates: a 32^3 grid over sRGB."""


def to_rgb(colours: Sequence[str]) -> Any:
    """``#rrggbb`` strings as an (n, 3) array in 0..1."""
    return np.array([[int(c[i : i + 2], 16) / 255 for i in (1, 3, 5)] for c in colours])


def to_hex(rgb: Any) -> str:
    return "#" + "".join(f"{round(float(v) * 255):02X}" for v in rgb)


def perceived(rgb: Any, vision: str) -> Any:
    """CAM02-UCS coordinates of sRGB colours as seen with *vision*."""
    if vision != "normal":
        space = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}
        rgb = np.clip(colorspacious.cspace_convert(rgb, space, "sRGB1"), 0, 1)
    return colorspacious.cspace_convert(rgb, "sRGB1", "CAM02-UCS")


def contrast_on_white(rgb: Any) -> Any:
    """WCAG 2.1 contrast ratio of each colour against white."""
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])
    return 1.05 / (luminance + 0.05)


def separations(colours: Sequence[str]) -> dict[str, tuple[float, str, str]]:
    """Per vision, the smallest pairwise CAM02-UCS distance and the pair that has it."""
    rgb = to_rgb(colours)
    result: dict[str, tuple[float, str, str]] = {}
    for vision in VISIONS:
        seen = perceived(rgb, vision)
        result[vision] = min(
            (float(np.linalg.norm(seen[i] - seen[j])), colours[i], colours[j])
            for i, j in itertools.combinations(range(len(colours)), 2)
        )
    return result


def search(size: int = 20) -> list[str]:
    """Okabe-Ito's colours that suit white, extended by Glasbey's max-min rule to *size*."""
    axis = np.linspace(0, 1, GRID_STEPS)
    grid = np.array(list(itertools.product(axis, axis, axis)))
    contrast = contrast_on_white(grid)
    grid = grid[(contrast >= MIN_CONTRAST_ON_WHITE) & (contrast <= MAX_CONTRAST_ON_WHITE)]
    seeds = to_rgb(OKABE_ITO_ON_WHITE)
    seen_grid = [perceived(grid, v) for v in VISIONS]
    seen_seeds = [perceived(seeds, v) for v in VISIONS]
    # nearest[k]: each candidate's distance to its nearest chosen colour, worst vision.
    nearest = np.full(len(grid), np.inf)
    for grid_v, seeds_v in zip(seen_grid, seen_seeds, strict=True):
        for seed in seeds_v:
            nearest = np.minimum(nearest, np.linalg.norm(grid_v - seed, axis=1))
    chosen = list(OKABE_ITO_ON_WHITE)
    while len(chosen) < size:
        best = int(np.argmax(nearest))
        chosen.append(to_hex(grid[best]))
        for grid_v in seen_grid:
            nearest = np.minimum(nearest, np.linalg.norm(grid_v - grid_v[best], axis=1))
    return chosen


if __name__ == "__main__":
    found = search()
    print(found)
    for vision, (distance, a, b) in separations(found).items():
        print(f"{vision:14} min CAM02-UCS distance {distance:5.1f} ({a} vs {b})")
    print("min contrast on white", round(float(contrast_on_white(to_rgb(found)).min()), 2))
