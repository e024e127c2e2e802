"""The Statistics heatmap and the Rating history chart as a visitor gets them (Streamlit's
``AppTest`` on the seeded database), and both charts built at 20 long names: the palette on
every chart, full names, readable cell text, and "rating" saying what it means."""

# ruff: noqa: RUF001, RUF003  (the labels on screen use the Greek mu, sigma and minus sign)

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from arena import storage
from dashboard import charts, palette
from tests.dashboard.seed import Seeded

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
ENTRANTS = ("alpha@1.0", "bravo@1.0", "charlie@1.0", "delta@1.0")
"""The seeded tournament's entrants, in entrant order."""


@pytest.fixture
def page(seeded: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """``page(name)``: the app on one page of tournament ``main``."""
    monkeypatch.setenv("ARENA_DB", seeded.url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))

    def open_page(name: str) -> AppTest:
        app = AppTest.from_file(str(APP), default_timeout=120)
        app.query_params["tournament"] = "main"
        app.run()
        app.switch_page(f"views/{name}.py").run()
        assert not app.exception, [e.value for e in app.exception]
        return app

    yield open_page


def chart(app: AppTest) -> tuple[dict[str, Any], pd.DataFrame]:
    """The page's first chart: its Vega-Lite spec and its data."""
    element = app.get("vega_lite_chart")[0].proto
    data = pa.ipc.open_stream(element.datasets[0].data.data).read_pandas()
    return json.loads(element.spec), data


def layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    layered: list[dict[str, Any]] = spec.get("layer", [spec])
    return layered


def axes_keep_full_names(encoding: dict[str, Any]) -> None:
    for channel in ("x", "y"):
        limit = encoding[channel].get("axis", {}).get("labelLimit")
        assert limit == 0, (channel, limit)  # 0: Vega never cuts the label


def test_the_heatmap_shows_full_names_readable_cells_and_a_centred_scale(page: Any) -> None:
    spec, data = chart(page("statistics"))
    rect, text = layers(spec)
    for layer in (rect, text):
        axes_keep_full_names(layer["encoding"])
        assert layer["encoding"]["x"]["sort"] == list(ENTRANTS)
        assert layer["encoding"]["y"]["sort"] == list(ENTRANTS)
    assert rect["encoding"]["x"]["axis"]["labelAngle"] == -40
    assert spec["height"] == {"step": charts.CELL_HEIGHT} and charts.CELL_HEIGHT >= 24
    scale = rect["encoding"]["color"]["scale"]
    assert scale["range"] == list(palette.DIVERGING)
    assert scale["interpolate"] == "rgb"
    assert scale["domain"][5] == 0 and scale["domain"][0] == -scale["domain"][-1]
    # Each cell's text colour is the one that reads on that cell's colour.
    assert text["encoding"]["color"] == {"field": "ink", "scale": None, "type": "nominal"}
    largest = scale["domain"][-1]
    for mean, ink in zip(data["mean"], data["ink"], strict=True):
        fill = palette.diverging_colour(mean, largest)
        assert ink == palette.ink_on(fill)
        assert palette.contrast_ratio(ink, fill) >= palette.MIN_TEXT_CONTRAST
    # The strongest pair sits at the scale's end, dark red or blue: white text.
    assert set(data.loc[data["mean"].abs() == largest, "ink"]) == {palette.WHITE}


def test_rating_history_plots_the_rating_in_the_bots_own_colours(page: Any, seeded: Seeded) -> None:
    app = page("rating_history")
    spec, _data = chart(app)
    (line,) = layers(spec)
    assert line["mark"]["strokeWidth"] >= 2.5
    assert line["encoding"]["y"]["title"] == "Rating (μ − 3σ)"
    colour = line["encoding"]["color"]
    assert colour["scale"]["domain"] == list(ENTRANTS)
    assert colour["scale"]["range"] == list(palette.BOT_COLOURS[: len(ENTRANTS)])
    assert colour["legend"]["labelLimit"] == 0
    # The table names the rating and μ apart, and the rating is μ − 3σ.
    table = app.dataframe[0].value
    assert list(table.columns) == ["Bot", "Games", "Rating (μ − 3σ)", "μ", "σ"]
    current = {r.bot: r for r in storage.standings(seeded.engine, seeded.tournament_id)}
    for bot, rating in zip(table["Bot"], table["Rating (μ − 3σ)"], strict=True):
        assert rating == pytest.approx(current[bot].conservative)
    assert list(table["Bot"]) == [r.bot for r in current.values()]  # standings order
    # Leaving a bot out moves no other bot's colour (control: the scale is not the choice).
    app.multiselect[0].unselect("alpha@1.0").run()
    after = layers(chart(app)[0])[0]["encoding"]["color"]["scale"]
    assert after == colour["scale"]
    # μ with its band is labelled μ, never "rating".
    app.radio[0].set_value(charts.MU_BAND).run()
    band, mu_line = layers(chart(app)[0])
    assert mu_line["encoding"]["y"] == {
        "field": "mu",
        "title": "μ with a ±σ band",
        "type": "quantitative",
    }
    assert "rating" not in json.dumps(band["encoding"]["y"]).lower()


LONG_NAMES = [f"a-very-long-bot-name-number-{i:02d}-of-twenty@1.0.{i}" for i in range(20)]


def test_twenty_long_names_keep_their_full_names_and_own_colours() -> None:
    pairs = [(a, b) for a in LONG_NAMES for b in LONG_NAMES if a != b]
    matrix = pd.DataFrame(
        {
            "bot": [a for a, _ in pairs],
            "opponent": [b for _, b in pairs],
            "mean": [(i % 41 - 20) / 2 for i in range(len(pairs))],
            "games": [6] * len(pairs),
            "low": [0.0] * len(pairs),
            "high": [0.0] * len(pairs),
        }
    )
    heat = charts.head_to_head(matrix, LONG_NAMES).to_dict()
    for layer in heat["layer"]:
        axes_keep_full_names(layer["encoding"])
    assert heat["height"] == {"step": charts.CELL_HEIGHT}  # grows with rows: never squashed
    frame = pd.DataFrame(
        {"bot": LONG_NAMES, "games": [1] * 20, "rating": [0.0] * 20, "mu": [25.0] * 20,
         "low": [17.0] * 20, "high": [33.0] * 20, "sigma": [8.0] * 20}
    )  # fmt: skip
    line = charts.rating_history(frame, LONG_NAMES, charts.RATING).to_dict()
    colour = line["encoding"]["color"]
    assert colour["legend"]["labelLimit"] == 0
    assert colour["scale"]["range"] == list(palette.BOT_COLOURS)
