"""Replay viewer speed: the time per step in Chromium, and the size of a game's frames.

Why: the Replays page used to rerun the Streamlit script for every Next click (1 to 1.6 s
a step). The viewer (arena.viewer) draws a whole game in the browser from frames
computed once (arena.replay.frames), so a step should cost under 50 ms; and since every
step of every view is sent at once, the payload must stay small.

1. **Build** a game of the built-in policies with at least ``--hands`` hands (default 10:
   the first seed from 1 that plays that long), its frames (timed) and the viewer page, as
   ``arena replay ID --html`` writes it; or take an exported page with ``--html FILE``.
2. **Size**: the frames' JSON (raw and gzipped, as a compressing server sends it) and the
   whole page.
3. **Step** in headless Chromium (Debian's /usr/bin/chromium, offline): ``--steps`` Next
   clicks timed inside the page with ``performance.now()``: from the click to the end of
   its layout (script, DOM and style), and to the next animation frame (when the browser
   can paint it; at least one frame, about 16 ms, by construction), after 20 untimed
   clicks to warm up. Then Back, and seat view switches, the same way.

Figures are reported, not asserted. Run: ``python benchmarks/replay_step.py [--hands 10]
[--steps 200] [--html FILE] [--json]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.game.record import game_record  # noqa: E402
from arena.game.rules import PRESETS  # noqa: E402
from arena.replay.frames import frames_json  # noqa: E402
from arena.replay.steps import build_replay  # noqa: E402
from arena.simulate import make_policies, play_game  # noqa: E402
from arena.viewer import viewer_html  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
POLICIES = ["greedy", "random", "greedy"]

MEASURE = """async ([button, count]) => {
  // Click *button* *count* times; per click the time to the end of layout and to the
  // next animation frame, in ms.
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const layout = [], painted = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    document.querySelector(button).click();
    void document.body.offsetHeight;  // style and layout now
    layout.push(performance.now() - start);
    await frame();
    painted.push(performance.now() - start);
  }
  return {layout, painted};
}"""

VIEWS = """async (count) => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const layout = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    document.getElementById("view-" + ["a", "0", "1", "2"][i % 4]).click();
    void document.body.offsetHeight;
    layout.push(performance.now() - start);
    await frame();
  }
  return layout;
}"""


def long_game(hands: int) -> dict[str, Any]:
    """The first game from seed 1 up that lasts at least *hands* hands."""
    for seed in range(1, 500):
        state = play_game(PRESETS["classic"], seed, make_policies(POLICIES, seed))
        if len(state.history) >= hands:
            return game_record(state, [f"{n}@1" for n in POLICIES], [])
    raise SystemExit(f"no game of {hands} hands in 500 seeds")


def summary(values: list[float]) -> dict[str, float]:
    """Median, 95th percentile and maximum, in ms."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(p95, 2),
        "max_ms": round(ordered[-1], 2),
    }


def in_chromium(page_file: Path, steps: int) -> dict[str, Any]:
    """Step timings of the viewer page *page_file* in headless Chromium, offline."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (optional dev tool)

    with sync_playwright() as playwright:
        chrome = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        context = chrome.new_context(viewport={"width": 1500, "height": 1100})
        context.set_offline(True)
        tab = context.new_page()
        start = time.perf_counter()
        tab.goto(page_file.as_uri())
        tab.wait_for_selector("[data-card]")
        load = time.perf_counter() - start
        last = int(tab.evaluate("document.getElementById('slider').max"))
        tab.evaluate(MEASURE, ["#next", 20])  # warm up: the first draws compile the script
        tab.evaluate("document.getElementById('slider').value = 0")
        tab.dispatch_event("#slider", "input")
        count = min(steps, last)
        forward = tab.evaluate(MEASURE, ["#next", count])
        back = tab.evaluate(MEASURE, ["#back", min(50, count)])
        views = tab.evaluate(VIEWS, 40)
        chrome.close()
    return {
        "page_load_s": round(load, 3),
        "steps_in_game": last + 1,
        "next_clicks": count,
        "next_to_layout": summary(forward["layout"]),
        "next_to_next_frame": summary(forward["painted"]),
        "back_to_layout": summary(back["layout"]),
        "view_switch_to_layout": summary(views),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--hands", type=int, default=10, help="the game's length (default 10)")
    parser.add_argument("--steps", type=int, default=200, help="Next clicks (default 200)")
    parser.add_argument("--html", type=Path, help="an exported viewer page to time instead")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        if args.html is not None:
            page_file = args.html
            found = re.search(
                r'<script type="application/json" id="frames">(.*?)</script>',
                page_file.read_text(encoding="utf-8"),
                re.S,
            )
            frames = found.group(1) if found else ""
        else:
            record = long_game(args.hands)
            replay = build_replay(record)
            start = time.perf_counter()
            frames = frames_json(replay)
            figures["frames_build_s"] = round(time.perf_counter() - start, 3)
            figures["hands"] = len(record["hands"])
            page_file = Path(folder) / "game.html"
            page_file.write_text(viewer_html(frames, title="benchmark game"), encoding="utf-8")
        raw = frames.encode("utf-8")
        figures["frames_json_bytes"] = len(raw)
        figures["frames_json_gzip_bytes"] = len(gzip.compress(raw))
        figures["page_bytes"] = page_file.stat().st_size
        figures.update(in_chromium(page_file, args.steps))
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        for key, value in figures.items():
            print(f"{key:24} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
