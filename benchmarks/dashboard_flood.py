"""One client floods the dashboard with sessions: how slow is everyone else's page, and is
the memory given back?

Why: every dashboard session is a websocket, a script run and state kept on the server. An
audit opened 150 sessions from one client in 4 s, each with a 64 KiB query string: another
visitor's page went from 0.7 s to 13-18 s, and the server's memory from 220 to 340 MiB,
which it kept. The goal (issue "fair play, second round"): with one client flooding,
another visitor's page is at most 2x slower than idle, and memory returns to within 10% of
its base after the flood.

What it does, against a real ``arena dashboard`` on a seeded database (4 bots, a real
round robin played in-process):

1. **Idle**: a visitor's page, ``--visits`` times, each in a fresh headless Chromium
   context: from navigation until the standings table is drawn. Also the server's view of
   it: a raw websocket session from connection until its script run finishes. Then the
   server's resident memory (its base).
2. **Flood**, from another loopback address (127.0.0.2, a client of its own): the audit's
   attack (150 sessions in a few seconds, each asking for a page with a 64 KiB query
   string), then ``--flood-s`` seconds of a sustained one: ``--attackers`` connections that
   open sessions with short queries as fast as they are let in, keep them, and ask for a
   rerun every 50 ms. The visitor's page and session are timed again meanwhile, and the
   memory sampled.
3. **After**: the flood stops; memory is read again once Streamlit has dropped the closed
   sessions (``arena dashboard`` keeps a closed tab's session 30 s).

Figures are reported, not asserted. Run: ``python benchmarks/dashboard_flood.py
[--visits 5] [--flood-s 40] [--attackers 150] [--addresses 1] [--json]``. Needs Debian's chromium and
playwright (``make venv`` installs playwright).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from websockets.asyncio.client import connect as aconnect  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from tests.dashboard.helpers import free_port, wait_for_url  # noqa: E402
from tests.dashboard.seed import seed_database  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
ATTACKER = "127.0.0.2"


def attacker_address(n: int, addresses: int) -> str:
    """The loopback address of attacker connection *n* when the flood comes from
    *addresses* addresses (1: the audit's one client, 127.0.0.2)."""
    if addresses <= 1:
        return ATTACKER
    return f"127.0.1.{1 + n % addresses}"


VISITOR = "127.0.0.1"
SETTLE_S = 45.0
"""Wait after the flood before reading memory: Streamlit drops a closed session's state
30 s after it closed (``arena dashboard``), and checks every few seconds."""


def _rerun(query: str = "") -> bytes:
    message = BackMsg()
    message.rerun_script.query_string = query
    return message.SerializeToString()


def session_seconds(url: str, source: str = VISITOR) -> float:
    """One websocket session from *source*: seconds from connecting until its script run
    finishes (the server's cost of a page, without the browser's; :data:`GIVE_UP_S` if it
    never does)."""
    start = time.perf_counter()
    try:
        with connect(
            url.replace("http://", "ws://") + "/_stcore/stream",
            subprotocols=["streamlit"],  # type: ignore[list-item]
            additional_headers={"Origin": url},
            open_timeout=GIVE_UP_S,
            source_address=(source, 0),
        ) as stream:
            stream.send(_rerun())
            while True:
                frame = ForwardMsg()
                left = GIVE_UP_S - (time.perf_counter() - start)
                frame.ParseFromString(stream.recv(timeout=max(left, 0.1)))
                if frame.WhichOneof("type") == "script_finished":
                    return time.perf_counter() - start
    except (TimeoutError, OSError):
        return GIVE_UP_S


GIVE_UP_S = 180.0
"""A page or session that takes longer is recorded as this (and reported as "over")."""


def page_seconds(browser: Any, url: str) -> float:
    """A visitor's page in a fresh browser context: navigation until the standings table
    is drawn (:data:`GIVE_UP_S` if it never is)."""
    from playwright.sync_api import TimeoutError as PageTimeout  # noqa: PLC0415

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    start = time.perf_counter()
    try:
        page.goto(url, timeout=GIVE_UP_S * 1000)
        left = GIVE_UP_S - (time.perf_counter() - start)
        page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=max(left, 1) * 1000)
        return time.perf_counter() - start
    except PageTimeout:
        return GIVE_UP_S
    finally:
        context.close()


def server_rss(dashboard: subprocess.Popen[bytes]) -> float:
    """Resident memory of the Streamlit server (the child of ``arena dashboard``), MiB."""
    children = psutil.Process(dashboard.pid).children(recursive=True)
    return sum(child.memory_info().rss for child in children) / 2**20


# ------------------------------------------------------------------------------ the flood


async def _burst(url: str, sessions: int, query: str, addresses: int) -> dict[str, int]:
    """The audit's attack: *sessions* sessions at once, each asking for a page."""
    outcome = {"opened": 0, "refused": 0}

    async def one(n: int) -> None:
        try:
            async with aconnect(
                url.replace("http://", "ws://") + "/_stcore/stream",
                subprotocols=["streamlit"],  # type: ignore[list-item]
                additional_headers={"Origin": url},
                open_timeout=60,
                local_addr=(attacker_address(n, addresses), 0),
            ) as stream:
                await stream.send(_rerun(query))
                outcome["opened"] += 1
                await asyncio.sleep(2)
        except Exception:
            outcome["refused"] += 1

    await asyncio.gather(*(one(n) for n in range(sessions)))
    return outcome


