"""Play page latency: the time from a person's answer to the next decision asked of them.

Why: on the Play page (docs/play.md) a person waits, after each click, for the referee to
take the answer from the database and for the two bots to reply before the table asks
again. This plays whole games of ``--ruleset`` with the real runner
(:func:`arena.play.runner.play_game`: the referee, two sandboxed bot processes) against
``builtin:pimc`` and ``heuristic_bot`` (sample_bots/heuristic_bot, stored here), while a
simulated page answers every decision with a random legal choice the moment it is asked,
through the same storage call the page makes (:func:`arena.storage.play_games.give_answer`).
It reports, per decision, the time from the answer written to the next decision asked
(or the game's end): the database hand-over both ways plus the bots' replies. The browser
adds its own refresh (the table redraws every 0.5 s): ``tests/play/test_play_browser.py``
prints the end-to-end figure, click to the next decision on screen, and
``--browser-figures`` prints the figures its last run wrote.

Figures are reported, not asserted. Run: ``python benchmarks/play_latency.py [--games 1]
[--ruleset classic] [--browser-figures]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import storage  # noqa: E402
from arena.accounts import admin  # noqa: E402
from arena.play.runner import play_game  # noqa: E402
from arena.protocol.grpc_env import configure_grpc  # noqa: E402
from arena.storage import play_games  # noqa: E402
from arena.storage.database import open_database  # noqa: E402
from arena.submission import submit_bot  # noqa: E402
from arena.tournament.house import house_version  # noqa: E402
from tests.migrated_sqlite import migrated_sqlite_url  # noqa: E402

BROWSER_FIGURES = ROOT / "test-artifacts" / "play" / "latency.json"


def _choice(pending: dict[str, Any], hand: list[str], rng: random.Random) -> str:
    """A random legal answer to *pending*, as the page would write it."""
    kind = pending["kind"]
    if kind == "play":
        return f"play {rng.choice(pending['cards'])}"
    if kind == "trump":
        return f"trump {rng.choice(pending['trump_options'])}"
    if kind == "discard":
        return "discard " + " ".join(rng.sample(pending["cards"], pending["discard_count"]))
    pool = list(hand)
    rng.shuffle(pool)
    legs = []
    for _seat, count in pending["give_legs"]:
        legs.append(" ".join(pool[:count]))
        pool = pool[count:]
    return "give " + " | ".join(legs)


def _page(engine: Any, game_id: int, person: Any, gaps: list[float], stop: threading.Event) -> None:
    """The simulated page: answer each decision at once; time answer -> next decision."""
    rng = random.Random(952)
    answered_at: float | None = None
    last_no = 0
    while not stop.is_set():
        game = play_games.get_play_game(engine, game_id)
        assert game is not None
        if game.status in ("finished", "failed"):
            if answered_at is not None:
                gaps.append(time.perf_counter() - answered_at)
            return
        if game.pending is not None and game.request_no > last_no:
            now = time.perf_counter()
            if answered_at is not None:
                gaps.append(now - answered_at)
            pending = json.loads(game.pending)
            hand = json.loads(game.view or "{}").get("hand", [])
            last_no = game.request_no
            answered_at = time.perf_counter()
            play_games.give_answer(engine, game_id, person, last_no, _choice(pending, hand, rng))
        time.sleep(0.005)


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (
        f"median {statistics.median(values) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {max(values) * 1000:.0f} ms over {len(values)} decisions"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--browser-figures", action="store_true")
    args = parser.parse_args()
    if args.browser_figures:
        if not BROWSER_FIGURES.exists():
            sys.exit(
                f"no figures yet: run pytest tests/play/test_play_browser.py (writes {BROWSER_FIGURES})"
            )
        seconds = json.loads(BROWSER_FIGURES.read_text())["seconds"]
        print(f"browser, click to the next decision on screen: {_ms(seconds)}")
        return
    import os  # noqa: PLC0415

    configure_grpc(os.environ)
    with tempfile.TemporaryDirectory(prefix="play-latency-") as scratch:
        folder = Path(scratch)
        engine = open_database(migrated_sqlite_url(folder / "arena.db"))
        data = folder / "data"
        admin.add_user(
            engine, storage.actor(engine), "bench", "participant", must_change_password=False
        )
        person = storage.actor(engine, "bench")
        house_version(engine, "builtin:pimc", data)
        submit_bot(engine, ROOT / "sample_bots" / "heuristic_bot", data, submitter=person)
        gaps: list[float] = []
        for _ in range(args.games):
            game_id = play_games.create_play_game(
                engine,
                person,
                opponents=["builtin:pimc", "heuristic_bot"],
                ruleset=args.ruleset,
                seat=0,
                decision_seconds=300,
            )
            stop = threading.Event()
            page = threading.Thread(target=_page, args=(engine, game_id, person, gaps, stop))
            page.start()
            started = time.perf_counter()
            status = asyncio.run(play_game(engine, game_id, data))
            stop.set()
            page.join()
            game = play_games.get_play_game(engine, game_id)
            assert game is not None
            print(
                f"game {game_id}: {status} in {time.perf_counter() - started:.1f} s: {game.message}"
            )
        print(
            f"answer written to the next decision asked (builtin:pimc, heuristic_bot): {_ms(gaps)}"
        )
        engine.dispose()


if __name__ == "__main__":
    main()
