"""How long a bot author's loop takes on a hosted arena, with no organiser in it.

The loop (tests/dashboard/author_loop.py, which the browser test of the same name drives
too): a fresh arena that takes invitations, with an open ladder of three house bots played
by a following ``arena tournament run --follow``; in headless Chromium, a visitor signs up
with an invitation code, uploads a bot as a zip (manifest, build and smoke game), the bot
enters the open ladder by itself and plays its first ladder game; the author queues a test
match against ``builtin:greedy`` (played by the queue runner the dashboard starts) and opens
its replay; then reads the bot's logs on My bots and downloads a game's record.

Reported per run, in seconds: sign-up to the stored bot, sign-up to the bot's first stored
ladder game, and the test match's request to its replay being drawn. Figures are reported,
never asserted. Run: ``python benchmarks/author_loop.py [--runs 3] [--json]``. Needs
Debian's chromium and playwright (``make venv`` installs playwright).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.dashboard.author_loop import hosted_arena, run_author_loop  # noqa: E402
from tests.dashboard.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402


def one_run() -> dict[str, float]:
    """One loop on a fresh arena; its timings."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    with (
        tempfile.TemporaryDirectory(prefix="arena-author-loop-") as folder,
        hosted_arena(Path(folder)) as hosted,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(accept_downloads=True).new_page()
            page.set_default_timeout(300_000)
            return run_author_loop(page, hosted, lambda name: None).timings
        finally:
            browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="loops, each on a fresh arena")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    runs = [one_run() for _ in range(options.runs)]
    summary: dict[str, dict[str, float | list[float]]] = {}
    for step in runs[0]:
        values = [r[step] for r in runs]
        summary[step] = {"median": statistics.median(values), "runs": values}
    if options.json:
        print(json.dumps(summary, indent=2))
    else:
        for step in runs[0]:
            values = [r[step] for r in runs]
            shown = ", ".join(f"{value:.1f}" for value in values)
            print(f"{step}: median {statistics.median(values):.1f} s ({shown})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