async def _sustained(url: str, attackers: int, seconds: float, addresses: int) -> dict[str, int]:
    """*attackers* connections that get in whenever they can, keep their session and ask
    for a rerun every 50 ms, for *seconds*."""
    deadline = time.monotonic() + seconds
    outcome = {"opened": 0, "refused": 0, "reruns": 0}

    async def attacker(n: int) -> None:
        while time.monotonic() < deadline:
            try:
                async with aconnect(
                    url.replace("http://", "ws://") + "/_stcore/stream",
                    subprotocols=["streamlit"],  # type: ignore[list-item]
                    additional_headers={"Origin": url},
                    open_timeout=30,
                    local_addr=(attacker_address(n, addresses), 0),
                ) as stream:
                    outcome["opened"] += 1
                    while time.monotonic() < deadline:
                        await stream.send(_rerun(f"page={n}&t={time.monotonic()}"))
                        outcome["reruns"] += 1
                        await asyncio.sleep(0.05)
            except Exception:
                outcome["refused"] += 1
                await asyncio.sleep(0.05)

    await asyncio.gather(*(attacker(n) for n in range(attackers)))
    return outcome


def flood(url: str, attackers: int, seconds: float, addresses: int, report: Any) -> None:
    """The attacker's process: the burst, then the sustained flood; counts to *report*."""
    burst = asyncio.run(_burst(url, 150, "q=" + "a" * 64 * 1024, addresses))
    sustained = asyncio.run(_sustained(url, attackers, seconds, addresses))
    report.put({"burst": burst, "sustained": sustained})


# ----------------------------------------------------------------------------- the run


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def run(visits: int, flood_s: float, attackers: int, addresses: int = 1) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    data = Path(tempfile.mkdtemp(prefix="arena-flood-"))
    database = f"sqlite:///{data / 'arena.db'}"
    seed_database(database).engine.dispose()
    port = free_port()
    log = data / "dashboard.log"
    with log.open("w") as out:
        dashboard = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "dashboard", "--db", database,
             "--data", str(data / "data"), "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
        )  # fmt: skip
    url = wait_for_url(dashboard, log)
    results: dict[str, Any] = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _ in range(2):  # warm-up: first imports and caches
                page_seconds(browser, url)
                session_seconds(url)
            time.sleep(SETTLE_S)
            results["rss_base_mib"] = server_rss(dashboard)
            results["idle_page_s"] = [page_seconds(browser, url) for _ in range(visits)]
            results["idle_session_s"] = [session_seconds(url) for _ in range(visits)]

            report: Any = multiprocessing.get_context("spawn").Queue()
            attacker = multiprocessing.get_context("spawn").Process(
                target=flood, args=(url, attackers, flood_s, addresses, report)
            )
            attacker.start()
            time.sleep(4.0)  # the burst, and the sustained flood under way
            pages, sessions, peak = [], [], results["rss_base_mib"]
            while attacker.is_alive() and len(pages) < visits:
                pages.append(page_seconds(browser, url))
                sessions.append(session_seconds(url))
                peak = max(peak, server_rss(dashboard))
            attacker.join()
            results["flood"] = report.get(timeout=60)
            results["flood_page_s"], results["flood_session_s"] = pages, sessions
            results["rss_peak_mib"] = peak
            browser.close()
        time.sleep(SETTLE_S)
        results["rss_after_mib"] = server_rss(dashboard)
    finally:
        dashboard.send_signal(signal.SIGINT)
        dashboard.wait(timeout=30)
    idle, flooded = _median(results["idle_page_s"]), _median(results["flood_page_s"])
    results["page_slowdown"] = flooded / idle
    results["session_slowdown"] = _median(results["flood_session_s"]) / _median(
        results["idle_session_s"]
    )
    results["rss_after_vs_base"] = results["rss_after_mib"] / results["rss_base_mib"]
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visits", type=int, default=5)
    parser.add_argument("--flood-s", type=float, default=40.0)
    parser.add_argument("--attackers", type=int, default=150)
    parser.add_argument(
        "--addresses",
        type=int,
        default=1,
        help="spread the flood over this many addresses (127.0.1.x): many clients, each "
        "within its limits; 1 (default): the audit's one client",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = run(args.visits, args.flood_s, args.attackers, args.addresses)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"flood: {results['flood']}")
    for name in ("page", "session"):
        idle, flooded = results[f"idle_{name}_s"], results[f"flood_{name}_s"]
        print(
            f"visitor's {name}: idle median {_median(idle):.2f} s (max {max(idle):.2f}), "
            f"under the flood median {_median(flooded):.2f} s (max {max(flooded):.2f}): "
            f"{results[f'{name}_slowdown']:.2f}x"
        )
    print(
        f"server memory: base {results['rss_base_mib']:.0f} MiB, peak "
        f"{results['rss_peak_mib']:.0f} MiB, after {results['rss_after_mib']:.0f} MiB "
        f"({results['rss_after_vs_base']:.2f}x base)"
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
