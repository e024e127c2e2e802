"""Hundreds of honest viewers of one dashboard: page times and server memory.

Why: a public competition's dashboard is watched by many people at once. Every open tab is
a Streamlit session on the server (a websocket, a script run per page, state kept), and a
page is a script run in the server's one Python process. The goal (issue 35): 300 open
sessions, of which 20 navigate at once (a new page every few seconds, for a minute), with
a p95 page time under 1.5 s and the server's memory under 2 GB.

Method: Streamlit's own websocket protocol (``/_stcore/stream``, the protobuf ``BackMsg``
and ``ForwardMsg`` the browser exchanges), as benchmarks/dashboard_flood.py does, not
headless Chromium: 300 Chromium tabs would need more memory and CPU than the server under
test on a 2-core machine, and would measure the browsers. A page time here is the server's
side of a page: from the ``rerun_script`` message (what a sidebar click sends) until the
run's ``script_finished``, every delta received; drawing in a browser comes on top
(benchmarks/dashboard.py ``--browser`` measures it for one viewer).

1. Start ``arena dashboard`` on ``--db`` (a database built by benchmarks/dashboard.py:
   tournament ``bench``; default: build one of ``--games`` games in a temp dir).
2. Open ``--sessions`` sessions on the Standings page, spread over loopback addresses
   127.0.1.x (``--per-address`` each: honest viewers are many clients, each within the
   per-visitor limits of arena/web/limits.py), and keep them open.
3. ``--navigators`` of them then switch page every 2-4 s (random, over Standings, Rating
   history, Statistics, Replays, Tournaments, Bots) for ``--seconds``; every page time
   is kept. The server's resident memory is sampled every second.
4. With ``--store-every S``, meanwhile a writer stores one more game every S seconds
   through ``record_game`` (a running tournament): every stored game changes the data
   version the pages cache by, so the next page of each kind runs its queries cold.

Figures are reported, not asserted. Run: ``python benchmarks/viewers.py [--db URL]
[--games 100000] [--sessions 300] [--navigators 20] [--seconds 60] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from websockets.asyncio.client import ClientConnection  # noqa: E402
from websockets.asyncio.client import connect as aconnect  # noqa: E402

from tests.dashboard.helpers import free_port, wait_for_url  # noqa: E402

PAGES = ("Standings", "Rating history", "Statistics", "Replays", "Tournaments", "Bots")
QUERY = "tournament=bench"
GIVE_UP_S = 120.0


def _rerun(page_hash: str = "", page_name: str = "") -> bytes:
    message = BackMsg()
    message.rerun_script.query_string = QUERY
    message.rerun_script.page_script_hash = page_hash
    message.rerun_script.page_name = page_name
    return message.SerializeToString()


class Viewer:
    """One open dashboard session (a browser tab, as the server sees it)."""

    def __init__(self, stream: ClientConnection) -> None:
        self.stream = stream
        self.pages: dict[str, tuple[str, str]] = {}
        """Page title -> (script hash, url path), from the server's navigation message."""

    async def run_page(self, page_hash: str = "", page_name: str = "") -> float:
        """Ask for a page; seconds until its script run finished."""
        start = time.perf_counter()
        await self.stream.send(_rerun(page_hash, page_name))
        while True:
            frame = ForwardMsg()
            left = GIVE_UP_S - (time.perf_counter() - start)
            raw = await asyncio.wait_for(self.stream.recv(), timeout=max(left, 0.1))
            frame.ParseFromString(raw)  # type: ignore[arg-type]
            kind = frame.WhichOneof("type")
            if kind == "navigation":
                for page in frame.navigation.app_pages:
                    self.pages[page.page_name] = (page.page_script_hash, page.url_pathname)
            elif kind == "new_session":
                for page in frame.new_session.app_pages:
                    self.pages.setdefault(
                        page.page_name, (page.page_script_hash, page.url_pathname)
                    )
            elif kind == "script_finished":
                return time.perf_counter() - start

    async def drain(self, stop: asyncio.Event) -> None:
        """Read (and drop) what the server sends an idle session, until *stop*."""
        while not stop.is_set():
            try:
                await asyncio.wait_for(self.stream.recv(), timeout=1.0)
            except TimeoutError:
                continue
            except Exception:
                return


