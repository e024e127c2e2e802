"""Dashboard speed on a big database: standings, rating history and a replay at 100,000 games.

Why: the dashboard reads the same database the runner fills, and a long tournament stores
hundreds of thousands of games. The pages must stay quick because their queries use the
narrow ``game_seat`` and ``rating_snapshot`` tables (SQL sums, thinned histories) and load
at most one game record, and because results are cached per data version.

1. **Build** a database with ``--games`` stored games (default 100,000, rounded to whole
   boards of a 4-bot round robin within the schedule limit: 99,984) quickly: 48 real records (the 24 table/seating slots x 2
   deal variants, played in-process by the built-in policies) are reused under every
   schedule index and written with ``executemany`` together with their ``game_seat`` rows;
   ratings are rated per game (the worst case: one snapshot per bot per game, 300,000
   rows), with synthetic values, since only their number matters for reading.
2. **Render** each page with Streamlit's ``AppTest`` (the real page scripts, queries and
   caches, without a browser): the first run (cold caches: queries run) and then
   ``--repeat`` runs with warm caches (the case the goal is about: each under 1 s). For the
   replay, warm runs rerun the page (a step no longer reruns it: the viewer steps in the
   browser, benchmarks/replay_step.py).
3. **Queries** alone, cold (no Streamlit cache), for context.
4. With ``--browser`` (needs Debian's chromium and playwright): the same pages in headless
   Chromium against ``arena dashboard``, from navigation (or the "Next" click) until the
   content is on screen, warm.

Figures are reported, not asserted. Run: ``python benchmarks/dashboard.py [--games 100000]
[--repeat 5] [--db URL] [--keep] [--browser] [--json]``; to compare two versions of the
code on the same data, build once with ``--db sqlite:///F`` (a --db database is never
removed) and time each version with ``--db sqlite:///F --reuse``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine, insert, text  # noqa: E402

from arena import storage  # noqa: E402
from arena.game.record import game_record  # noqa: E402
from arena.game.rules import PRESETS  # noqa: E402
from arena.replay.steps import build_replay  # noqa: E402
from arena.storage.database import open_database  # noqa: E402
from arena.storage.models import Game, GameSeat, Rating, RatingSnapshot  # noqa: E402
from arena.tournament.formats import MAX_GAMES, get_format  # noqa: E402
from tests.dashboard.helpers import free_port, wait_for_url  # noqa: E402
from tests.dashboard.seed import BOTS, manifest, play  # noqa: E402

APP = ROOT / "dashboard" / "app.py"
CHUNK = 5000


def build(url: str, games: int) -> tuple[Engine, int, float]:
    """A database with *games* stored games; ``(engine, tournament id, seconds)``."""
    start = time.perf_counter()
    engine = open_database(url)
    ids = []
    for name, _ in BOTS:
        version, _ = storage.add_bot_version(
            engine, manifest(name), f"{hash(name) & 0xFFFF:064x}", f"/bots/{name}"
        )
        ids.append(storage.row_id(version))
    labels = {v: f"{n}@1.0" for (n, _), v in zip(BOTS, ids, strict=True)}
    fmt = get_format("round_robin")
    per_board = len(fmt.schedule(len(ids), 1, 0))
    # Whole boards, within the schedule limit (100,000 is just past 4,166 boards of 24).
    boards = min(math.ceil(games / per_board), MAX_GAMES // per_board)
    schedule = fmt.schedule(len(ids), boards, 7)
    tournament = storage.create_tournament(
        engine,
        name="bench",
        ruleset="classic",
        rules_json=json.dumps(PRESETS["classic"].to_json()),
        time_control="decision=1000,bank=10000,grace=50,startup=10000",
        boards=boards,
        seed=7,
        rating_mode="game",
        entries=ids,
        games_total=len(schedule),
    )
    tid = storage.row_id(tournament)
    templates = _templates(schedule[: 2 * per_board], ids, labels)
    now = datetime.now(UTC)
    rng = random.Random(1)
    drift = {b: rng.uniform(-6, 6) for b in ids}
    played = dict.fromkeys(ids, 0)
    game_rows: list[dict[str, Any]] = []
    seat_rows: list[dict[str, Any]] = []
    snapshot_rows: list[dict[str, Any]] = []

    def flush() -> None:
        with engine.begin() as connection:
            if game_rows:
                connection.execute(insert(Game.__table__), game_rows)  # type: ignore[arg-type]
            if seat_rows:
                connection.execute(insert(GameSeat.__table__), seat_rows)  # type: ignore[arg-type]
            if snapshot_rows:
                connection.execute(insert(RatingSnapshot.__table__), snapshot_rows)  # type: ignore[arg-type]
        game_rows.clear()
        seat_rows.clear()
        snapshot_rows.clear()

    for game in schedule:
        record, record_text = templates[
            (game.table_index, game.seating_index, game.board_index % 2)
        ]
        seats = [ids[e] for e in game.entrants]
        game_id = game.schedule_index + 1
        game_rows.append(_game_row(game, tid, seats, record, record_text, now))
        for seat, bot in enumerate(seats):
            seat_rows.append(_seat_row(record, game_id, seat, bot))
            played[bot] += 1
            snapshot_rows.append(
                _snapshot(tid, bot, game.schedule_index, played[bot], drift[bot], rng)
            )
        if len(game_rows) >= CHUNK:
            flush()
    flush()
    with engine.begin() as connection:
        connection.execute(
            insert(Rating.__table__),  # type: ignore[arg-type]
            [
                {**_snapshot(tid, bot, schedule[-1].schedule_index, played[bot], drift[bot], rng),
                 "rated_through": schedule[-1].schedule_index}
                for bot in ids
            ],
        )  # fmt: skip
        if engine.dialect.name == "postgresql":
            connection.execute(
                text("SELECT setval(pg_get_serial_sequence('game', 'id'), :n)"),
                {"n": len(schedule)},
            )
        connection.execute(text("ANALYZE"))
    storage.set_status(engine, tid, "finished")
    return engine, tid, time.perf_counter() - start


def reuse(url: str) -> tuple[Engine, int, float]:
    """The database an earlier run built at *url*, as it is (no build time)."""
    engine = open_database(url)
    return engine, storage.row_id(storage.get_tournament(engine, "bench")), 0.0


def _templates(
    first_boards: list[Any], ids: list[int], labels: dict[int, str]
) -> dict[tuple[int, int, int], tuple[dict[str, Any], str]]:
    """Real records for each (table, seating, board) slot of the first boards."""
    templates = {}
    for game in first_boards:
        seats = [ids[e] for e in game.entrants]
        state = play("classic", game.seed, game.first_dealer, [BOTS[e][1] for e in game.entrants])
        record = game_record(state, [labels[s] for s in seats])
        templates[(game.table_index, game.seating_index, game.board_index)] = (
            record,
            json.dumps(record, separators=(",", ":")),
        )
    return templates


def _game_row(
    game: Any, tid: int, seats: list[int], record: dict[str, Any], text_: str, now: datetime
) -> dict[str, Any]:
    """The ``game`` row of a scheduled game whose record is *record*."""
    result = record["result"]
    return {
        "id": game.schedule_index + 1,
        "tournament_id": tid,
        "schedule_index": game.schedule_index,
        "table_index": game.table_index,
        "board_index": game.board_index,
        "seating_index": game.seating_index,
        "seed": game.seed,
        "seats": json.dumps(seats),
        "winners": json.dumps(result["winners"]),
        "reason": result["reason"],
        "scores": json.dumps(result["scores"]),
        "hands_played": result["hands_played"],
        "fault_count": 0,
        "record": text_,
        "created_at": now,
    }


def _seat_row(record: dict[str, Any], game_id: int, seat: int, bot: int) -> dict[str, Any]:
    """The ``game_seat`` row of one seat, as ``record_game`` derives it."""
    result = record["result"]
    ranked = sorted(result["scores"], reverse=True)
    counts = {c: [0, 0] for c in (9, 5, 2)}
    for hand in record["hands"]:
        contract = hand["contracts"][seat]
        counts[contract][0] += 1
        counts[contract][1] += hand["tricks_won"][seat] >= contract
    return {
        "game_id": game_id,
        "seat": seat,
        "bot_version_id": bot,
        "score": result["scores"][seat],
        "rank": ranked.index(result["scores"][seat]),
        "won": seat in result["winners"],
        "faulted": False,
        "hands_9": counts[9][0],
        "made_9": counts[9][1],
        "hands_5": counts[5][0],
        "made_5": counts[5][1],
        "hands_2": counts[2][0],
        "made_2": counts[2][1],
    }


def _snapshot(
    tid: int, bot: int, index: int, games: int, drift: float, rng: random.Random
) -> dict[str, Any]:
    """A synthetic rating snapshot: mu drifts away from 25, sigma shrinks with games."""
    return {
        "tournament_id": tid,
        "bot_version_id": bot,
        "schedule_index": index,
        "mu": 25 + drift * (1 - math.exp(-games / 200)) + rng.gauss(0, 0.3),
        "sigma": max(0.8, 25 / 3 / math.sqrt(1 + games / 15)),
        "games": games,
    }


def timed(function: Callable[[], Any]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def render(url: str, repeat: int, middle_game: int) -> dict[str, dict[str, float]]:
    """AppTest timings per page: the cold first run and the warm runs."""
    os.environ["ARENA_DB"] = url
    from streamlit.testing.v1 import AppTest  # noqa: PLC0415  (after ARENA_DB is set)

    figures: dict[str, dict[str, float]] = {}
    for page in ("standings", "rating_history", "replays"):
        app = AppTest.from_file(str(APP), default_timeout=600)
        app.query_params["tournament"] = "bench"
        if page == "replays":
            app.query_params["game"] = str(middle_game)
        if page == "standings":  # the default page: the first run is its cold render
            cold = timed(app.run)
        else:
            app.run()  # the router's first run lands on the default page
            cold = timed(lambda page=page, app=app: app.switch_page(f"views/{page}.py").run())  # type: ignore[misc]
        assert not app.exception, [e.value for e in app.exception]
        warm = []
        for _ in range(repeat):
            warm.append(timed(lambda app=app: app.run()))  # type: ignore[misc]
            assert not app.exception, [e.value for e in app.exception]
        figures[page] = {
            "cold_s": cold,
            "warm_median_s": statistics.median(warm),
            "warm_max_s": max(warm),
        }
    return figures


def raw_queries(engine: Engine, tid: int, game_id: int) -> dict[str, float]:
    """Cold query times (no Streamlit cache)."""
    return {
        "tournaments": timed(lambda: storage.tournament_overview(engine)),
        "progress": timed(lambda: storage.progress(engine, tid)),
        "standings": timed(lambda: storage.standings(engine, tid)),
        "rating_history": timed(lambda: storage.rating_history(engine, tid)),
        "head_to_head": timed(lambda: storage.head_to_head(engine, tid)),
        "contract_stats": timed(lambda: storage.contract_stats(engine, tid)),
        "record_stats_2000": timed(lambda: storage.record_stats(engine, tid, 2000)),
        "games_page_100": timed(lambda: storage.game_page(engine, tid, start=50_000, limit=100)),
        "game_record": timed(lambda: storage.game_record(engine, game_id)),
        "build_replay": timed(lambda: build_replay(storage.game_record(engine, game_id))),
    }


def browser(url: str, repeat: int, middle_game: int, data: Path) -> dict[str, float]:
    """Warm page times in headless Chromium against ``arena dashboard``."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (optional)

    port = free_port()
    data.mkdir(parents=True, exist_ok=True)
    log = data / "dashboard.log"
    with log.open("w") as out:  # a file: a pipe nobody reads would fill and block the server
        server = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "dashboard", "--db", url, "--data", str(data),
             "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    wait_for_url(server, log)
    base = f"http://127.0.0.1:{port}"
    figures: dict[str, float] = {}
    try:
        with sync_playwright() as playwright:
            chrome = playwright.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                      "--no-first-run", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync"],
            )  # fmt: skip
            tab = chrome.new_page(viewport={"width": 1500, "height": 1100})
            tab.set_default_timeout(600_000)
            pages = {
                "standings": ("/?tournament=bench", "Standings", "[data-testid='stDataFrame']"),
                "rating_history": (
                    "/rating_history?tournament=bench",
                    "Rating history",
                    "[data-testid='stVegaLiteChart']",
                ),
                "replays": (
                    f"/replays?tournament=bench&game={middle_game}",
                    "Replays",
                    "iframe",  # the replay viewer (arena.viewer)
                ),
            }
            for name, (path, _, selector) in pages.items():
                times = []
                for _ in range(repeat + 1):  # the first load warms the server's caches
                    start = time.perf_counter()
                    tab.goto(base + path)
                    tab.locator(selector).first.wait_for()
                    times.append(time.perf_counter() - start)
                figures[f"{name}_fresh_load_s"] = statistics.median(times[1:])
            # Moving between pages within one session (the sidebar links).
            clicks: dict[str, list[float]] = {name: [] for name in pages}
            for _ in range(repeat):
                for name, (_, title, selector) in pages.items():
                    start = time.perf_counter()
                    tab.get_by_role("link", name=title).click()
                    tab.get_by_role("heading", name=title).wait_for()
                    tab.locator(selector).first.wait_for()
                    clicks[name].append(time.perf_counter() - start)
            for name, times in clicks.items():
                figures[f"{name}_navigate_s"] = statistics.median(times)
            steps = []
            for number in range(2, repeat + 2):
                start = time.perf_counter()
                viewer = tab.frame_locator("iframe").first
                viewer.get_by_role("button", name="Next").click()
                viewer.get_by_text(f"Step {number} of").wait_for()
                steps.append(time.perf_counter() - start)
            figures["replays_next_step_s"] = statistics.median(steps)
            chrome.close()
    finally:
        server.send_signal(2)
        server.wait(timeout=30)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", help="database URL (default: a SQLite file in a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the SQLite file")
    parser.add_argument("--browser", action="store_true", help="also time pages in Chromium")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="time the database at --db as it is (built by an earlier run), so two versions "
        "of the code can be compared on the same data",
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="arena-bench-dash-"))
    url = args.db or f"sqlite:///{workdir / 'arena.db'}"
    if args.reuse and not args.db:
        parser.error("--reuse needs --db")
    engine, tid, build_s = reuse(url) if args.reuse else build(url, args.games)
    stored = storage.progress(engine, tid).stored
    middle = stored // 2
    report: dict[str, Any] = {
        "games": stored,
        "database": engine.dialect.name,
        "build_s": build_s,
        "queries_cold_s": raw_queries(engine, tid, middle),
        "pages": render(url, args.repeat, middle),
    }
    if engine.dialect.name == "sqlite" and not args.db:
        report["database_mb"] = (workdir / "arena.db").stat().st_size / 2**20
    if args.browser:
        report["browser"] = browser(url, args.repeat, middle, workdir / "data")
    engine.dispose()
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{stored} games on {report['database']}, built in {build_s:.1f} s"
              + (f", {report['database_mb']:.0f} MB" if "database_mb" in report else ""))  # fmt: skip
        print(
            "\nPage render (AppTest: page script, queries, caches)      cold      warm median  warm max"
        )
        for page, f in report["pages"].items():
            print(
                f"  {page:<54} {f['cold_s']:7.3f} s  {f['warm_median_s']:7.3f} s  {f['warm_max_s']:7.3f} s"
            )
        print("\nQueries alone, cold")
        for name, seconds in report["queries_cold_s"].items():
            print(f"  {name:<20} {seconds:7.3f} s")
        if args.browser:
            print("\nHeadless Chromium, warm (median)")
            for name, seconds in report["browser"].items():
                print(f"  {name:<24} {seconds:7.3f} s")
        goal = all(f["warm_median_s"] < 1 for f in report["pages"].values())
        print(f"\nGoal (each page under 1 s with warm caches): {'met' if goal else 'NOT met'}")
    if args.keep and not args.db:
        print(f"kept {workdir / 'arena.db'}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
