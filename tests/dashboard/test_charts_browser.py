"""The Statistics heatmap and the Rating history chart are drawn in a real browser.

``AppTest`` sees only the Vega-Lite spec; whether Vega draws it is the browser's to say.
The case this guards: text coloured by a literal nominal field layered on cells coloured by
a quantitative scale, sharing one colour scale, made Vega draw nothing at all (a 0 x 0
chart, no error on the page) until the layers' colour scales were resolved apart
(measured 2026-11-28). Screenshots go to ``test-artifacts/dashboard/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.dashboard.helpers import served_dashboard
from tests.dashboard.seed import Seeded

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "dashboard"


def drawn_size(page: Any) -> tuple[float, float]:
    """The first chart's drawn size, once Vega has put a canvas or an SVG in it."""
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    chart.locator("canvas, svg").first.wait_for()
    box = chart.bounding_box()
    assert box is not None
    return box["width"], box["height"]


def test_the_heatmap_and_the_rating_history_are_drawn(
    page: Any, seeded: Seeded, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with served_dashboard(seeded.url, tmp_path / "data", tmp_path / "dashboard.log") as url:
        page.goto(f"{url}/statistics?tournament=main")
        page.get_by_role("heading", name="Statistics").wait_for()
        width, height = drawn_size(page)
        # 4 bots: 4 rows of 30 px and 4 columns of 44 px, plus names, legend and axes.
        assert width >= 4 * 44 and height >= 4 * 30, (width, height)
        page.screenshot(path=str(ARTIFACTS / "charts-heatmap.png"), full_page=True)
        page.goto(f"{url}/rating_history?tournament=main")
        page.get_by_role("heading", name="Rating history").wait_for()
        width, height = drawn_size(page)
        assert width >= 300 and height >= 300, (width, height)
        page.get_by_text("Rating (μ − 3σ)").first.wait_for()  # noqa: RUF001
        page.screenshot(path=str(ARTIFACTS / "charts-rating-history.png"), full_page=True)