async def _open(url: str, address: str) -> tuple[Viewer, float]:
    stream = await aconnect(
        url.replace("http://", "ws://") + "/_stcore/stream",
        subprotocols=["streamlit"],  # type: ignore[list-item]
        additional_headers={"Origin": url},
        open_timeout=GIVE_UP_S,
        local_addr=(address, 0),
        max_size=None,
    )
    viewer = Viewer(stream)
    return viewer, await viewer.run_page()


async def _watch(
    url: str, sessions: int, per_address: int, navigators: int, seconds: float
) -> dict[str, Any]:
    rng = random.Random(35)
    viewers: list[Viewer] = []
    first_pages: list[float] = []
    failures = 0
    opened_at = time.perf_counter()
    # Open in waves of one session per address, so no client passes its new-session rate.
    addresses = [f"127.0.1.{1 + n}" for n in range(-(-sessions // per_address))]
    while len(viewers) + failures < sessions:
        wave = addresses[: sessions - len(viewers) - failures]
        results = await asyncio.gather(
            *(_open(url, address) for address in wave), return_exceptions=True
        )
        for result in results:
            if isinstance(result, BaseException):
                failures += 1
            else:
                viewers.append(result[0])
                first_pages.append(result[1])
    open_s = time.perf_counter() - opened_at
    stop = asyncio.Event()
    movers, idle = viewers[:navigators], viewers[navigators:]
    drains = [asyncio.create_task(v.drain(stop)) for v in idle]
    times: dict[str, list[float]] = {page: [] for page in PAGES}
    deadline = time.monotonic() + seconds

    async def navigate(viewer: Viewer) -> None:
        while time.monotonic() < deadline:
            await asyncio.sleep(rng.uniform(2.0, 4.0))
            page = rng.choice(PAGES)
            page_hash, path = viewer.pages.get(page, ("", ""))
            times[page].append(await viewer.run_page(page_hash, path))

    await asyncio.gather(*(navigate(v) for v in movers))
    stop.set()
    await asyncio.gather(*drains)
    for viewer in viewers:
        await viewer.stream.close()
    every = sorted(t for page in times.values() for t in page)
    return {
        "sessions_open": len(viewers),
        "sessions_refused": failures,
        "open_all_s": open_s,
        "first_page_p50_s": statistics.median(first_pages) if first_pages else None,
        "first_page_p95_s": _percentile(sorted(first_pages), 95),
        "navigations": len(every),
        "page_p50_s": _percentile(every, 50),
        "page_p95_s": _percentile(every, 95),
        "page_max_s": every[-1] if every else None,
        "per_page_p95_s": {page: _percentile(sorted(t), 95) for page, t in times.items()},
        "per_page_count": {page: len(t) for page, t in times.items()},
    }


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    index = min(len(values) - 1, max(0, round(q / 100 * len(values) + 0.5) - 1))
    return values[index]


def _store_games(url: str, every: float, stop: threading.Event, stored: list[float]) -> None:
    """Store a game every *every* seconds until *stop* (the runner of a live tournament)."""
    from benchmarks.dashboard import reuse, store_times  # noqa: PLC0415

    engine, tid, _ = reuse(url)
    while not stop.wait(every):
        stored += store_times(engine, tid, 1)
    engine.dispose()


def server_rss(dashboard: subprocess.Popen[bytes]) -> float:
    """Resident memory of ``arena dashboard`` and its children, MiB."""
    process = psutil.Process(dashboard.pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)]) / 2**20


async def _sample_memory(dashboard: subprocess.Popen[bytes], into: list[float], stop: Any) -> None:
    while not stop.is_set():
        into.append(server_rss(dashboard))
        await asyncio.sleep(1.0)


def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="arena-bench-viewers-"))
    url = args.db
    if args.postgres is not None:
        from benchmarks.dashboard import postgres_url  # noqa: PLC0415

        url = postgres_url(args.postgres.resolve(), f"bench_{args.games}", fresh=False)
    if url is None:
        from benchmarks.dashboard import build  # noqa: PLC0415

        url = f"sqlite:///{workdir / 'arena.db'}"
        build(url, args.games)[0].dispose()
    port = free_port()
    log = workdir / "dashboard.log"
    with log.open("w") as out:
        dashboard = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "dashboard", "--db", url,
             "--data", str(workdir / "data"), "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
        )  # fmt: skip
    base = wait_for_url(dashboard, log)
    try:
        writer_stop = threading.Event()
        stored: list[float] = []
        writer = threading.Thread(
            target=_store_games, args=(url, args.store_every, writer_stop, stored), daemon=True
        )

        async def main() -> dict[str, Any]:
            # Warm the server once (imports, first queries), as a running server is.
            viewer, _ = await _open(base, "127.0.0.1")
            for page in PAGES:
                page_hash, path = viewer.pages.get(page, ("", ""))
                await viewer.run_page(page_hash, path)
            await viewer.stream.close()
            missing = [page for page in PAGES if page not in viewer.pages]
            if missing:
                raise SystemExit(f"pages not offered by the server: {missing}")
            rss_idle = server_rss(dashboard)
            samples: list[float] = []
            stop = asyncio.Event()
            sampler = asyncio.create_task(_sample_memory(dashboard, samples, stop))
            if args.store_every:
                writer.start()
            figures = await _watch(
                base, args.sessions, args.per_address, args.navigators, args.seconds
            )
            stop.set()
            writer_stop.set()
            await sampler
            figures["games_stored_meanwhile"] = len(stored)
            figures["rss_idle_mib"] = rss_idle
            figures["rss_peak_mib"] = max(samples) if samples else rss_idle
            return figures

        return asyncio.run(main())
    finally:
        dashboard.send_signal(signal.SIGINT)
        try:
            dashboard.wait(timeout=60)
        except subprocess.TimeoutExpired:
            dashboard.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a database built by benchmarks/dashboard.py")
    parser.add_argument("--games", type=int, default=100_000, help="without --db: build this")
    parser.add_argument(
        "--postgres",
        metavar="PGDATA",
        type=Path,
        help="the database bench_GAMES that benchmarks/dashboard.py --postgres PGDATA built",
    )
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--per-address", type=int, default=10)
    parser.add_argument("--navigators", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--store-every",
        type=float,
        default=0.0,
        metavar="S",
        help="meanwhile store a game every S seconds (a running tournament); 0: none",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = run(args)
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    print(
        f"{figures['sessions_open']} sessions open ({figures['sessions_refused']} refused) in "
        f"{figures['open_all_s']:.1f} s; first page p50 {figures['first_page_p50_s']:.2f} s, "
        f"p95 {figures['first_page_p95_s']:.2f} s"
    )
    print(
        f"{figures['navigations']} page changes by {args.navigators} navigators: "
        f"p50 {figures['page_p50_s']:.2f} s, p95 {figures['page_p95_s']:.2f} s, "
        f"max {figures['page_max_s']:.2f} s"
    )
    for page, p95 in figures["per_page_p95_s"].items():
        count = figures["per_page_count"][page]
        print(f"  {page:<16} {count:4d} runs, p95 {p95 if p95 is None else round(p95, 2)} s")
    print(
        f"server memory: idle {figures['rss_idle_mib']:.0f} MiB, peak {figures['rss_peak_mib']:.0f} MiB"
    )
    if args.store_every:
        print(f"games stored meanwhile: {figures['games_stored_meanwhile']}")
    goal = (figures["page_p95_s"] or 99) < 1.5 and figures["rss_peak_mib"] < 2048
    print(f"Goal (p95 < 1.5 s, memory < 2 GB): {'met' if goal else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
